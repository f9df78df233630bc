/**
 * A STAND-IN for the `electron` module as main/app/main.ts uses it, for a Node test of the app's
 * start (no Electron binary runs here): `app`, `protocol`, `ipcMain`, `session`, `dialog`,
 * `Notification`, `BrowserWindow`, `screen` and `shell`, recording what main does with them. The test
 * answers the dialogs (`answers`) and says when the app is ready (`control.becomeReady`).
 * `vi.mock('electron', () => import('./stand-in-main-electron.js'))`.
 */
import { EventEmitter } from 'node:events';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { MessageBoxOptions, OpenDialogOptions } from 'electron';
import { StandInIpcMain, StandInWebContents } from './electron-stand-ins.js';

const paths = mkdtempSync(path.join(os.tmpdir(), 'promptforge-main-process-'));
let ready = false;
let becomeReady!: () => void;
const whenReady = new Promise<void>((resolve) => {
  becomeReady = () => {
    ready = true;
    resolve();
  };
});
let windowOpened!: (window: BrowserWindow) => void;

/** What main did, in order. */
export const recorded = {
  /** Each `protocol.registerSchemesAsPrivileged` call, and whether the app was ready then. */
  privileged: [] as Array<{ schemes: unknown; whenReady: boolean }>,
  /** `protocol.handle` handlers by scheme. */
  handlers: new Map<string, (request: Request) => Promise<Response> | Response>(),
  messageBoxes: [] as MessageBoxOptions[],
  openDialogs: [] as OpenDialogOptions[],
  /** Each URL main handed the system browser (`shell.openExternal`). */
  opened: [] as string[],
  quits: 0,
  exits: [] as number[],
};
/** What the stand-in dialogs answer, in order: the message box's button index, the folder picked. */
export const answers = { messageBox: [] as number[], folders: [] as Array<string | null> };
export const control = {
  /** What `requestSingleInstanceLock` answers. */
  singleInstance: true,
  becomeReady: () => becomeReady(),
  /** Resolves with the first window main opens. */
  window: new Promise<BrowserWindow>((resolve) => (windowOpened = resolve)),
  /** Where `app.getPath(name)` points: a folder of this test's own. */
  paths,
  /** What the stand-in system browser does with a URL main opened. */
  browser: async (_url: string): Promise<void> => undefined,
};

class StandInApp extends EventEmitter {
  readonly isPackaged = false;
  private name = 'Electron';
  setName(name: string): void {
    this.name = name;
  }
  getName(): string {
    return this.name;
  }
  getVersion(): string {
    return '0.0.0-stand-in';
  }
  getPath(name: string): string {
    return path.join(paths, name);
  }
  getAppPath(): string {
    return path.resolve(import.meta.dirname, '..', '..', '..');
  }
  whenReady(): Promise<void> {
    return whenReady;
  }
  requestSingleInstanceLock(): boolean {
    return control.singleInstance;
  }
  quit(): void {
    recorded.quits += 1;
  }
  exit(code: number): void {
    recorded.exits.push(code);
  }
}
export const app = new StandInApp();

export const protocol = {
  registerSchemesAsPrivileged(schemes: unknown): void {
    recorded.privileged.push({ schemes, whenReady: ready });
  },
  handle(scheme: string, handler: (request: Request) => Promise<Response> | Response): void {
    if (!ready) throw new Error('stand-in protocol.handle: called before the app is ready');
    recorded.handlers.set(scheme, handler);
  },
};

export const ipcMain = new StandInIpcMain();

export const session = {
  defaultSession: {
    webRequest: { onHeadersReceived: () => undefined },
    setPermissionRequestHandler: () => undefined,
    setPermissionCheckHandler: () => undefined,
    setDevicePermissionHandler: () => undefined,
  },
};

export const dialog = {
  async showMessageBox(_window: unknown, options: MessageBoxOptions) {
    recorded.messageBoxes.push(options);
    return { response: answers.messageBox.shift() ?? 0, checkboxChecked: false };
  },
  async showOpenDialog(_window: unknown, options: OpenDialogOptions) {
    recorded.openDialogs.push(options);
    const folder = answers.folders.shift() ?? null;
    return { canceled: folder === null, filePaths: folder === null ? [] : [folder] };
  },
  async showSaveDialog() {
    return { canceled: true, filePath: '' };
  },
};

export class Notification {
  static isSupported(): boolean {
    return false;
  }
}

/** The system browser, a stand-in: records the URL, then does what `control.browser` says (nothing, by default). */
export const shell = {
  async openExternal(url: string): Promise<void> {
    recorded.opened.push(url);
    await control.browser(url);
  },
};

export const screen = { getAllDisplays: () => [{ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }] };

export class BrowserWindow extends EventEmitter {
  static readonly opened: BrowserWindow[] = [];
  static getAllWindows(): BrowserWindow[] {
    return BrowserWindow.opened;
  }
  readonly webContents = new StandInWebContents();
  readonly loaded: string[] = [];
  constructor(readonly options: Record<string, unknown>) {
    super();
    BrowserWindow.opened.push(this);
    windowOpened(this);
  }
  loadURL(url: string): Promise<void> {
    this.loaded.push(url);
    return Promise.resolve();
  }
  isDestroyed(): boolean {
    return false;
  }
  isFocused(): boolean {
    return true;
  }
  isMinimized(): boolean {
    return false;
  }
  isMaximized(): boolean {
    return false;
  }
  maximize(): void {}
  show(): void {}
  focus(): void {}
  restore(): void {}
  getNormalBounds() {
    return { x: 0, y: 0, width: 1280, height: 800 };
  }
}
