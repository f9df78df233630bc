// A STAND-IN for the `electron` module, for the packaging test only: it is not Electron, shows no
// window and talks to no OS. package-only-resolution.mjs resolves `electron` to this file, so the
// packaged main process can start in plain Node. It answers what main asks at start-up with plain
// values (paths under PF_STAND_IN_USER_DATA, the app path PF_STAND_IN_APP_PATH, one display) and
// records every call; a member it has no answer for is a recorder too, so a new API call is
// recorded, never a crash. The driver (start-packaged-main.mjs) reads `standInElectron`.
import path from 'node:path';

const calls = [];
const handled = [];
const windows = [];
/** Scheme → the handler main gave protocol.handle (it answers a Request with a Response). */
const protocolHandlers = new Map();
let windowLoaded;
let appExited;

/** What the app did with the stand-in, for the driver. */
export const standInElectron = {
  calls,
  handled,
  windows,
  protocolHandlers,
  /** Resolves with the first window once it loads its page (loadFile or loadURL). */
  windowLoaded: new Promise((resolve) => (windowLoaded = resolve)),
  /** Resolves with the exit code when the app calls app.exit() or app.quit(). */
  appExited: new Promise((resolve) => (appExited = resolve)),
};

const describe = (value) =>
  typeof value === 'function' ? '[function]' : typeof value === 'object' && value !== null ? '[object]' : value;

function record(name, args) {
  calls.push({ name, args: args.map(describe) });
}

/** A callable that records its calls and answers with another recorder (never a thenable). */
function recorder(name) {
  return new Proxy(function standIn() {}, {
    get(_target, key) {
      if (key === 'then' || typeof key === 'symbol') return undefined;
      return recorder(`${name}.${String(key)}`);
    },
    apply(_target, _this, args) {
      record(name, args);
      return recorder(`${name}()`);
    },
    construct(_target, args) {
      record(`new ${name}`, args);
      return recorder(`${name}#instance`);
    },
  });
}

/** `members`, with a recorder for every other member. */
function standInObject(name, members) {
  return new Proxy(members, {
    get(target, key) {
      if (key in target) return target[key];
      if (key === 'then' || typeof key === 'symbol') return undefined;
      return recorder(`${name}.${String(key)}`);
    },
  });
}

function recording(name, answer = () => undefined) {
  return (...args) => {
    record(name, args);
    return answer(...args);
  };
}

const userData = process.env.PF_STAND_IN_USER_DATA;
const appPath = process.env.PF_STAND_IN_APP_PATH;
if (!userData || !appPath) throw new Error('stand-in electron: set PF_STAND_IN_USER_DATA and PF_STAND_IN_APP_PATH');
let name = 'stand-in';

export const app = standInObject('app', {
  isPackaged: true,
  getName: () => name,
  setName: recording('app.setName', (value) => (name = value)),
  getVersion: () => '0.0.0-stand-in',
  getAppPath: () => appPath,
  getPath: (which) => path.join(userData, which),
  getLocale: () => 'en-US',
  isReady: () => true,
  whenReady: recording('app.whenReady', () => Promise.resolve()),
  requestSingleInstanceLock: recording('app.requestSingleInstanceLock', () => true),
  on: recording('app.on', () => app),
  once: recording('app.once', () => app),
  quit: recording('app.quit', () => appExited(0)),
  exit: recording('app.exit', (code = 0) => appExited(code)),
});

let nextId = 1;
function standInWebContents() {
  return standInObject('webContents', {
    id: nextId++,
    on: recording('webContents.on'),
    once: recording('webContents.once'),
    setWindowOpenHandler: recording('webContents.setWindowOpenHandler'),
    send: recording('webContents.send'),
  });
}

