import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import { setterExited, wrapperFlagCell } from './wasm-wrappers.js';
import { SIGNAL_SLOTS, type FromWorker, type WorkerInit } from './worker-protocol.js';

/** A worker's own V8 heap cap (the Lua heap is wasm memory, capped per run): its OOM is a clean run end. */
export const DEFAULT_WORKER_HEAP_MB = 256;
/** How long a worker that finished a run may take to report `ready` before it is terminated. */
export const DEFAULT_RETURN_TIMEOUT_MS = 10_000;

/** A Lua worker with its reply channel, ready to run one script. */
export interface LuaWorker {
  readonly worker: Worker;
  /** The main side's end of the reply channel. */
  readonly replyPort: MessagePort;
  /** The shared counters (see `Signal` in worker-protocol.ts). */
  readonly signal: Int32Array;
  /** Runs completed on this worker. */
  runs: number;
}

/** Where the worker module is and how to start it. */
export interface WorkerEntry {
  file: string;
  /** For source mode: the TypeScript module the bootstrap imports. */
  entry?: string;
}

/**
 * In source mode only (this module loaded as TypeScript): a built `lua-worker.js` to start instead
 * of the TypeScript source. The test suite sets it to out/cli/lua-worker.js, which its global
 * setup rebuilds from the current source, so workers start in ~0.1 s instead of ~0.5 s through tsx.
 */
export const BUILT_WORKER_ENV = 'PROMPTFORGE_LUA_WORKER';

/**
 * The worker to start: the bundled `lua-worker.js` next to this module when it exists (the built
 * app, the CLI, the benchmarks); in source mode the file named by {@link BUILT_WORKER_ENV} when
 * set, otherwise the TypeScript source through a tsx bootstrap ({@link sourceWorkerEntry}).
 */
export function defaultWorkerEntry(): WorkerEntry {
  const here = dirname(fileURLToPath(import.meta.url));
  const built = join(here, 'lua-worker.js');
  if (existsSync(built)) return { file: outsideAsar(built) };
  const named = process.env[BUILT_WORKER_ENV];
  if (named) {
    if (!existsSync(named))
      throw new Error(`${BUILT_WORKER_ENV}=${named}: no such file (build it with \`npm run build:cli\`, or unset it)`);
    return { file: named };
  }
  return sourceWorkerEntry();
}

/**
 * In the packaged app this module runs from inside `app.asar`, and the worker is a real file in
 * `app.asar.unpacked` (asarUnpack in electron-builder.yml): it is started from there, so Node loads
 * it and its wasmoon as plain files, needing no asar support in the worker (docs/packaging.md).
 */
function outsideAsar(file: string): string {
  const unpacked = file.replace(/([\\/]app\.asar)([\\/])/, '$1.unpacked$2');
  if (unpacked === file) return file;
  if (!existsSync(unpacked))
    throw new Error(
      `${unpacked}: no such file. The Lua worker must be unpacked from the app's archive (asarUnpack in electron-builder.yml)`,
    );
  return unpacked;
}

/** The TypeScript worker source, started through the tsx bootstrap `worker-boot.mjs`. */
export function sourceWorkerEntry(): WorkerEntry {
  const here = dirname(fileURLToPath(import.meta.url));
  return { file: join(here, 'worker-boot.mjs'), entry: pathToFileURL(join(here, 'lua-worker.ts')).href };
}

/** Options for {@link WorkerPool}. */
export interface WorkerPoolOptions {
  /** How many workers to keep (idle and running together); more concurrent runs start new ones. Default 2. */
  size?: number;
  entry?: WorkerEntry;
  /** A worker is retired after this many runs. Default 200. */
  maxRunsPerWorker?: number;
  /** Each worker's V8 old-generation heap cap in MiB. Default {@link DEFAULT_WORKER_HEAP_MB}. */
  workerHeapMb?: number;
  /** See {@link DEFAULT_RETURN_TIMEOUT_MS}. */
  returnTimeoutMs?: number;
  /** Where errors of workers no run owns are reported. Default: console. */
  logger?: { error(message: string): void };
}

