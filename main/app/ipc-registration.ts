import {
  contractEvents,
  contractMethodNames,
  type ContractEventName,
  type ContractEventPayload,
} from '../../common/contract.js';
import { type IpcResult } from '../../common/contract-ipc.js';
import { errorMessage } from '../../common/error-message.js';
import { isTrustedSender, type AppLocation, type IpcSenderFrame } from '../core/studio/app-location.js';
import { formatFieldPath } from '../core/studio/contract-dispatcher.js';
import {
  CallPress,
  needsPersonInput,
  personInputClock,
  pressPaysFor,
  type PersonInputEvent,
  type PersonInputJudge,
  type PersonInputLog,
} from '../core/studio/person-input.js';
import { dispatchContractCall, type StudioHandlers } from '../core/studio/studio-handlers.js';
import type { StudioLogger } from '../core/studio/studio-logger.js';

// The Electron glue, written against the few members of Electron's objects it uses: main/app/main.ts
// passes the real `ipcMain` and window, and the tests (test/node/app, test/e2e/bridge.ts) pass
// stand-ins. Electron's own types satisfy these interfaces.

/** What the sender check reads of Electron's `WebFrameMain` (the frame that sent a call). */
interface IpcSenderFrameLike {
  readonly url: string;
  /** The parent frame; null for a main frame. */
  readonly parent: unknown;
}

/** What registration reads of Electron's `IpcMainInvokeEvent`. */
export interface IpcInvokeEventLike {
  /** The sending page's `webContents`. */
  readonly sender: { readonly id: number };
  /** Null once the frame navigated away or was destroyed. */
  readonly senderFrame: IpcSenderFrameLike | null;
}

/** What registration uses of Electron's `ipcMain`. */
export interface IpcMainLike {
  handle(channel: string, listener: (event: IpcInvokeEventLike, ...args: unknown[]) => Promise<unknown>): void;
  removeHandler(channel: string): void;
}

/** What registration and the event sender use of the studio's `BrowserWindow`. */
export interface StudioWindowLike {
  isDestroyed(): boolean;
  readonly webContents: { readonly id: number; send(channel: string, ...args: unknown[]): void };
}

/** What {@link watchPersonInput} uses of the studio window's `webContents`. */
export interface PersonInputSource {
  readonly id: number;
  on(event: 'input-event', listener: (event: unknown, input: PersonInputEvent) => void): unknown;
  on(event: 'before-input-event', listener: (event: unknown, input: PersonInputEvent) => void): unknown;
  once(event: 'destroyed', listener: () => void): unknown;
}

/** What registration needs: the IPC, the window whose main frame may call, and the core's handlers. */
export interface ContractRegistrationOptions {
  /** Electron's `ipcMain` (a stand-in in tests). */
  ipcMain: IpcMainLike;
  getWindow: () => StudioWindowLike | null;
  handlers: StudioHandlers;
  location: AppLocation;
  logger: StudioLogger;
  /** Whether the person's input reached the sending window just now (the gate of main/core/studio/person-input.ts). */
  personInput: PersonInputJudge;
  /** The clock the gate judges with; defaults to {@link personInputClock}, the one input is recorded with. */
  now?: () => number;
}

function describeSender(event: IpcInvokeEventLike, window: StudioWindowLike | null): IpcSenderFrame | null {
  const frame = event.senderFrame;
  if (frame === null || window === null || window.isDestroyed()) return null;
  return { url: frame.url, isStudioMainFrame: event.sender.id === window.webContents.id && frame.parent === null };
}

function describeValue(value: object): string {
  const name = (Object.getPrototypeOf(value) as { constructor?: { name?: unknown } } | null)?.constructor?.name;
  return typeof name === 'string' && name !== '' ? `a ${name}` : 'an object of another kind';
}

/**
 * Why `value` would not cross Electron's IPC as it is, or null when it would. IPC copies values
 * by structured clone, which throws on a function or a symbol, and silently turns a class
 * instance into a plain object (its methods and class gone), drops symbol-keyed and
 * non-enumerable fields and reads getters once. Plain data (primitives, plain objects and arrays)
 * is copied unchanged, and that is all the contract describes.
 */
export function cloneProblem(value: unknown): string | null {
  const seen = new Set<object>();
  const walk = (item: unknown, path: PropertyKey[]): string | null => {
    const where = path.length === 0 ? 'the value' : `field "${formatFieldPath(path)}"`;
    if (typeof item === 'function') return `${where} is a function, which structured clone cannot copy`;
    if (typeof item === 'symbol') return `${where} is a symbol, which structured clone cannot copy`;
    if (typeof item !== 'object' || item === null || seen.has(item)) return null;
    seen.add(item);
    const isArray = Array.isArray(item);
    const prototype: unknown = Object.getPrototypeOf(item);
    if (prototype !== (isArray ? Array.prototype : Object.prototype) && prototype !== null) {
      return `${where} is ${describeValue(item)}, not plain data: structured clone would not copy it as it is`;
    }
    for (const key of Reflect.ownKeys(item)) {
      if (typeof key === 'symbol') return `${where} has a field keyed by ${String(key)}, which structured clone drops`;
      if (isArray && key === 'length') continue;
      const field = [...path, isArray ? Number(key) : key];
      const descriptor = Object.getOwnPropertyDescriptor(item, key)!;
      if (!descriptor.enumerable) {
        return `field "${formatFieldPath(field)}" is not enumerable, which structured clone drops`;
      }
      if (!('value' in descriptor)) {
        return `field "${formatFieldPath(field)}" is a getter, which structured clone turns into a copy of one reading`;
      }
      const problem = walk(descriptor.value, field);
      if (problem !== null) return problem;
    }
    return null;
  };
  return walk(value, []);
}

