import path from 'node:path';
import {
  app,
  BrowserWindow,
  dialog,
  ipcMain,
  Notification,
  protocol,
  session,
  shell,
  type OpenDialogOptions,
  type MessageBoxOptions,
  type SaveDialogOptions,
} from 'electron';
import type { ContractEventPayload } from '../../common/contract.js';
import { KeyringSecretStore } from '../core/credentials/keyring-secret-store.js';
import type { AppLocation } from '../core/studio/app-location.js';
import { APP_INDEX_URL, APP_SCHEME, APP_SCHEME_PRIVILEGES, serveAppAsset } from '../core/studio/app-protocol.js';
import { createStudioHandlers } from '../core/studio/studio-handlers.js';
import { createConsoleLogger } from '../core/studio/studio-logger.js';
import { PersonInputLog } from '../core/studio/person-input.js';
import { StudioService } from '../core/studio/studio-service.js';
import { checkedOpener } from '../core/studio/open-external.js';
import { createEventSender, registerContractHandlers, watchPersonInput, type SendEvent } from './ipc-registration.js';
import { createMainWindow } from './main-window.js';
import { hardenWebContents, installSessionSecurity } from './session-security.js';
import { errorMessage } from '../../common/error-message.js';

const logger = createConsoleLogger();
const outDirectory = path.resolve(import.meta.dirname, '..');
const rendererDirectory = path.join(outDirectory, 'renderer');
const devServerUrl = process.env['ELECTRON_RENDERER_URL'];
const location: AppLocation =
  !app.isPackaged && devServerUrl !== undefined
    ? { kind: 'dev-server', url: devServerUrl }
    : { kind: 'app', indexUrl: APP_INDEX_URL };

// The studio's own scheme (main/core/studio/app-protocol.ts), registered before the app is ready
// as Electron requires: the page's origin is the built renderer, not the whole disk (file:).
protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { ...APP_SCHEME_PRIVILEGES } }]);

// The same name in development and in the packaged app, so both use the same userData folder.
app.setName('PromptForge Studio');

let mainWindow: BrowserWindow | null = null;
/** The person's clicks and key presses in the studio window: approval:decide needs one just before. */
const personInput = new PersonInputLog();

/** Pushes contract events to the studio window; the run and approval work calls this. */
export const sendEvent: SendEvent = createEventSender(() => mainWindow, logger);

function focusMainWindow(): void {
  if (mainWindow === null || mainWindow.isDestroyed()) return;
  if (mainWindow.isMinimized()) mainWindow.restore();
  mainWindow.show();
  mainWindow.focus();
}

function openMainWindow(): void {
  mainWindow = createMainWindow({
    location,
    preloadPath: path.join(outDirectory, 'preload', 'index.cjs'),
    windowStatePath: path.join(app.getPath('userData'), 'window-state.json'),
    logger,
  });
  watchPersonInput(mainWindow.webContents, personInput);
  mainWindow.on('closed', () => {
    mainWindow = null;
  });
}

function notify(title: string, body: string): void {
  if (mainWindow === null || mainWindow.isDestroyed() || mainWindow.isFocused() || !Notification.isSupported()) return;
  const notification = new Notification({ title, body });
  notification.on('click', focusMainWindow);
  notification.show();
}

function notifyPendingApproval(pending: ContractEventPayload<'approval-pending'>): void {
  notify(
    `Approval needed: ${pending.alias}`,
    pending.reason === 'tainted'
      ? 'Its arguments repeat untrusted output.'
      : pending.description || 'A tool call is waiting.',
  );
}

async function start(): Promise<void> {
  app.on('second-instance', focusMainWindow);
  app.on('web-contents-created', (_event, contents) => hardenWebContents(contents, location, logger));
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) openMainWindow();
  });

  await app.whenReady();
  protocol.handle(APP_SCHEME, (request) => serveAppAsset(request, rendererDirectory));
  installSessionSecurity(session.defaultSession, location, logger);
  const service = new StudioService({
    userDataDirectory: app.getPath('userData'),
    examplesDirectory: path.join(app.getAppPath(), 'examples'),
    secrets: new KeyringSecretStore(),
    emit: (name, payload) => {
      sendEvent(name, payload);
      // The renderer's own Notification is refused by the permission policy, so main tells the OS
      // when a call starts waiting and the window is in the background (docs/studio.md).
      if (name === 'approval-pending') notifyPendingApproval(payload as ContractEventPayload<'approval-pending'>);
      // An MCP server's question waits the same way; the server's own words stay in the studio.
      if (name === 'elicitation-pending' || name === 'sampling-pending')
        notify(
          `MCP server "${(payload as { server: string }).server}" asks you`,
          name === 'sampling-pending' ? 'It wants an answer from your model.' : 'It waits in the Approvals tab.',
        );
    },
    chooseFolder: async () => {
      const options: OpenDialogOptions = {
        title: 'Open a workspace folder',
        properties: ['openDirectory', 'createDirectory'],
      };
      const result = mainWindow
        ? await dialog.showOpenDialog(mainWindow, options)
        : await dialog.showOpenDialog(options);
      return result.canceled ? null : (result.filePaths[0] ?? null);
    },
    // Trust and new key origins are the person's to grant, in main's own dialog: the page can only ask.
    configDirectory: process.env['PROMPTFORGE_CONFIG_DIR'] || app.getPath('userData'),
    confirmPerson: async (question) => {
      const options: MessageBoxOptions = {
        type: 'warning',
        title: question.title,
        message: question.message,
        detail: question.detail,
        buttons: ['Cancel', question.confirm],
        defaultId: 0,
        cancelId: 0,
        noLink: true,
      };
      const result = mainWindow
        ? await dialog.showMessageBox(mainWindow, options)
        : await dialog.showMessageBox(options);
      return result.response === 1;
    },
    chooseSaveFile: async (suggestedName) => {
      const options: SaveDialogOptions = {
        title: 'Export the run transcript',
        defaultPath: path.join(app.getPath('documents'), suggestedName),
        filters: [{ name: 'PromptForge transcript', extensions: ['jsonl'] }],
        properties: ['createDirectory', 'showOverwriteConfirmation'],
      };
      const result = mainWindow
        ? await dialog.showSaveDialog(mainWindow, options)
        : await dialog.showSaveDialog(options);
      return result.canceled || !result.filePath ? null : result.filePath;
    },
    // A server's URL question the person accepted, a sign-in page: the system browser, only for
    // what open-external.ts allows (https, or http on this machine), checked again here.
    openExternal: checkedOpener((href) => shell.openExternal(href)),
  });
  app.on('before-quit', () => void service.close());
  const handlers = createStudioHandlers({
    appName: app.getName(),
    appVersion: app.getVersion(),
    userDataDirectory: app.getPath('userData'),
    service,
  });
  registerContractHandlers({ ipcMain, getWindow: () => mainWindow, handlers, location, logger, personInput });
  openMainWindow();
}

// One studio per user: a second launch focuses the first window and exits.
if (app.requestSingleInstanceLock()) {
  start().catch((error: unknown) => {
    logger.error('startup failed', { reason: errorMessage(error) });
    app.exit(1);
  });
} else {
  app.quit();
}
