import type {
  ContractEventName,
  ContractEventPayload,
  ContractMethodName,
  ContractRequest,
  ContractResponse,
} from '../../../common/contract.js';
import type { IpcError } from '../../../common/contract-ipc.js';
import type { RunEvent } from '../../../common/run-events.js';
import type { PersonPress } from '../../../main/core/studio/person-input.js';
import { createStudioHandlers, dispatchContractCall } from '../../../main/core/studio/studio-handlers.js';
import { pressStandIn } from './press-stand-in.js';
import { runEvents, studio, type StudioHarness } from './studio-harness.js';
import { quietLogger } from '../../fixtures/stubs.js';

/** The studio of {@link studio} (no keys, closed after each test) driven through its contract, zod checks included. */
export interface ContractStudio {
  /**
   * Calls a method; resolves to its value, rejects with `code: message` on `{ ok: false }`. `press`
   * is the person's press that came with the call: a fresh stand-in by default (as the e2e
   * harness's person), `NO_PRESS` for a call none came with.
   */
  call<M extends ContractMethodName>(
    method: M,
    request: ContractRequest<M>,
    press?: PersonPress,
  ): Promise<ContractResponse<M>>;
  /**
   * Opens `folder` the way the page does: main's folder dialog (a stand-in here) answers it to
   * `workspace:choose`, then `workspace:open` opens that path.
   */
  openFolder(folder: string): Promise<ContractResponse<'workspace:open'>>;
  /** The person at main's dialog (a stand-in that says yes unless a test queues a no). */
  person: StudioHarness['person'];
  /** Calls a method and returns its error (fails when the call succeeds); `press` as for {@link call}. */
  fail(method: ContractMethodName, request: unknown, press?: PersonPress): Promise<IpcError>;
  /** The first pushed event `name` matching `match`, already pushed or still to come. */
  next<E extends ContractEventName>(
    name: E,
    match?: (payload: ContractEventPayload<E>) => boolean,
  ): Promise<ContractEventPayload<E>>;
  /** The pushed run events of one run, in order. */
  runEvents(runId: string): RunEvent[];
  /** Every event pushed so far, in order. */
  pushed: StudioHarness['pushed'];
  /** The person's system browser, a stand-in (see {@link StudioHarness.browser}). */
  browser: StudioHarness['browser'];
  /** Waits for a run's `run-end` and returns it. */
  ended(runId: string): Promise<Extract<RunEvent, { type: 'run-end' }>>;
}

/** A fresh studio service behind the contract's handlers, as the renderer reaches it. */
export function contractStudio(options: { configDirectory?: string } = {}): ContractStudio {
  const { service, person, folders, pushed, browser, waitFor } = studio(options);
  const handlers = createStudioHandlers({ appName: 'test', appVersion: '0', userDataDirectory: '/', service });
  const invoke = (method: ContractMethodName, request: unknown, press: PersonPress = pressStandIn()) =>
    dispatchContractCall(handlers, method, request, quietLogger, press);
  const call: ContractStudio['call'] = async (method, request, press) => {
    const result = await invoke(method, request, press);
    if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
    return result.value as never;
  };
  return {
    call,
    async openFolder(folder) {
      folders.push(folder);
      const { path } = await call('workspace:choose', {});
      if (path === null) throw new Error('workspace:choose answered null');
      return call('workspace:open', { path });
    },
    person,
    async fail(method, request, press) {
      const result = await invoke(method, request, press);
      if (result.ok) throw new Error(`${method} succeeded: ${JSON.stringify(result.value)}`);
      return result.error;
    },
    next: waitFor,
    runEvents: (runId) => runEvents(pushed, runId),
    pushed,
    browser,
    ended: (runId) =>
      waitFor('run-event', (event) => event.runId === runId && event.type === 'run-end') as Promise<
        Extract<RunEvent, { type: 'run-end' }>
      >,
  };
}
