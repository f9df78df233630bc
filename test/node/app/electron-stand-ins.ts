/**
 * Stand-ins for the parts of Electron the studio's glue uses, for tests that cannot start
 * Electron (no binary exists on this machine). Main side: {@link StandInIpcMain},
 * {@link StandInWebContents}, {@link StandInBrowserWindow}, {@link StandInWebFrameMain}, which
 * main/app/ipc-registration.ts is written against (its `IpcMainLike`, `StudioWindowLike`, ...).
 * Renderer side: {@link createStandInElectron}, the `electron` module a sandboxed preload
 * requires (`contextBridge`, `ipcRenderer`), which runs preload/index.ts in Node tests and the
 * built preload in the e2e bridge's page.
 *
 * What they copy from Electron: values crossing IPC are structured-cloned (a function or a symbol
 * throws, a class instance arrives as a plain object); `ipcRenderer.invoke` rejects when main has
 * no handler or the handler throws; listeners get an `IpcRendererEvent` before the payload; the
 * object `contextBridge.exposeInMainWorld` puts on the page is a frozen copy whose functions call
 * the preload's. What they do not: the preload shares the page's JavaScript world (Electron's
 * contextIsolation gives it its own), and a destroyed window's webContents only throws on access.
 */
import { EventEmitter } from 'node:events';
import type { IpcInvokeEventLike, IpcMainLike, StudioWindowLike } from '../../../main/app/ipc-registration.js';

type InvokeListener = (event: IpcInvokeEventLike, ...args: unknown[]) => Promise<unknown>;

/** A stand-in for Electron's `ipcMain`: the handlers registered, and an `invoke` as a renderer makes it. */
export class StandInIpcMain implements IpcMainLike {
  private readonly listeners = new Map<string, InvokeListener>();

  /** `observe` sees each handler's reply as it is, before the clone (to check what would cross). */
  constructor(private readonly observe: (channel: string, reply: unknown) => void = () => {}) {}

  handle(channel: string, listener: InvokeListener): void {
    // Electron's own message for a second registration.
    if (this.listeners.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
    this.listeners.set(channel, listener);
  }

  removeHandler(channel: string): void {
    this.listeners.delete(channel);
  }

  /** The channels with a handler, in registration order. */
  get channels(): string[] {
    return [...this.listeners.keys()];
  }

  /**
   * What Electron does with a renderer's `ipcRenderer.invoke(channel, ...args)` sent by `event`'s
   * frame: the handler's reply is structured-cloned on its way back; no handler, a throw, or a
   * reply that cannot be cloned rejects, with Electron's wording.
   */
  async invoke(event: IpcInvokeEventLike, channel: string, ...args: unknown[]): Promise<unknown> {
    const listener = this.listeners.get(channel);
    const failed = (reason: string): Error => new Error(`Error invoking remote method '${channel}': ${reason}`);
    if (listener === undefined) throw failed(`Error: No handler registered for '${channel}'`);
    let reply: unknown;
    try {
      reply = await listener(event, ...structuredClone(args));
    } catch (error) {
      throw failed(String(error));
    }
    this.observe(channel, reply);
    try {
      return structuredClone(reply);
    } catch {
      throw failed('Error: An object could not be cloned.');
    }
  }
}

/** A stand-in for Electron's `WebFrameMain`: the frame that sent a call. */
export class StandInWebFrameMain {
  constructor(
    readonly url: string,
    readonly parent: StandInWebFrameMain | null = null,
  ) {}
}

let nextWebContentsId = 1;

/**
 * A stand-in for a window's `webContents`: its id, `send` (the payload is structured-cloned, then
 * handed to `deliver`, the renderer's side), and the input events main listens to (`emit` them).
 */
export class StandInWebContents extends EventEmitter {
  readonly id = nextWebContentsId++;

  /** `deliver` gets each message's clone; `observe` sees it as main sent it, before the clone. */
  constructor(
    private readonly deliver: (channel: string, payload: unknown) => void = () => {},
    private readonly observe: (channel: string, payload: unknown) => void = () => {},
  ) {
    super();
  }

