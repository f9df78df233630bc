import { createRequire, syncBuiltinESMExports } from 'node:module';
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Worker } from 'node:worker_threads';

/**
 * Shared helpers for the benchmarks in bench/. Every `*.bench.ts` file default-exports
 * `async function run(): Promise<BenchRow[]>`; bench/run-all.ts runs them and writes
 * docs/BENCHMARKS.md.
 */

/** One result row; the shape bench/run-all.ts prints. */
export type BenchRow = {
  name: string;
  unit: 'ms' | 'us' | 'MiB';
  median: number;
  baseline?: { name: string; median: number };
  /** median / baseline.median, both measured in the same run. */
  ratio?: number;
  /** e.g. `≤ 5 ms` or `≤ 1.5×`: checked by run-all against `median` (absolute) or `ratio` (×). */
  target?: string;
  samples: number;
  /** Optional: a short "how measured" paragraph for docs/BENCHMARKS.md. */
  how?: string;
};

/** High-resolution monotonic clock in milliseconds. */
export const now = (): number => performance.now();

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** A percentile (0..100) by nearest rank, for the spread shown next to medians. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Yields to the event loop once (lets pending I/O and worker messages through). */
export const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export interface SampleOptions {
  /** Unrecorded runs first (JIT, caches, pooled workers). */
  warmup: number;
  samples: number;
  /** Awaited before every sample, untimed (e.g. wait for the pool to settle). */
  before?: () => Promise<void> | void;
}

/**
 * Warm-up, then N samples. `measure` returns one sample's value (it does its own timing, so it can
 * time exactly the part that matters, e.g. from `run.start()` to the first log event).
 */
export async function sample(measure: () => Promise<number>, options: SampleOptions): Promise<number[]> {
  const values: number[] = [];
  for (let index = 0; index < options.warmup + options.samples; index += 1) {
    await options.before?.();
    const value = await measure();
    if (index >= options.warmup) values.push(value);
  }
  return values;
}

/**
 * Interleaves the measured and baseline samples (AB, BA, AB, ...) so that drift on a shared machine
 * (other processes, thermal, GC pressure) hits both equally and the ratio stays meaningful.
 */
export async function interleave(
  measured: () => Promise<number>,
  baseline: () => Promise<number>,
  options: SampleOptions,
): Promise<{ measured: number[]; baseline: number[] }> {
  const a: number[] = [];
  const b: number[] = [];
  for (let index = 0; index < options.warmup + options.samples; index += 1) {
    const record = index >= options.warmup;
    const order = index % 2 === 0 ? (['a', 'b'] as const) : (['b', 'a'] as const);
    for (const which of order) {
      await options.before?.();
      const value = which === 'a' ? await measured() : await baseline();
      if (record) (which === 'a' ? a : b).push(value);
    }
  }
  return { measured: a, baseline: b };
}

/**
 * Like {@link interleave} for any number of variants: each round runs every variant once, the order
 * rotating from round to round.
 */
export async function interleaveMany(variants: (() => Promise<number>)[], options: SampleOptions): Promise<number[][]> {
  const results: number[][] = variants.map(() => []);
  for (let index = 0; index < options.warmup + options.samples; index += 1) {
    for (let step = 0; step < variants.length; step += 1) {
      const which = (index + step) % variants.length;
      await options.before?.();
      const value = await variants[which]!();
      if (index >= options.warmup) results[which]!.push(value);
    }
  }
  return results;
}

/** Builds a row from raw samples; the ratio is measured/baseline of the medians. */
export function row(
  name: string,
  unit: BenchRow['unit'],
  values: readonly number[],
  extra: { baseline?: { name: string; values: readonly number[] }; target?: string; how?: string } = {},
): BenchRow {
  const value = median(values);
  const result: BenchRow = { name, unit, median: value, samples: values.length };
  if (extra.baseline) {
    const base = median(extra.baseline.values);
    result.baseline = { name: extra.baseline.name, median: base };
    result.ratio = value / base;
  }
  if (extra.target) result.target = extra.target;
  if (extra.how) result.how = extra.how;
  return result;
}

let gcFunction: (() => void) | undefined;
/** Runs a full GC (without --expose-gc on the command line) so RSS readings start from a clean heap. */
export function forceGc(): void {
  if (!gcFunction) {
    setFlagsFromString('--expose-gc');
    gcFunction = runInNewContext('gc') as () => void;
  }
  gcFunction();
}

export const MiB = 1024 * 1024;

/** Absolute path of the wasmoon package entry, for baseline workers started from source text. */
export function wasmoonPath(): string {
  return createRequire(import.meta.url).resolve('wasmoon');
}

/**
 * Starts a worker from CommonJS source text (`eval: true`): baselines must not depend on tsx or on
 * any project code. `require` is available; `workerData` is passed through.
 */
export function evalWorker(source: string, workerData?: unknown): Worker {
  return new Worker(source, { eval: true, workerData });
}

/** The first message of a given type from a worker (or a predicate match). */
export function nextMessage<T = unknown>(worker: Worker, match: (message: T) => boolean = () => true): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: T): void => {
      if (!match(message)) return;
      cleanup();
      resolve(message);
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(error);
    };
    const onExit = (code: number): void => {
      cleanup();
      reject(new Error(`worker exited (code ${code}) before the expected message`));
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

/** Polls `condition` every `everyMs` until it holds; throws after `timeoutMs`. */
export async function waitUntil(
  condition: () => boolean,
  what: string,
  timeoutMs = 10_000,
  everyMs = 1,
): Promise<void> {
  const deadline = now() + timeoutMs;
  while (!condition()) {
    if (now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}

/**
 * Makes every `new Worker(...)` in this process start with `execArgv: []` unless it says otherwise,
 * and returns the undo function. Under `tsx`, workers inherit tsx's `--import` loader, which
 * registers module hooks in each worker and adds ~100 ms to every ES-module worker's start-up:
 * users (Electron, the built CLI) never pay that, so the run engine benchmarks switch it off. The
 * built worker (out/main/lua-worker.js) is plain JavaScript and needs no loader.
 */
export function workersWithoutLoaderHooks(): () => void {
  const threads = createRequire(import.meta.url)('node:worker_threads') as typeof import('node:worker_threads');
  const Original = threads.Worker;
  class PlainWorker extends Original {
    constructor(filename: string | URL, options: import('node:worker_threads').WorkerOptions = {}) {
      super(filename, { execArgv: [], ...options });
    }
  }
  threads.Worker = PlainWorker;
  syncBuiltinESMExports();
  return () => {
    threads.Worker = Original;
    syncBuiltinESMExports();
  };
}

/** Number formatting for tables: 3 significant digits, no exponent. */
export function fmt(value: number | undefined): string {
  if (value === undefined || Number.isNaN(value)) return '–';
  const abs = Math.abs(value);
  if (abs >= 100) return value.toFixed(0);
  if (abs >= 10) return value.toFixed(1);
  if (abs >= 1) return value.toFixed(2);
  return value.toFixed(3);
}
