import { ipcMain, type BrowserWindow, type IpcMainInvokeEvent } from 'electron';
import {
  contractEvents,
  contractMethodNames,
  type ContractEventName,
  type ContractEventPayload,
  type IpcResult,
} from '../../common/contract.js';
import { isTrustedSender, type AppLocation, type IpcSenderFrame } from '../core/studio/app-location.js';
import { dispatchContractCall, type StudioHandlers } from '../core/studio/studio-handlers.js';
import type { StudioLogger } from '../core/studio/studio-logger.js';

/** What registration needs: the window whose main frame may call, and the core's handlers. */
export interface ContractRegistrationOptions {
  getWindow: () => BrowserWindow | null;
  handlers: StudioHandlers;
  location: AppLocation;
  logger: StudioLogger;
}

function describeSender(event: IpcMainInvokeEvent, window: BrowserWindow | null): IpcSenderFrame | null {
  const frame = event.senderFrame;
  if (frame === null || window === null || window.isDestroyed()) return null;
  return { url: frame.url, isStudioMainFrame: event.sender.id === window.webContents.id && frame.parent === null };
}

/**
 * Registers one `ipcMain.handle` per contract method. Each checks the sender frame, then hands
 * the untrusted payload to the core's dispatcher (validation, handler, response check). Returns
 * the function that removes the handlers.
 */
export function registerContractHandlers(options: ContractRegistrationOptions): () => void {
  const { getWindow, handlers, location, logger } = options;
  for (const method of contractMethodNames) {
    ipcMain.handle(method, async (event, payload: unknown): Promise<IpcResult<unknown>> => {
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
      return dispatchContractCall(handlers, method, payload, logger);
    });
  }
  return () => {
    for (const method of contractMethodNames) ipcMain.removeHandler(method);
  };
}

/** Pushes one contract event to the renderer; false when it was not sent. */
export type SendEvent = <E extends ContractEventName>(name: E, payload: ContractEventPayload<E>) => boolean;

/**
 * The one way main pushes events: the payload is checked against the contract first, so the
 * renderer only ever receives what the contract describes.
 */
export function createEventSender(getWindow: () => BrowserWindow | null, logger: StudioLogger): SendEvent {
  return (name, payload) => {
    const parsed = contractEvents[name].safeParse(payload);
    if (!parsed.success) {
      logger.error('refused to push an event outside the contract', { event: name });
      return false;
    }
    const window = getWindow();
    if (window === null || window.isDestroyed()) return false;
    window.webContents.send(name, parsed.data);
    return true;
  };
}