/**
 * Keeps pre-warmed Lua workers (wasmoon compiled, an engine prepared) so that a run starts without
 * paying for worker start-up. `size` counts every worker the pool owns (idle, starting, returning
 * and running): a run takes an idle worker and gives it back when its script ends, so sequential
 * runs reuse one worker. A worker whose run was stopped is terminated and replaced in the
 * background. Idle workers are unref'd, so a pool never keeps a process alive. Every worker has
 * an error listener for its whole life (an error while idle, warming or returning never reaches
 * the process as an uncaught error), a worker that dies while idle is replaced, and a worker that
 * does not come back from a run in time is terminated.
 */
export class WorkerPool {
  private readonly idle: LuaWorker[] = [];
  private readonly warming = new Set<Promise<LuaWorker | undefined>>();
  /** Workers that finished a run and are preparing a fresh engine (about a millisecond). */
  private readonly returning = new Set<Promise<void>>();
  /** Workers running a script. */
  private busy = 0;
  private refill: NodeJS.Immediate | undefined;
  private readonly size: number;
  private readonly entry: WorkerEntry;
  private readonly maxRuns: number;
  private readonly heapMb: number;
  private readonly returnTimeoutMs: number;
  private readonly logger: { error(message: string): void };
  /** Workers a run owns right now (the run handles their errors). */
  private readonly owned = new Set<Worker>();
  private closed = false;

  constructor(options: WorkerPoolOptions = {}) {
    this.size = options.size ?? 2;
    this.entry = options.entry ?? defaultWorkerEntry();
    this.maxRuns = options.maxRunsPerWorker ?? 200;
    this.heapMb = options.workerHeapMb ?? DEFAULT_WORKER_HEAP_MB;
    this.returnTimeoutMs = options.returnTimeoutMs ?? DEFAULT_RETURN_TIMEOUT_MS;
    this.logger = options.logger ?? console;
  }

  /** How many workers are running a script now (a run gives its worker back, or ends it, when it ends). */
  get running(): number {
    return this.busy;
  }

  /** Starts warming workers up to the pool size. */
  prewarm(): void {
    while (!this.closed && this.idle.length + this.warming.size + this.returning.size + this.busy < this.size) {
      const warming = this.spawn().then(
        (worker) => {
          this.warming.delete(warming);
          if (this.closed) {
            void worker.worker.terminate();
            return undefined;
          }
          this.idle.push(worker);
          return worker;
        },
        () => {
          this.warming.delete(warming);
          return undefined;
        },
      );
      this.warming.add(warming);
    }
  }

  /** A ready worker: an idle one when there is one, else a newly started one. */
  async acquire(): Promise<LuaWorker> {
    if (this.closed) throw new Error('the worker pool is closed');
    // A worker about to come back, or one already warming, is ready sooner than a new one.
    while (this.idle.length === 0 && this.returning.size + this.warming.size > 0)
      await Promise.race([...this.returning, ...this.warming]);
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- the pool may close during the wait
    if (this.closed) throw new Error('the worker pool is closed');
    this.busy += 1;
    try {
      const worker = this.idle.pop() ?? (await this.spawn());
      worker.worker.ref();
      this.owned.add(worker.worker);
      return worker;
    } catch (error) {
      this.busy -= 1;
      throw error;
    }
  }

  /** Gives back a worker that was acquired but never given a script (its run ended first). */
  returnUnused(worker: LuaWorker): void {
    this.busy -= 1;
    this.owned.delete(worker.worker);
    if (this.closed || this.idle.length >= this.size) {
      void worker.worker.terminate();
      return;
    }
    worker.worker.unref();
    this.idle.push(worker);
  }