  send(channel: string, ...args: unknown[]): void {
    this.observe(channel, args[0]);
    const [payload] = structuredClone(args);
    this.deliver(channel, payload);
  }

  /** An invoke event as this webContents' `frame` sends it. */
  invokeEvent(frame: StandInWebFrameMain | null): IpcInvokeEventLike {
    return { sender: this, senderFrame: frame };
  }
}

/** A stand-in for the studio's `BrowserWindow`; after {@link destroy}, reading `webContents` throws, as in Electron. */
export class StandInBrowserWindow implements StudioWindowLike {
  private destroyed = false;

  constructor(private readonly contents: StandInWebContents) {}

  get webContents(): StandInWebContents {
    if (this.destroyed) throw new TypeError('Object has been destroyed');
    return this.contents;
  }

  isDestroyed(): boolean {
    return this.destroyed;
  }

  destroy(): void {
    this.destroyed = true;
    this.contents.emit('destroyed');
  }
}

/** How the renderer-side stand-in reaches main: one invoke, answered with main's reply. */
export interface StandInWire {
  invoke(channel: string, args: unknown[]): Promise<unknown>;
}

/** The `electron` module as a sandboxed preload sees it (its two members the preload uses), and the way events reach it. */
export interface StandInElectron {
  electron: {
    contextBridge: { exposeInMainWorld(key: string, api: unknown): void };
    ipcRenderer: {
      invoke(channel: string, ...args: unknown[]): Promise<unknown>;
      on(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
      removeListener(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
    };
  };
  /** Delivers one message main sent on `channel` (webContents.send) to the listeners. */
  deliver(channel: string, payload: unknown): void;
}

/**
 * Builds the stand-in `electron` module for a preload: `contextBridge.exposeInMainWorld` puts a
 * frozen copy of the API on `world` (the page's global object), `ipcRenderer.invoke`
 * structured-clones its arguments and sends them over `wire`, `ipcRenderer.on` listeners get a
 * stand-in `IpcRendererEvent` and a structured clone of each delivered payload.
 *
 * The e2e bridge serialises this function into the page's init script, so it uses nothing from
 * its module scope.
 */
export function createStandInElectron(world: Record<string, unknown>, wire: StandInWire): StandInElectron {
  const listeners = new Map<string, Set<(event: unknown, ...args: unknown[]) => void>>();
  const ipcRenderer: StandInElectron['electron']['ipcRenderer'] = {
    async invoke(channel, ...args) {
      return wire.invoke(channel, structuredClone(args));
    },
    on(channel, listener) {
      const set = listeners.get(channel) ?? new Set();
      listeners.set(channel, set);
      set.add(listener);
      return ipcRenderer;
    },
    removeListener(channel, listener) {
      listeners.get(channel)?.delete(listener);
      return ipcRenderer;
    },
  };
  // Function values are proxied, everything else is copied and frozen (Electron's contextBridge).
  const bridged = (value: unknown): unknown => {
    if (typeof value === 'function') return (...args: unknown[]) => (value as (...args: unknown[]) => unknown)(...args);
    if (Array.isArray(value)) return Object.freeze(value.map(bridged));
    if (value !== null && typeof value === 'object') {
      return Object.freeze(Object.fromEntries(Object.entries(value).map(([key, item]) => [key, bridged(item)])));
    }
    return value;
  };
  return {
    electron: {
      contextBridge: {
        exposeInMainWorld(key, api) {
          if (key in world) throw new Error(`Cannot bind an API on top of an existing property on the window object`);
          Object.defineProperty(world, key, { value: bridged(api), enumerable: true });
        },
      },
      ipcRenderer,
    },
    deliver(channel, payload) {
      const event = { sender: ipcRenderer, ports: [] };
      const copy = structuredClone(payload);
      for (const listener of [...(listeners.get(channel) ?? [])]) listener(event, copy);
    },
  };
}