export class BrowserWindow {
  static getAllWindows() {
    return windows.map((entry) => entry.window);
  }
  constructor(options) {
    record('new BrowserWindow', [options]);
    this.webContents = standInWebContents();
    this.entry = { options, window: this, loaded: null };
    windows.push(this.entry);
    return standInObject('BrowserWindow#instance', this);
  }
  loadFile(file) {
    this.entry.loaded = { file };
    windowLoaded(this.entry);
    return Promise.resolve();
  }
  loadURL(url) {
    this.entry.loaded = { url };
    windowLoaded(this.entry);
    return Promise.resolve();
  }
  on() {
    return this;
  }
  once() {
    return this;
  }
  isDestroyed() {
    return false;
  }
  isFocused() {
    return false;
  }
  isMinimized() {
    return false;
  }
  isMaximized() {
    return false;
  }
}

export const ipcMain = standInObject('ipcMain', {
  handle: recording('ipcMain.handle', (channel) => handled.push(channel)),
  removeHandler: recording('ipcMain.removeHandler'),
  on: recording('ipcMain.on'),
});

const cancelled = () => Promise.resolve({ canceled: true, filePaths: [], response: 0 });
export const dialog = standInObject('dialog', {
  showOpenDialog: recording('dialog.showOpenDialog', cancelled),
  showSaveDialog: recording('dialog.showSaveDialog', cancelled),
  showMessageBox: recording('dialog.showMessageBox', cancelled),
});

export class Notification {
  static isSupported() {
    return false;
  }
  constructor(options) {
    record('new Notification', [options]);
    return standInObject('Notification#instance', {});
  }
}

export const session = standInObject('session', {
  defaultSession: standInObject('session.defaultSession', {
    webRequest: standInObject('session.defaultSession.webRequest', {
      onHeadersReceived: recording('session.defaultSession.webRequest.onHeadersReceived'),
    }),
    setPermissionRequestHandler: recording('session.defaultSession.setPermissionRequestHandler'),
    setPermissionCheckHandler: recording('session.defaultSession.setPermissionCheckHandler'),
    setDevicePermissionHandler: recording('session.defaultSession.setDevicePermissionHandler'),
  }),
});

export const protocol = standInObject('protocol', {
  registerSchemesAsPrivileged: recording('protocol.registerSchemesAsPrivileged'),
  handle: recording('protocol.handle', (scheme, handler) => protocolHandlers.set(scheme, handler)),
  unhandle: recording('protocol.unhandle', (scheme) => protocolHandlers.delete(scheme)),
  isProtocolHandled: (scheme) => protocolHandlers.has(scheme),
});

const display = { id: 1, scaleFactor: 1, bounds: { x: 0, y: 0, width: 1280, height: 800 } };
display.workArea = display.bounds;
export const screen = standInObject('screen', {
  getAllDisplays: () => [display],
  getPrimaryDisplay: () => display,
});

// The rest of Electron's main-process modules, as recorders.
export const shell = recorder('shell');
export const Menu = recorder('Menu');
export const MenuItem = recorder('MenuItem');
export const nativeTheme = recorder('nativeTheme');
export const nativeImage = recorder('nativeImage');
export const net = recorder('net');
export const clipboard = recorder('clipboard');
export const powerMonitor = recorder('powerMonitor');
export const safeStorage = recorder('safeStorage');
export const systemPreferences = recorder('systemPreferences');
export const globalShortcut = recorder('globalShortcut');
export const Tray = recorder('Tray');
export const webContents = recorder('webContents');
export const utilityProcess = recorder('utilityProcess');
export const crashReporter = recorder('crashReporter');
export const contentTracing = recorder('contentTracing');
export const autoUpdater = recorder('autoUpdater');

export default {
  app,
  BrowserWindow,
  ipcMain,
  dialog,
  Notification,
  session,
  screen,
  shell,
  Menu,
  MenuItem,
  nativeTheme,
  nativeImage,
  protocol,
  net,
  clipboard,
  powerMonitor,
  safeStorage,
  systemPreferences,
  globalShortcut,
  Tray,
  webContents,
  utilityProcess,
  crashReporter,
  contentTracing,
  autoUpdater,
};
