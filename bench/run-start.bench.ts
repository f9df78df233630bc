// Benchmark of the run engine: starting a run, warm and cold, on the built worker.
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { LuaFactory } from 'wasmoon';
import { WorkerPool } from '../main/core/run/worker-pool.js';
import {
  type BenchRow,
  evalWorker,
  interleave,
  interleaveMany,
  median,
  nextMessage,
  now,
  row,
  sample,
  sleep,
  wasmoonPath,
} from './bench-kit.js';
import { BARE_WASMOON_WORKER, entry, runEngineParts, settle, timedRun, workerExit } from './engine-kit.js';

/**
 * The run engine, starting a run: warm and cold run start against the BUILT worker
 * (out/main/lua-worker.js, what users run), each compared with a raw baseline measured in the same
 * process, interleaved with it.
 */

const WARM_SAMPLES = 100;
const COLD_SAMPLES = 25;

/** Echo: replies to every ping at once (½ RTT = one-way message latency). */
const ECHO_WORKER = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', (m) => parentPort.postMessage(m));
`;

async function warmStart(): Promise<BenchRow[]> {
  const size = 2; // the default pool size
  const pool = new WorkerPool({ entry: entry(), size });
  pool.prewarm();
  const factory = new LuaFactory();
  await (await factory.createEngine()).global.close();

  // Log delivery: one-way worker → main message latency, as ½ of a ping round trip.
  const echo = evalWorker(ECHO_WORKER);
  const delivery = await sample(
    async () => {
      const t0 = now();
      echo.postMessage(0);
      await nextMessage(echo);
      return (now() - t0) / 2;
    },
    { warmup: 20, samples: 200 },
  );
  await echo.terminate();
  const deliveryMedian = median(delivery);

  const { measured, baseline } = await interleave(
    async () => {
      const timed = await timedRun(pool, "log('first')");
      return timed.logs[0]! - timed.t0;
    },
    async () => {
      const t0 = now();
      const engine = await factory.createEngine();
      engine.doStringSync('');
      const elapsed = now() - t0;
      engine.global.close();
      return elapsed;
    },
    { warmup: 10, samples: WARM_SAMPLES, before: () => settle(pool, size) },
  );
  const emptyDone = await sample(
    async () => {
      const timed = await timedRun(pool, '');
      return timed.doneAt - timed.t0;
    },
    { warmup: 5, samples: WARM_SAMPLES / 2, before: () => settle(pool, size) },
  );
  await pool.close();

  const net = measured.map((value) => value - deliveryMedian);
  const baselineInfo = {
    name: 'raw wasmoon: createEngine (reused factory) + empty doString, in-thread',
    values: baseline,
  };
  return [
    row('Warm run start → first Lua instruction (gross: start() → first log event)', 'ms', measured, {
      baseline: baselineInfo,
      target: '≤ 5 ms',
      how: "Pool of 2 pre-warmed workers (the default), settled and idle before each sample. Time from `run.start()` to the arrival, in the run's event listener, of the `log` event posted by the script's first statement `log('first')`. Includes the run-start event (sha256 of the script), `pool.acquire()` (which takes an idle worker; nothing is started while a run starts), posting the script, the prelude, and the log message's trip back. The previous sample's worker is back in the pool with a fresh engine before each sample, so no worker boots during the measure. Baseline (interleaved ABAB): `factory.createEngine()` on a reused `LuaFactory` + `doStringSync('')` on the main thread.",
    }),
    row('Warm run start → first Lua instruction (net of log delivery)', 'ms', net, {
      baseline: baselineInfo,
      target: '≤ 5 ms',
      how: `The gross samples minus the median one-way worker→main message latency (${deliveryMedian.toFixed(3)} ms, next row), i.e. the time until the first Lua instruction runs rather than until the host hears about it.`,
    }),
    row('Log delivery: one-way worker → main message (½ ping RTT)', 'ms', delivery, {
      how: 'A bare worker echoing each message; half the round trip measured on the main thread, idle event loop. Subtracted from the gross warm start to get the net.',
    }),
    row('Warm empty script: start() → run.done', 'ms', emptyDone, {
      how: "The same warm pool, script `''`: the whole run of an empty script until `run.done` resolves (start message, prelude, `end` message, run-end event).",
    }),
  ];
}

/**
 * The bare worker as an ES module (data: URL) that `import`s wasmoon: the way the built worker
 * loaded it before it switched to `createRequire(import.meta.url)('wasmoon')`.
 */
function bareEsmWorkerUrl(wasmoon: string): URL {
  const source = `import { parentPort } from 'node:worker_threads';
import { LuaFactory } from ${JSON.stringify(pathToFileURL(wasmoon).href)};
const factory = new LuaFactory();
globalThis.__engine = await factory.createEngine();
parentPort.postMessage({ type: 'ready' });`;
  return new URL(`data:text/javascript,${encodeURIComponent(source)}`);
}

async function coldStart(): Promise<BenchRow[]> {
  const wasmoon = wasmoonPath();
  const esmUrl = bareEsmWorkerUrl(wasmoon);
  const bare = (make: () => Worker) => async (): Promise<number> => {
    const t0 = now();
    const worker = make();
    await nextMessage(worker);
    const elapsed = now() - t0;
    await worker.terminate();
    return elapsed;
  };
  const [measured, baseline, esm] = await interleaveMany(
    [
      async () => {
        const pool = new WorkerPool({ entry: entry(), size: 0 });
        const timed = await timedRun(pool, "log('first')");
        await workerExit(timed.run);
        await pool.close();
        return timed.logs[0]! - timed.t0;
      },
      bare(() => evalWorker(BARE_WASMOON_WORKER, { wasmoon })),
      bare(() => new Worker(esmUrl)),
    ],
    { warmup: 3, samples: COLD_SAMPLES, before: () => sleep(20) },
  );
  return [
    row('Cold run start → first Lua instruction (no pre-warmed worker)', 'ms', measured!, {
      baseline: {
        name: 'bare `new Worker` (CommonJS, `require`) → wasmoon factory + engine → posts ready',
        values: baseline!,
      },
      target: '≤ 100 ms',
      how: "A fresh `WorkerPool({ size: 0 })` per sample, so `acquire()` must start the built worker (an ES module that loads wasmoon with `createRequire(import.meta.url)('wasmoon')`; wasmoon compile, engine, libraries) before the script is posted; when the run ends the worker is terminated (the pool keeps none). Time from `run.start()` to the arrival of the first statement's `log` event. Baseline (interleaved, rotating order): a worker from plain CommonJS source that `require`s wasmoon, creates a factory and an engine and posts `ready`, timed from `new Worker` to that message. Workers start without tsx's loader hooks (see bench-kit `workersWithoutLoaderHooks`), as in the app.",
    }),
    row('Cold start breakdown: bare ES-module worker importing wasmoon → engine → ready', 'ms', esm!, {
      baseline: { name: 'the same as CommonJS (`require`)', values: baseline! },
      how: `Why the built worker loads wasmoon through \`createRequire\` rather than \`import\`: the bare baseline written as an ES module (a data: URL) that \`import\`s wasmoon, interleaved with the two rows above. Loading wasmoon's large UMD/CommonJS bundle through the ESM loader (CommonJS export detection over the whole file) costs ${(median(esm!) - median(baseline!)).toFixed(1)} ms more per worker start than \`require\` in this run.`,
    }),
  ];
}

export default async function run(): Promise<BenchRow[]> {
  return runEngineParts([
    ['warm', warmStart],
    ['cold', coldStart],
  ]);
}
