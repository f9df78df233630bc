// The run engine benches' shared parts: the built worker, the real builtin catalog, tool runner and auto-approving gate, timed runs on a pool, and the bare wasmoon worker baseline.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { RunEvent } from '../common/run-events.js';
import { ApprovalGateImpl } from '../main/core/approval/approval-gate.js';
import type { ApprovalGate } from '../main/core/approval/approval-types.js';
import { PolicyApprover } from '../main/core/approval/policy-approver.js';
import { createBuiltinCatalog } from '../main/core/catalog/tool-catalog.js';
import type { ModelResolver } from '../main/core/run/model-driver.js';
import { Run, type RunResult } from '../main/core/run/run.js';
import { WorkerPool, type WorkerEntry } from '../main/core/run/worker-pool.js';
import { createToolRunner } from '../main/core/tools/tool-runner.js';
import { type BenchRow, workersWithoutLoaderHooks, now, sleep, waitUntil } from './bench-kit.js';

/** The built worker (what users run): every run engine measure is taken against it. */
export const WORKER_FILE = path.resolve('out/main/lua-worker.js');

// Ports: the real builtin catalog, tool runner and approval gate (echo is trusted, approval auto).

export const catalog = createBuiltinCatalog();
export const toolRunner = createToolRunner({ workspaceRoot: undefined, secrets: { get: async () => undefined } });
export const autoGate = new ApprovalGateImpl({ approver: new PolicyApprover('auto'), catalog });
export const models: ModelResolver = {
  resolve: async () => {
    throw new Error('the benchmarks use no model');
  },
};

export function entry(): WorkerEntry {
  return { file: WORKER_FILE };
}

export interface TimedRun {
  /** performance.now() just before run.start(). */
  t0: number;
  /** Arrival time (main thread, in the run's event listener) of every log event. */
  logs: number[];
  /** When run.done resolved. */
  doneAt: number;
  result: RunResult;
  run: Run;
}

export async function timedRun(pool: WorkerPool, script: string, gate: ApprovalGate = autoGate): Promise<TimedRun> {
  const logs: number[] = [];
  const run = new Run({
    script,
    scriptPath: 'bench.lua',
    pool,
    catalog,
    toolRunner,
    gate,
    models,
    onEvent: (event: RunEvent) => {
      if (event.type === 'log') logs.push(now());
    },
  });
  const t0 = now();
  await run.start();
  const result = await run.done;
  const doneAt = now();
  if (result.status !== 'ok') throw new Error(`bench script failed: ${result.error?.kind}: ${result.error?.message}`);
  return { t0, logs, doneAt, result, run };
}

/** Pool internals, read (never written) to know when the pool is quiet between samples. */
interface PoolState {
  idle: unknown[];
  warming: Set<unknown>;
  returning: Set<unknown>;
  busy: number;
}

/**
 * Waits until the pool holds `size` idle workers and nothing is starting, returning (preparing its
 * next engine) or running, then lets the worker that just came back finish its own clean-up.
 */
export async function settle(pool: WorkerPool, size: number): Promise<void> {
  const state = pool as unknown as PoolState;
  await waitUntil(
    () => state.idle.length >= size && state.warming.size === 0 && state.returning.size === 0 && state.busy === 0,
    'the pool to settle',
  );
  // `ready` is posted as soon as the next engine exists; give the worker's thread a moment after it.
  await sleep(25);
}

/** The worker a finished run used (private field), to wait for its exit between cold samples. */
export async function workerExit(run: Run): Promise<void> {
  const worker = (run as unknown as { link?: { worker: { worker: Worker } } }).link?.worker.worker;
  if (!worker || worker.threadId === -1) return;
  await Promise.race([new Promise((resolve) => worker.once('exit', resolve)), sleep(2000)]);
}

/** new Worker → wasmoon factory + engine created → posts ready. */
export const BARE_WASMOON_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { LuaFactory } = require(workerData.wasmoon);
(async () => {
  const factory = new LuaFactory();
  const engine = await factory.createEngine();
  globalThis.__engine = engine;
  parentPort.postMessage({ type: 'ready' });
})();
`;

/**
 * Runs the measures of one run engine bench file with the built worker, workers started without
 * tsx's loader hooks. BENCH_RUN_ENGINE=warm,echo runs a subset (while working on one measure).
 */
export async function runEngineParts(parts: [string, () => Promise<BenchRow[]>][]): Promise<BenchRow[]> {
  if (!existsSync(WORKER_FILE)) {
    throw new Error(`${WORKER_FILE} is missing: run \`npm run build\` (npm run bench does) first`);
  }
  const only = process.env['BENCH_RUN_ENGINE']?.split(',');
  const rows: BenchRow[] = [];
  const restoreWorkers = workersWithoutLoaderHooks();
  try {
    for (const [name, measure] of parts) if (!only || only.includes(name)) rows.push(...(await measure()));
  } finally {
    restoreWorkers();
  }
  return rows;
}
