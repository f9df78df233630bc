// One run's link to its pooled Lua worker: the messages the worker posts, the log acks and replies it waits on, and how its end or crash reads.
import type { RunStatus } from '../../../common/run-events.js';
import type { RunResult } from './run.js';
import type { LuaWorker } from './worker-pool.js';
import { Signal, type FromWorker, type HostReply } from './worker-protocol.js';

/** A worker whose run's Lua heap peaked above this is retired instead of reused. */
const REUSE_MAX_LUA_HEAP_BYTES = 32 * 1024 * 1024;

type EndError = NonNullable<RunResult['error']>;

/** What the run does with what its worker says. */
export interface WorkerEvents {
  /** The script is about to run its first instruction (the CPU clock starts). */
  started(): void;
  /** A log line, already acknowledged to the worker. */
  log(message: Extract<FromWorker, { type: 'log' }>): void;
  /** A blocking host call: the worker sleeps until {@link WorkerLink.reply}. */
  call(method: string, payload: string): void;
  /** The run ends: the script ended (`reusable`: the worker may run another), or the worker crashed. */
  end(status: RunStatus, error: EndError | undefined, reusable: boolean): void;
}

/** Listens to `worker` for one run until {@link WorkerLink.detach}. */
export class WorkerLink {
  /** The error a crashing worker reported: the run ends with it once the worker has exited. */
  private workerError: Error | undefined;
  private detached = false;

  constructor(
    readonly worker: LuaWorker,
    /** The run's Lua heap limit, named when the script runs out of it. */
    private readonly memoryBytes: number,
    private readonly events: WorkerEvents,
  ) {
    worker.worker.on('message', this.onMessage);
    worker.worker.on('error', this.onError);
    worker.worker.on('exit', this.onExit);
  }

  /** Answers the worker's blocking host call. */
  reply(reply: HostReply): void {
    this.worker.replyPort.postMessage(reply);
    // Add, never store: the worker read the counter before posting its call and sleeps only while
    // it is unchanged. (The counter lives as long as the worker, across runs, so a per-run count
    // could write back the very value the worker is waiting on and leave it asleep.)
    Atomics.add(this.worker.signal, Signal.Reply, 1);
    Atomics.notify(this.worker.signal, Signal.Reply);
  }

  /** Stops listening: the run has ended. */
  detach(): void {
    this.detached = true;
    this.worker.worker.off('message', this.onMessage);
    this.worker.worker.off('error', this.onError);
    this.worker.worker.off('exit', this.onExit);
  }

  private readonly onMessage = (message: FromWorker): void => {
    if (this.detached) return;
    switch (message.type) {
      case 'started':
        this.events.started();
        break;
      case 'log':
        // Acknowledge first: the worker blocks its script while too many lines are unacknowledged.
        Atomics.add(this.worker.signal, Signal.LogAck, 1);
        Atomics.notify(this.worker.signal, Signal.LogAck);
        this.events.log(message);
        break;
      case 'call':
        this.events.call(message.method, message.payload);
        break;
      case 'end':
        this.onScriptEnd(message);
        break;
      case 'ready':
        break;
    }
  };

  // Node delivers an uncaught error before the messages the worker posted ahead of it, and
  // drains those messages only before 'exit': so the run ends at 'exit', and nothing the script
  // logged before the crash is lost.
  private readonly onError = (error: Error): void => {
    this.workerError ??= error;
  };

  private readonly onExit = (code: number): void => {
    const error = this.workerError;
    if (error === undefined) {
      this.events.end('error', { kind: 'crash', message: `the Lua worker exited unexpectedly (code ${code})` }, false);
    } else if ((error as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY') {
      this.events.end(
        'limit',
        { kind: 'memory', message: `the Lua worker ran out of memory (${error.message})` },
        false,
      );
    } else {
      this.events.end('error', { kind: 'crash', message: `the Lua VM crashed: ${error.message}` }, false);
    }
  };

  private onScriptEnd(message: Extract<FromWorker, { type: 'end' }>): void {
    const reusable =
      message.status !== 'crash' && message.reusable !== false && message.memoryUsed < REUSE_MAX_LUA_HEAP_BYTES;
    if (message.status === 'ok') {
      this.events.end('ok', undefined, reusable);
    } else if (/not enough memory/.test(message.message)) {
      this.events.end(
        'limit',
        {
          kind: 'memory',
          message: `${message.message} (the Lua heap limit is ${Math.round(this.memoryBytes / 1048576)} MiB)`,
        },
        false,
      );
    } else {
      const kind = message.status === 'syntax' ? 'syntax' : message.status === 'crash' ? 'crash' : 'runtime';
      this.events.end('error', { kind, message: message.message }, reusable);
    }
  }
}
