// Benchmark of the run engine: the memory idle runs add.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ApprovalDecision, ApprovalGate } from '../main/core/approval/approval-types.js';
import { Run } from '../main/core/run/run.js';
import { WorkerPool } from '../main/core/run/worker-pool.js';
import {
  type BenchRow,
  evalWorker,
  forceGc,
  interleave,
  MiB,
  workersWithoutLoaderHooks,
  nextMessage,
  now,
  row,
  sleep,
  waitUntil,
  wasmoonPath,
} from './bench-kit.js';
import { BARE_WASMOON_WORKER, catalog, entry, models, runEngineParts, toolRunner } from './engine-kit.js';

/**
 * The run engine, memory: what idle runs on the BUILT worker (out/main/lua-worker.js, what users run)
 * add, against bare wasmoon workers, each sample in a fresh child process.
 */

const IDLE_RUNS = 20;
const MEMORY_SAMPLES = 3;

/** A gate that holds every decision until released (the call waits, as for a person). */
class HoldingGate implements ApprovalGate {
  private readonly waiting: ((decision: ApprovalDecision) => void)[] = [];
  get held(): number {
    return this.waiting.length;
  }
  decide(): Promise<ApprovalDecision> {
    return new Promise((resolve) => this.waiting.push(resolve));
  }
  releaseAll(): void {
    for (const resolve of this.waiting.splice(0))
      resolve({ kind: 'deny', reason: 'bench over', source: 'policy', at: new Date().toISOString() });
  }
}

/**
 * RSS once it has stopped moving: terminated workers of the previous sample give their memory back
 * lazily (seen: −80 MiB half a second after terminate() resolved), which would otherwise be
 * counted against the next sample.
 */
async function settledRss(): Promise<number> {
  let previous = -Infinity;
  let stableReads = 0;
  const deadline = now() + 8000;
  for (;;) {
    forceGc();
    await sleep(250);
    const rss = process.memoryUsage.rss();
    stableReads = Math.abs(rss - previous) < 2 * MiB ? stableReads + 1 : 0;
    previous = rss;
    if (stableReads >= 2 || now() > deadline) return rss;
  }
}

/** One memory sample, in this (fresh) process: `runs` or `bare`. Returns the RSS delta in MiB. */
async function memorySample(variant: string): Promise<number> {
  const before = await settledRss();
  if (variant === 'runs') {
    const pool = new WorkerPool({ entry: entry(), size: 0 });
    const gate = new HoldingGate();
    const runs: Run[] = [];
    for (let index = 0; index < IDLE_RUNS; index += 1) {
      const run = new Run({
        script: "tools.call('echo', { text = 'waiting' })",
        scriptPath: 'idle.lua',
        pool,
        catalog,
        toolRunner,
        gate,
        models,
      });
      runs.push(run);
      void run.start();
    }
    await waitUntil(() => gate.held === IDLE_RUNS, 'every run to block in tools.call', 60_000, 10);
    const after = await settledRss();
    for (const run of runs) run.stop('bench over');
    gate.releaseAll();
    await Promise.all(runs.map((run) => run.done));
    return (after - before) / MiB;
  }
  const wasmoon = wasmoonPath();
  const workers: Worker[] = [];
  for (let index = 0; index < IDLE_RUNS; index += 1) workers.push(evalWorker(BARE_WASMOON_WORKER, { wasmoon }));
  await Promise.all(workers.map((worker) => nextMessage(worker)));
  const after = await settledRss();
  await Promise.all(workers.map((worker) => worker.terminate()));
  return (after - before) / MiB;
}

const MEMORY_CHILD_FLAG = '--bench-memory-child';

/**
 * Each memory sample runs in a fresh child process (same node, same tsx flags): in one long-lived
 * process, memory freed by the previous sample's workers stays mapped and is reused, so RSS deltas
 * of later samples read near zero.
 */
function memoryInChild(variant: 'runs' | 'bare'): () => Promise<number> {
  return () =>
    new Promise((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [...process.execArgv, fileURLToPath(import.meta.url), MEMORY_CHILD_FLAG, variant],
        {
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.on('error', reject);
      child.on('exit', (code) => {
        const match = /BENCH_MEMORY=(-?[\d.]+)/.exec(output);
        if (code === 0 && match) resolve(Number(match[1]));
        else reject(new Error(`memory child (${variant}) exited with ${code}: ${output.slice(-300)}`));
      });
    });
}

if (process.argv[2] === MEMORY_CHILD_FLAG) {
  const restore = workersWithoutLoaderHooks();
  const value = await memorySample(process.argv[3] ?? 'runs');
  restore();
  process.stdout.write(`BENCH_MEMORY=${value}\n`);
  process.exit(0);
}

async function idleRunsMemory(): Promise<BenchRow[]> {
  const { measured, baseline } = await interleave(memoryInChild('runs'), memoryInChild('bare'), {
    warmup: 0,
    samples: MEMORY_SAMPLES,
  });
  return [
    row(`${IDLE_RUNS} concurrent idle runs: added memory (RSS delta)`, 'MiB', measured, {
      baseline: { name: `${IDLE_RUNS} bare workers, each with a wasmoon engine, idle`, values: baseline },
      target: '≤ 300 MiB',
      how: `In a fresh child process per sample: RSS (after forced GCs, once stable) before starting ${IDLE_RUNS} runs on a \`WorkerPool({ size: 0 })\` (one worker each) and once every run is blocked in \`tools.call('echo')\` on a gate whose \`decide()\` promise is only settled at the end; then the runs are stopped. Baseline (interleaved, also one child each): ${IDLE_RUNS} plain-JS workers that each create a wasmoon engine and idle. RSS includes every worker thread of the process.`,
    }),
  ];
}

export default async function run(): Promise<BenchRow[]> {
  return runEngineParts([['memory', idleRunsMemory]]);
}
