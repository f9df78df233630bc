import { BrowserWindow, screen } from 'electron';
import type { AppLocation } from '../core/studio/app-location.js';
import { loadWindowState, saveWindowState } from '../core/studio/window-state-store.js';
import type { StudioLogger } from '../core/studio/studio-logger.js';
import { errorMessage } from '../../common/error-message.js';

/** Where the window loads from and where it remembers its bounds. */
export interface MainWindowOptions {
  location: AppLocation;
  /** Absolute path of the built preload (out/preload/index.cjs). */
  preloadPath: string;
  /** userData/window-state.json */
  windowStatePath: string;
  logger: StudioLogger;
}

/** Creates the studio window with the security baseline of docs/architecture.md, and loads the UI. */
export function createMainWindow(options: MainWindowOptions): BrowserWindow {
  const { location, logger } = options;
  const state = loadWindowState(
    options.windowStatePath,
    screen.getAllDisplays().map((display) => display.workArea),
  );
  const window = new BrowserWindow({
    ...(state.x !== undefined && state.y !== undefined ? { x: state.x, y: state.y } : {}),
    width: state.width,
    height: state.height,
    minWidth: 640,
    minHeight: 400,
    show: false,
    title: 'PromptForge Studio',
    backgroundColor: '#111318',
    webPreferences: {
      preload: options.preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      spellcheck: false,
      // No `disableBlinkFeatures: 'Auxclick'` (Electronegativity's AUXCLICK_JS_CHECK): Chromium no
      // longer has that feature, so the flag would do nothing. A middle-clicked link asks the
      // window-open handler, which denies every window (hardenWebContents in session-security.ts).
    },
  });
  if (state.maximized) window.maximize();
  window.once('ready-to-show', () => window.show());

  window.on('close', () => {
    try {
      const bounds = window.getNormalBounds();
      saveWindowState(options.windowStatePath, { ...bounds, maximized: window.isMaximized() });
    } catch (error) {
      logger.warn('could not save the window state', {
        reason: errorMessage(error),
      });
    }
  });

  const loading = window.loadURL(location.kind === 'dev-server' ? location.url : location.indexUrl);
  loading.catch((error: unknown) => {
    logger.error('could not load the studio UI', { reason: errorMessage(error) });
  });
  return window;
}
