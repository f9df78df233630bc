/**
 * main/app/main-window.ts with a STAND-IN `electron` module (no Electron binary runs on this
 * machine): {@link StandInWindow} records the options the studio window is built with and is a
 * real EventEmitter for its `ready-to-show` and `close` events; the stand-in `screen` has one
 * 1920x1080 display. The window state goes through the real store, into a real temporary file.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserWindowConstructorOptions } from 'electron';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createMainWindow } from '../../../main/app/main-window.js';
import type { AppLocation } from '../../../main/core/studio/app-location.js';
import type { StudioLogger } from '../../../main/core/studio/studio-logger.js';

const standIn = await vi.hoisted(async () => {
  // vi.mock's factory runs before the module's imports, so the stand-in brings its own EventEmitter.
  const { EventEmitter } = await import('node:events');

  /** A STAND-IN for Electron's `BrowserWindow`: what it was built with and what the glue did to it. */
  class StandInWindow extends EventEmitter {
    static readonly created: StandInWindow[] = [];
    /** What the next load answers; a rejection is how Electron reports a page that failed to load. */
    static nextLoad: () => Promise<void> = () => Promise.resolve();
    /** What getNormalBounds answers; a throw is what a destroyed window does. */
    normalBounds: () => { x: number; y: number; width: number; height: number } = () => ({
      x: 40,
      y: 30,
      width: 1100,
      height: 720,
    });
    readonly loads: string[] = [];
    shown = false;
    maximized = false;

    constructor(readonly options: BrowserWindowConstructorOptions) {
      super();
      StandInWindow.created.push(this);
    }

    show(): void {
      this.shown = true;
    }
    maximize(): void {
      this.maximized = true;
    }
    isMaximized(): boolean {
      return this.maximized;
    }
    getNormalBounds() {
      return this.normalBounds();
    }
    loadURL(url: string): Promise<void> {
      this.loads.push(`url ${url}`);
      return StandInWindow.nextLoad();
    }
    loadFile(file: string): Promise<void> {
      this.loads.push(`file ${file}`);
      return StandInWindow.nextLoad();
    }
  }
  /** A STAND-IN for Electron's `screen`: one 1920x1080 display. */
  const screen = { getAllDisplays: () => [{ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }] };
  return { StandInWindow, screen };
});

vi.mock('electron', () => ({ BrowserWindow: standIn.StandInWindow, screen: standIn.screen }));

type StandInWindow = InstanceType<typeof standIn.StandInWindow>;

const appBuild: AppLocation = { kind: 'app', indexUrl: 'promptforge://studio/index.html' };
let folder: string;

beforeEach(() => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'promptforge-main-window-'));
  standIn.StandInWindow.nextLoad = () => Promise.resolve();
});

function recordingLogger() {
  return { info: vi.fn(), warn: vi.fn(), error: vi.fn() } satisfies StudioLogger;
}

function openWindow(overrides: { location?: AppLocation; windowStatePath?: string; logger?: StudioLogger } = {}) {
  const logger = overrides.logger ?? recordingLogger();
  const window = createMainWindow({
    location: overrides.location ?? appBuild,
    preloadPath: '/opt/PromptForge/out/preload/index.cjs',
    windowStatePath: overrides.windowStatePath ?? path.join(folder, 'window-state.json'),
    logger,
  }) as unknown as StandInWindow;
  return { window, logger };
}

describe('createMainWindow', () => {
  it('builds the window with the security baseline (docs/architecture.md), nothing more and nothing less', () => {
    const { window } = openWindow();
    expect(window.options.webPreferences).toEqual({
      preload: '/opt/PromptForge/out/preload/index.cjs',
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
    });
  });

  it('shows the window only once its first paint is ready', () => {
    const { window } = openWindow();
    expect(window.options.show).toBe(false);
    expect(window.shown).toBe(false);
    window.emit('ready-to-show');
    expect(window.shown).toBe(true);
  });

  it('loads the studio document on its own scheme (never a file: URL), or the dev server URL while developing', () => {
    expect(openWindow().window.loads).toEqual(['url promptforge://studio/index.html']);
    const devServer: AppLocation = { kind: 'dev-server', url: 'http://localhost:5173/' };
    expect(openWindow({ location: devServer }).window.loads).toEqual(['url http://localhost:5173/']);
  });

  it('logs a page that failed to load', async () => {
    standIn.StandInWindow.nextLoad = () => Promise.reject(new Error('ERR_FILE_NOT_FOUND (-6) loading index.html'));
    const logged = new Promise<unknown[]>((resolve) => {
      openWindow({ logger: { ...recordingLogger(), error: (...line: unknown[]) => resolve(line) } });
    });
    expect(await logged).toEqual([
      'could not load the studio UI',
      { reason: 'ERR_FILE_NOT_FOUND (-6) loading index.html' },
    ]);
  });

  it('saves its bounds when it closes, and the next window opens where it was, maximized again', () => {
    const first = openWindow().window;
    first.maximize();
    first.emit('close');
    const saved: unknown = JSON.parse(readFileSync(path.join(folder, 'window-state.json'), 'utf8'));
    expect(saved).toEqual({ x: 40, y: 30, width: 1100, height: 720, maximized: true });

    const next = openWindow().window;
    expect(next.options).toMatchObject({ x: 40, y: 30, width: 1100, height: 720 });
    expect(next.maximized).toBe(true);
  });

  it.each([
    [
      'the state file cannot be written',
      (window: StandInWindow) => window,
      // The state file's folder is a regular file.
      () => {
        const notAFolder = path.join(folder, 'not-a-folder');
        writeFileSync(notAFolder, '');
        return path.join(notAFolder, 'window-state.json');
      },
    ],
    [
      'the window is already destroyed',
      (window: StandInWindow) => {
        window.normalBounds = () => {
          throw new TypeError('Object has been destroyed');
        };
        return window;
      },
      () => path.join(folder, 'window-state.json'),
    ],
  ])('still closes when saving throws (%s): the failure is logged', (_case, prepare, statePath) => {
    const { window, logger } = openWindow({ windowStatePath: statePath() });
    prepare(window);
    expect(() => window.emit('close')).not.toThrow();
    expect(logger.warn).toHaveBeenCalledWith('could not save the window state', { reason: expect.any(String) });
  });
});
