import { useEffect, useRef } from 'react';
import type {
  ContractEventName,
  ContractMethodName,
  ContractRequest,
  ContractResponse,
} from '../../../common/contract.js';
import type { ContractEventListener, IpcError } from '../../../common/contract-ipc.js';
import type { ContractErrorCode } from '../../../common/contract-errors.js';
import { errorMessage } from '../../../common/error-message.js';

/** A contract call that resolved to `{ ok: false }`; keeps the stable `code`. */
export class StudioCallError extends Error {
  constructor(
    readonly method: ContractMethodName,
    readonly error: IpcError,
  ) {
    super(error.message);
    this.name = 'StudioCallError';
  }

  get code(): ContractErrorCode {
    return this.error.code;
  }
}

/**
 * Calls a contract method through `window.promptforge` and unwraps its result: resolves to the
 * value, rejects with a {@link StudioCallError} (or the transport's own error).
 */
export async function call<M extends ContractMethodName>(
  method: M,
  request: ContractRequest<M>,
): Promise<ContractResponse<M>> {
  const invoke = window.promptforge[method] as (
    request: ContractRequest<M>,
  ) => Promise<{ ok: true; value: ContractResponse<M> } | { ok: false; error: IpcError }>;
  const result = await invoke(request);
  if (!result.ok) throw new StudioCallError(method, result.error);
  return result.value;
}

/** A message for a person from anything a call may reject with. */
export function describeError(error: unknown): string {
  if (error instanceof StudioCallError) return `${error.message} (${error.code})`;
  return errorMessage(error);
}

/** Subscribes to a pushed event for the component's lifetime; the latest listener is always used. */
export function useStudioEvent<E extends ContractEventName>(event: E, listener: ContractEventListener<E>): void {
  const latest = useRef(listener);
  useEffect(() => {
    latest.current = listener;
  });
  useEffect(() => window.promptforge.on(event, (payload) => latest.current(payload)), [event]);
}