/** A call's result, or `internal-error` when Electron's IPC could not carry it unchanged (logged). */
function cloneable(method: string, result: IpcResult<unknown>, logger: StudioLogger): IpcResult<unknown> {
  const problem = cloneProblem(result.ok ? result.value : result.error);
  if (problem === null) return result;
  logger.error('IPC handler returned a response IPC cannot carry', { method, reason: problem });
  return {
    ok: false,
    error: {
      code: 'internal-error',
      message: `${method}: the studio produced a response that IPC cannot carry unchanged (${problem}); return plain data`,
    },
  };
}

/**
 * Registers one `ipcMain.handle` per contract method. Each checks the sender frame, then (for the
 * methods of the person-input gate) that the person just clicked or typed in the studio window,
 * then hands the untrusted payload to the core's dispatcher (validation, handler, response check)
 * with the press that came with it, if any (the only thing that can pay for one of main's
 * dialogs), and checks that the response crosses IPC unchanged. A listener never throws: every failure is
 * an `{ ok: false, error: { code, message } }` result. Returns the function that removes the handlers.
 */
export function registerContractHandlers(options: ContractRegistrationOptions): () => void {
  const { ipcMain, getWindow, handlers, location, logger, personInput, now = personInputClock } = options;
  const serve = async (method: string, event: IpcInvokeEventLike, payload: unknown): Promise<IpcResult<unknown>> => {
    const sender = describeSender(event, getWindow());
    if (!isTrustedSender(sender, location)) {
      logger.warn('refused IPC call: foreign sender', { method, url: event.senderFrame?.url ?? null });
      return {
        ok: false,
        error: {
          code: 'forbidden-sender',
          message: `${method}: refused: the call did not come from the studio window`,
        },
      };
    }
    let press = CallPress.unpaid();
    if (pressPaysFor(method)) {
      const verdict = personInput.judge(event.sender.id, now());
      if (!verdict.ok && needsPersonInput(method)) {
        logger.warn('refused IPC call: no person input', { method, reason: verdict.reason });
        return { ok: false, error: { code: 'no-person-input', message: verdict.message } };
      }
      if (verdict.ok) {
        // One press pays for one call: a script cannot ride on it for a second decision or dialog.
        personInput.consume(event.sender.id);
        press = CallPress.paid();
      }
    }
    // The press pays for at most one of main's dialogs, and only until this call is answered.
    return cloneable(method, await dispatchContractCall(handlers, method, payload, logger, press), logger);
  };
  for (const method of contractMethodNames) {
    ipcMain.handle(method, async (event, payload: unknown): Promise<IpcResult<unknown>> => {
      try {
        return await serve(method, event, payload);
      } catch (error) {
        // The dispatcher never throws; this is the glue itself failing (a window torn down mid-call).
        logger.error('IPC call failed in the glue', { method, reason: errorMessage(error) });
        return { ok: false, error: { code: 'internal-error', message: `${method}: ${errorMessage(error)}` } };
      }
    });
  }
  return () => {
    for (const method of contractMethodNames) ipcMain.removeHandler(method);
  };
}

/**
 * Records the person's input in the studio window (`input-event`: mouse, keyboard, touch;
 * `before-input-event`: keyboard) into `log`, under the window's `webContents` id, until the
 * window goes away. Only input the operating system delivers reaches these events: a page script
 * cannot produce them. A key held down counts once: its repeats carry `isAutoRepeat`.
 */
export function watchPersonInput(contents: PersonInputSource, log: PersonInputLog, now = personInputClock): void {
  const { id } = contents;
  const record = (_event: unknown, input: PersonInputEvent): void => {
    // The event as it came: a held key's repeats are told apart by its flags, not its type.
    log.record(id, input, now());
  };
  contents.on('input-event', record);
  contents.on('before-input-event', record);
  contents.once('destroyed', () => log.forget(id));
}

/** Pushes one contract event to the renderer; false when it was not sent. */
export type SendEvent = <E extends ContractEventName>(name: E, payload: ContractEventPayload<E>) => boolean;

/**
 * The one way main pushes events: the payload is checked against the contract first, and checked
 * to cross IPC unchanged, so the renderer only ever receives what the contract describes.
 */
export function createEventSender(getWindow: () => StudioWindowLike | null, logger: StudioLogger): SendEvent {
  return (name, payload) => {
    const parsed = contractEvents[name].safeParse(payload);
    if (!parsed.success) {
      logger.error('refused to push an event outside the contract', { event: name });
      return false;
    }
    const problem = cloneProblem(parsed.data);
    if (problem !== null) {
      logger.error('refused to push an event IPC cannot carry', { event: name, reason: problem });
      return false;
    }
    const window = getWindow();
    if (window === null || window.isDestroyed()) return false;
    try {
      window.webContents.send(name, parsed.data);
      return true;
    } catch (error) {
      logger.error('could not push an event', { event: name, reason: errorMessage(error) });
      return false;
    }
  };
}