  /**
   * Gives a worker back after a run that ended normally. The worker prepares a fresh engine and
   * reports `ready`; only then does it rejoin the pool.
   */
  release(worker: LuaWorker, reusable: boolean): void {
    worker.runs += 1;
    this.busy -= 1;
    this.owned.delete(worker.worker);
    if (this.closed || !reusable || worker.runs >= this.maxRuns || this.idle.length >= this.size) {
      void worker.worker.terminate();
      this.scheduleRefill();
      return;
    }
    worker.worker.unref();
    const back = new Promise<void>((resolve) => {
      // A worker that never reports ready (stuck closing its VM, say) is given up on.
      const timer = setTimeout(() => {
        done();
        void worker.worker.terminate();
        this.scheduleRefill();
      }, this.returnTimeoutMs);
      timer.unref();
      const done = (): void => {
        clearTimeout(timer);
        worker.worker.off('message', onReady);
        worker.worker.off('exit', done);
        this.returning.delete(back);
        resolve();
      };
      const onReady = (message: FromWorker): void => {
        if (message.type !== 'ready') return;
        done();
        if (this.closed || this.idle.length >= this.size) void worker.worker.terminate();
        else this.idle.push(worker);
      };
      worker.worker.on('message', onReady);
      worker.worker.on('exit', done);
    });
    this.returning.add(back);
  }

  /** Starts replacements after the current work, so they never compete with a run starting now. */
  private scheduleRefill(): void {
    if (this.closed) return;
    this.refill ??= setImmediate(() => {
      this.refill = undefined;
      this.prewarm();
    });
  }

  /** A worker exited (crashed, ran out of memory, terminated): drop it if idle and refill. */
  private onExit(worker: Worker): void {
    const at = this.idle.findIndex((w) => w.worker === worker);
    if (at < 0) return;
    this.idle.splice(at, 1);
    this.scheduleRefill();
  }

  /** Terminates every idle worker. Workers running a script are ended by their runs. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.refill) clearImmediate(this.refill);
    const idle = this.idle.splice(0);
    const warming = await Promise.all(this.warming);
    await Promise.all([...idle, ...warming].map((w) => w?.worker.terminate()));
  }

  private spawn(): Promise<LuaWorker> {
    const { port1, port2 } = new MessageChannel();
    const signal = new SharedArrayBuffer(SIGNAL_SLOTS * Int32Array.BYTES_PER_ELEMENT);
    const wrapperFlag = wrapperFlagCell();
    const init: WorkerInit = { replyPort: port2, signal, wrapperFlag };
    if (this.entry.entry) init.entry = this.entry.entry;
    const worker = new Worker(this.entry.file, {
      workerData: init,
      transferList: [port2],
      resourceLimits: { maxOldGenerationSizeMb: this.heapMb },
    });
    // For the worker's whole life: a run listens while it owns the worker; at any other time an
    // error (an out-of-memory kill included) must not become an uncaught 'error' event.
    worker.on('error', (error) => {
      if (!this.owned.has(worker))
        this.logger.error(`[promptforge] a Lua worker failed outside a run: ${error.message}`);
    });
    const { threadId } = worker;
    worker.on('exit', () => {
      setterExited(wrapperFlag, threadId);
      this.onExit(worker);
    });
    worker.unref();
    port1.unref();
    return new Promise((resolve, reject) => {
      const onMessage = (message: FromWorker): void => {
        if (message.type !== 'ready') return;
        cleanup();
        resolve({ worker, replyPort: port1, signal: new Int32Array(signal), runs: 0 });
      };
      const onError = (error: Error): void => {
        cleanup();
        reject(new Error(`the Lua worker failed to start: ${error.message}`));
      };
      const onExit = (code: number): void => {
        cleanup();
        reject(new Error(`the Lua worker exited during start-up (code ${code})`));
      };
      const cleanup = (): void => {
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
      };
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
    });
  }
}
