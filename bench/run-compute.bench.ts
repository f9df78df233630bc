// Benchmark of the run engine: Lua compute in the sandbox (fib(27)).
import { WorkerPool } from '../main/core/run/worker-pool.js';
import { type BenchRow, evalWorker, interleave, nextMessage, now, row, wasmoonPath } from './bench-kit.js';
import { entry, runEngineParts, settle, timedRun } from './engine-kit.js';

/**
 * The run engine, Lua compute: fib(27) in the sandbox of the BUILT worker (out/main/lua-worker.js,
 * what users run) against raw wasmoon in a worker, measured in the same process, interleaved.
 */

const FIB_SAMPLES = 25;

/** Raw wasmoon (default engine: openStandardLibs, no sandbox, no allocation tracing) in a worker. */
const RAW_LUA_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { LuaFactory } = require(workerData.wasmoon);
const factory = new LuaFactory();
parentPort.on('message', async (m) => {
  if (m.type !== 'run') return;
  const engine = await factory.createEngine();
  engine.global.set('log', () => parentPort.postMessage({ type: 'log' }));
  engine.doStringSync(m.script);
  engine.global.close();
  parentPort.postMessage({ type: 'done' });
});
parentPort.postMessage({ type: 'ready' });
`;

const FIB = `local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
log('s')
local r = fib(27)
log('e')`;

async function fibCompute(): Promise<BenchRow[]> {
  const size = 1;
  const pool = new WorkerPool({ entry: entry(), size });
  pool.prewarm();
  const raw = evalWorker(RAW_LUA_WORKER, { wasmoon: wasmoonPath() });
  const marks: number[] = [];
  raw.on('message', (message: { type: string }) => {
    if (message.type === 'log') marks.push(now());
  });
  await nextMessage<{ type: string }>(raw, (m) => m.type === 'ready');
  const { measured, baseline } = await interleave(
    async () => {
      const timed = await timedRun(pool, FIB);
      return timed.logs[1]! - timed.logs[0]!;
    },
    async () => {
      marks.length = 0;
      const done = nextMessage<{ type: string }>(raw, (m) => m.type === 'done');
      raw.postMessage({ type: 'run', script: FIB });
      await done;
      return marks[1]! - marks[0]!;
    },
    { warmup: 3, samples: FIB_SAMPLES, before: () => settle(pool, size) },
  );
  await raw.terminate();
  await pool.close();
  return [
    row('fib(27) in the sandbox', 'ms', measured, {
      baseline: {
        name: 'raw wasmoon in a worker (default engine, openStandardLibs, no sandbox)',
        values: baseline,
      },
      target: '≤ 1.1×',
      how: "A warm run on a pool of 1 (settled before each sample: the previous run's worker is reused with a fresh engine, nothing boots while fib runs) of a local recursive `fib(27)` bracketed by two `log` calls; the time between the two log events' arrivals (delivery cost cancels). Baseline (interleaved ABAB): the same source in a plain-JS worker with a default wasmoon engine (fresh per sample, like a run), `log` bound to a JS function posting a message, timed the same way on the main thread.",
    }),
  ];
}

export default async function run(): Promise<BenchRow[]> {
  return runEngineParts([['fib', fibCompute]]);
}
