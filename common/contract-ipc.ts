/**
 * What crosses the IPC for the contract (common/contract.ts): a call's outcome and error, and the
 * API object the preload builds as `window.promptforge`.
 */
import type { ContractErrorCode } from './contract-errors.js';
import type {
  ContractEventName,
  ContractEventPayload,
  ContractMethodName,
  ContractRequest,
  ContractResponse,
} from './contract.js';

/**
 * Why a call failed. `code` is stable and machine-readable; `message` is for people and never
 * holds a secret.
 *
 * The codes and their meanings are listed once, in common/contract-errors.ts.
 */
export interface IpcError {
  /** Stable kebab-case error code. */
  code: ContractErrorCode;
  /** A sentence for a person; names the method and, for payload errors, the field path. */
  message: string;
}

/**
 * The outcome of every contract call. Calls never reject for an expected failure: they resolve
 * to `{ ok: false, error }`. (A rejected `ipcRenderer.invoke` would lose the `code`: Electron
 * reduces a thrown error to a message string.)
 */
export type IpcResult<T> = { ok: true; value: T } | { ok: false; error: IpcError };

/** A listener for pushed event `E`. */
export type ContractEventListener<E extends ContractEventName> = (payload: ContractEventPayload<E>) => void;

/**
 * The API the renderer sees as `window.promptforge`.
 *
 * - One function per contract method, keyed by the method name:
 *   `await window.promptforge['app:info']({})`. It resolves to an {@link IpcResult}; it rejects
 *   only when the transport itself breaks (window closing).
 * - `on(event, listener)` subscribes to a pushed event and returns the function that
 *   unsubscribes.
 *
 * Built by `preload/index.ts`, in the app and (on a stand-in `electron` module) in the e2e tests.
 */
export type PromptForgeApi = {
  readonly [M in ContractMethodName]: (request: ContractRequest<M>) => Promise<IpcResult<ContractResponse<M>>>;
} & {
  /** Subscribes `listener` to pushed event `event`; returns the unsubscribe function. */
  readonly on: <E extends ContractEventName>(event: E, listener: ContractEventListener<E>) => () => void;
};
