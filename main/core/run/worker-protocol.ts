import type { MessagePort } from 'node:worker_threads';

/**
 * Messages between the main side of a run and its Lua worker. Host calls block the worker on an
 * `Atomics.wait` over {@link WorkerInit.signal}; the main side posts the {@link HostReply} on
 * {@link WorkerInit.replyPort} and then wakes it. The worker reads the reply with
 * `receiveMessageOnPort`, so it never needs its own event loop while Lua runs (SPEC §3.3).
 */
export interface WorkerInit {
  replyPort: MessagePort;
  /** Int32Array view, index 0: a counter the main side adds 1 to after posting each reply. */
  signal: SharedArrayBuffer;
  /** Set in source mode: the TypeScript module the bootstrap should import. */
  entry?: string;
}

/** Main → worker (over parentPort). */
export type ToWorker = {
  type: 'start';
  runId: string;
  script: string;
  chunkName: string;
  nonce: string;
  memoryBytes: number;
};

/** Worker → main (over parentPort). */
export type FromWorker =
  | { type: 'ready' }
  /** The script is about to run its first instruction (the CPU clock starts). */
  | { type: 'started'; runId: string }
  | { type: 'log'; text: string }
  | { type: 'call'; method: HostMethod; payload: string }
  | {
      type: 'end';
      runId: string;
      status: 'ok' | 'syntax' | 'runtime' | 'crash';
      message: string;
      /** Peak Lua heap in bytes. */
      memoryUsed: number;
    };

/** The blocking host calls a script can make. */
export type HostMethod = 'models.chat' | 'tools.call';

/** Main → worker reply to a host call (over the reply port). */
export type HostReply = { ok: true; value: unknown } | { ok: false; error: string };
