import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads';
import { LuaFactory } from 'wasmoon';
import type { RunEvent } from '../common/run-events.js';
import { ApprovalGateImpl } from '../main/core/approval/approval-gate.js';
import type { ApprovalDecision, ApprovalGate } from '../main/core/approval/approval-types.js';
import { PolicyApprover } from '../main/core/approval/policy-approver.js';
import { createBuiltinCatalog } from '../main/core/catalog/tool-catalog.js';
import type { ModelResolver } from '../main/core/run/model-driver.js';
import { DEFAULT_CAPS } from '../main/core/run/run-limits.js';
import { Run, type RunResult } from '../main/core/run/run.js';
import { SIGNAL_SLOTS, Signal, type HostReply, type ToWorker } from '../main/core/run/worker-protocol.js';
import { WorkerPool, type WorkerEntry } from '../main/core/run/worker-pool.js';
import { createToolRunner } from '../main/core/tools/tool-runner.js';
import {
  type BenchRow,
  evalWorker,
  forceGc,
  interleave,
  interleaveMany,
  MiB,
  median,
  workersWithoutLoaderHooks,
  nextMessage,
  now,
  row,
  sample,
  sleep,
  waitUntil,
  wasmoonPath,
} from './bench-kit.js';

/**
 * The run engine: warm and cold run start, the tools.call round trip, Lua compute in the sandbox
 * and the memory of idle runs. Every measure is taken against the BUILT worker
 * (out/main/lua-worker.js, what users run) and compared with a raw baseline measured in the same
 * process, interleaved with it.
 */

export const WORKER_FILE = path.resolve('out/main/lua-worker.js');

const WARM_SAMPLES = 100;
const COLD_SAMPLES = 25;
const ECHO_CALLS = 200;
const ECHO_BATCHES = 40;
const FIB_SAMPLES = 25;
const IDLE_RUNS = 20;
const MEMORY_SAMPLES = 3;

// ------------------------------------------------------------------------------------------------
// Ports: the real builtin catalog, tool runner and approval gate (echo is trusted, approval auto).
// ------------------------------------------------------------------------------------------------

const catalog = createBuiltinCatalog();
const toolRunner = createToolRunner({ workspaceRoot: undefined, secrets: { get: async () => undefined } });
const autoGate = new ApprovalGateImpl({ approver: new PolicyApprover('auto'), catalog });
const models: ModelResolver = {
  resolve: async () => {
    throw new Error('the benchmarks use no model');
  },
};

function entry(): WorkerEntry {
  return { file: WORKER_FILE };
}

interface TimedRun {
  /** performance.now() just before run.start(). */
  t0: number;
  /** Arrival time (main thread, in the run's event listener) of every log event. */
  logs: number[];
  /** When run.done resolved. */
  doneAt: number;
  result: RunResult;
  run: Run;
}

async function timedRun(pool: WorkerPool, script: string, gate: ApprovalGate = autoGate): Promise<TimedRun> {
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
async function settle(pool: WorkerPool, size: number): Promise<void> {
  const state = pool as unknown as PoolState;
  await waitUntil(
    () => state.idle.length >= size && state.warming.size === 0 && state.returning.size === 0 && state.busy === 0,
    'the pool to settle',
  );
  // `ready` is posted as soon as the next engine exists; give the worker's thread a moment after it.
  await sleep(25);
}

/** The worker a finished run used (private field), to wait for its exit between cold samples. */
async function workerExit(run: Run): Promise<void> {
  const worker = (run as unknown as { link?: { worker: { worker: Worker } } }).link?.worker.worker;
  if (!worker || worker.threadId === -1) return;
  await Promise.race([new Promise((resolve) => worker.once('exit', resolve)), sleep(2000)]);
}

// ------------------------------------------------------------------------------------------------
// Baseline workers (plain CommonJS source, no project code, no tsx-compiled modules)
// ------------------------------------------------------------------------------------------------

/** new Worker → wasmoon factory + engine created → posts ready. */
const BARE_WASMOON_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { LuaFactory } = require(workerData.wasmoon);
(async () => {
  const factory = new LuaFactory();
  const engine = await factory.createEngine();
  globalThis.__engine = engine;
  parentPort.postMessage({ type: 'ready' });
})();
`;

/** Echo: replies to every ping at once (½ RTT = one-way message latency). */
const ECHO_WORKER = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', (m) => parentPort.postMessage(m));
`;

/**
 * The host-call mechanism of lua-worker.ts without Lua: post a call to main, Atomics.wait on the
 * signal, read the reply with receiveMessageOnPort. Batches are bracketed by 'start'/'end' posts
 * that the main thread timestamps, exactly as log events bracket the Lua loop.
 */
const PING_WORKER = `
const { parentPort, receiveMessageOnPort, workerData } = require('node:worker_threads');
const signal = new Int32Array(workerData.signal);
const replyPort = workerData.replyPort;
function hostCall(method, payload) {
  const expected = Atomics.load(signal, 0);
  parentPort.postMessage({ type: 'call', method, payload });
  for (;;) {
    Atomics.wait(signal, 0, expected);
    const reply = receiveMessageOnPort(replyPort);
    if (reply) return reply.message;
  }
}
parentPort.on('message', (m) => {
  if (m.type !== 'batch') return;
  parentPort.postMessage({ type: 'start' });
  for (let i = 0; i < m.calls; i++) hostCall('tools.call', '{"alias":"echo","args":{"text":"x"}}');
  parentPort.postMessage({ type: 'end' });
});
parentPort.postMessage({ type: 'ready' });
`;

const PING_NAME = 'raw Atomics.wait ping-pong worker ↔ main (same mechanism, no Lua)';

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

// ------------------------------------------------------------------------------------------------
// Measures
// ------------------------------------------------------------------------------------------------

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

const ECHO_SCRIPT = `log('go')\nfor i = 1, ${ECHO_CALLS} do tools.call('echo', { text = 'x' }) end\nlog('done')`;

/** The raw ping worker (PING_WORKER) with the main thread answering at once; `batch()` returns µs per call. */
async function startPing(): Promise<{ batch: () => Promise<number>; close: () => Promise<void> }> {
  const { port1, port2 } = new MessageChannel();
  const signalBuffer = new SharedArrayBuffer(4);
  const ping = new Worker(PING_WORKER, {
    eval: true,
    workerData: { signal: signalBuffer, replyPort: port2 },
    transferList: [port2],
  });
  const marks: number[] = [];
  instantHost(ping, port1, new Int32Array(signalBuffer), marks, ['start', 'end']);
  await nextMessage<{ type: string }>(ping, (m) => m.type === 'ready');
  return {
    batch: async () => {
      marks.length = 0;
      const ended = nextMessage<{ type: string }>(ping, (m) => m.type === 'end');
      ping.postMessage({ type: 'batch', calls: ECHO_CALLS });
      await ended;
      return ((marks[1]! - marks[0]!) / ECHO_CALLS) * 1000;
    },
    close: async () => {
      await ping.terminate();
      port1.close();
    },
  };
}

async function echoRoundTrip(): Promise<BenchRow[]> {
  const size = 1;
  const pool = new WorkerPool({ entry: entry(), size });
  pool.prewarm();
  const ping = await startPing();
  const { measured, baseline } = await interleave(
    async () => {
      const timed = await timedRun(pool, ECHO_SCRIPT);
      return ((timed.logs[1]! - timed.logs[0]!) / ECHO_CALLS) * 1000;
    },
    ping.batch,
    { warmup: 3, samples: ECHO_BATCHES, before: () => settle(pool, size) },
  );
  await pool.close();
  const breakdown = await echoBreakdown(ping.batch);
  await ping.close();
  return [
    row(`tools.call('echo') round trip, per call (auto-approved)`, 'us', measured, {
      baseline: { name: PING_NAME, values: baseline },
      target: '≤ 1.5×',
      how: `A warm run (pool of 1, settled before each sample: the previous run's worker is back with a fresh engine, nothing boots during the measure) whose script is \`log('go')\`, ${ECHO_CALLS} × \`tools.call('echo', { text = 'x' })\`, \`log('done')\`; per call = (arrival of the second log − arrival of the first) / ${ECHO_CALLS}. One sample per run, ${ECHO_BATCHES} runs. Real builtin catalog (ajv validation), tool runner and \`ApprovalGateImpl\` + \`PolicyApprover('auto')\`, no transcript. Baseline (interleaved, same count): a plain-JS worker that posts a call, blocks in \`Atomics.wait\`, reads the reply with \`receiveMessageOnPort\`; the main thread answers synchronously in its message handler.`,
    }),
    ...breakdown,
  ];
}

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

// ------------------------------------------------------------------------------------------------
// Where a tools.call round trip spends its time (profiling rows)
// ------------------------------------------------------------------------------------------------

/**
 * The mechanism of lua-worker.ts from Lua, without the prelude: an engine made exactly as the
 * worker makes it (same options, libraries and memory limit), a `host_call` global doing the same
 * Atomics round trip and returning the reply as two Lua values through `LuaMultiReturn` (as
 * `__pf_host` does), called in a Lua loop with a literal JSON payload (no tools.call wrapper, no
 * JSON encoding in Lua).
 */
const LUA_PING_WORKER = `
const { parentPort, receiveMessageOnPort, workerData } = require('node:worker_threads');
const { LuaFactory, LuaLibraries, LuaMultiReturn } = require(workerData.wasmoon);
const signal = new Int32Array(workerData.signal);
const replyPort = workerData.replyPort;
const factory = new LuaFactory();
function hostCall(method, payload) {
  const expected = Atomics.load(signal, 0);
  parentPort.postMessage({ type: 'call', method, payload });
  for (;;) {
    Atomics.wait(signal, 0, expected);
    const reply = receiveMessageOnPort(replyPort);
    if (reply) return reply.message;
  }
}
parentPort.on('message', async (m) => {
  if (m.type !== 'batch') return;
  const engine = await factory.createEngine({ openStandardLibs: false, enableProxy: false, injectObjects: false, traceAllocations: true });
  for (const lib of [LuaLibraries.Base, LuaLibraries.Coroutine, LuaLibraries.Table, LuaLibraries.String, LuaLibraries.Math, LuaLibraries.UTF8, LuaLibraries.Debug]) engine.global.loadLibrary(lib);
  engine.global.set('host_call', (method, payload) => {
    let reply;
    try {
      reply = hostCall(method, payload);
    } catch (error) {
      reply = { ok: false, error: 'host call failed: ' + String(error) };
    }
    return LuaMultiReturn.from(reply.ok ? [true, reply.value] : [false, reply.error]);
  });
  engine.global.set('mark', () => parentPort.postMessage({ type: m.mark }));
  engine.global.setMemoryMax(256 * 1024 * 1024);
  engine.doStringSync("mark() for i = 1, " + m.calls + " do local ok, v = host_call('tools.call', '{\\"alias\\":\\"echo\\",\\"args\\":{\\"text\\":\\"x\\"}}') if not ok then error(v) end end mark()");
  engine.global.close();
  parentPort.postMessage({ type: 'done' });
});
parentPort.postMessage({ type: 'ready' });
`;

/** A worker whose host calls are answered synchronously on the main thread (the raw mechanism). */
function instantHost(
  worker: Worker,
  port: MessagePort,
  signal: Int32Array,
  marks: number[],
  markTypes: string[],
): void {
  let replies = 0;
  worker.on('message', (message: { type: string }) => {
    if (message.type === 'call') {
      port.postMessage({ ok: true, value: 'x' });
      replies += 1;
      Atomics.store(signal, 0, replies);
      Atomics.notify(signal, 0);
    } else if (markTypes.includes(message.type)) {
      marks.push(now());
    }
  });
}

/** Like {@link instantHost}, for the built Lua worker: JSON replies, and each log acknowledged. */
function builtWorkerHost(worker: Worker, port: MessagePort, signal: Int32Array, marks: number[]): void {
  worker.on('message', (message: { type: string }) => {
    if (message.type === 'call') {
      const reply: HostReply = { ok: true, json: '"x"' };
      port.postMessage(reply);
      Atomics.add(signal, Signal.Reply, 1);
      Atomics.notify(signal, Signal.Reply);
    } else if (message.type === 'log') {
      marks.push(now());
      Atomics.add(signal, Signal.LogAck, 1);
      Atomics.notify(signal, Signal.LogAck);
    }
  });
}

function channel(slots = 1): { port1: MessagePort; port2: MessagePort; buffer: SharedArrayBuffer; signal: Int32Array } {
  const { port1, port2 } = new MessageChannel();
  const buffer = new SharedArrayBuffer(slots * Int32Array.BYTES_PER_ELEMENT);
  return { port1, port2, buffer, signal: new Int32Array(buffer) };
}

/** Mean per-iteration time (µs) of an async host-side step, run in this thread. */
async function perCall(iterations: number, step: () => unknown): Promise<number> {
  const t0 = now();
  for (let index = 0; index < iterations; index += 1) await step();
  return ((now() - t0) / iterations) * 1000;
}

/**
 * Where the time of one tools.call goes, layer by layer: worker-side layers with the host answering
 * instantly (as the raw baseline does), then the host-side steps timed in-thread.
 */
async function echoBreakdown(pingBatch: () => Promise<number>): Promise<BenchRow[]> {
  const wasmoon = wasmoonPath();
  // Layer 1: Lua → JS through wasmoon, worker engine options, no prelude.
  const luaChannel = channel();
  const luaPing = new Worker(LUA_PING_WORKER, {
    eval: true,
    workerData: { wasmoon, signal: luaChannel.buffer, replyPort: luaChannel.port2 },
    transferList: [luaChannel.port2],
  });
  const luaMarks: number[] = [];
  instantHost(luaPing, luaChannel.port1, luaChannel.signal, luaMarks, ['m']);
  await nextMessage<{ type: string }>(luaPing, (m) => m.type === 'ready');

  // Layer 2: the built worker and its prelude (tools.call wrapper, JSON encoding in Lua), host instant,
  // speaking the worker's own protocol (JSON replies, log acknowledgements).
  const builtChannel = channel(SIGNAL_SLOTS);
  const built = new Worker(WORKER_FILE, {
    workerData: { signal: builtChannel.buffer, replyPort: builtChannel.port2 },
    transferList: [builtChannel.port2],
  });
  const builtMarks: number[] = [];
  builtWorkerHost(built, builtChannel.port1, builtChannel.signal, builtMarks);
  await nextMessage<{ type: string }>(built, (m) => m.type === 'ready');

  // The raw ping runs again in this pass, interleaved with both layers, so their ratios compare
  // samples taken under the same load.
  const [ping, luaLayer, builtLayer] = await interleaveMany(
    [
      pingBatch,
      async () => {
        luaMarks.length = 0;
        const done = nextMessage<{ type: string }>(luaPing, (m) => m.type === 'done');
        luaPing.postMessage({ type: 'batch', calls: ECHO_CALLS, mark: 'm' });
        await done;
        return ((luaMarks[1]! - luaMarks[0]!) / ECHO_CALLS) * 1000;
      },
      async () => {
        builtMarks.length = 0;
        const ready = nextMessage<{ type: string }>(built, (m) => m.type === 'ready');
        const start: ToWorker = {
          type: 'start',
          runId: 'bench',
          script: ECHO_SCRIPT,
          chunkName: 'bench.lua',
          nonce: '0'.repeat(32),
          memoryBytes: 256 * MiB,
          caps: {
            logLineBytes: DEFAULT_CAPS.logLineBytes,
            logsInFlight: DEFAULT_CAPS.logsInFlight,
            untrustedBytes: DEFAULT_CAPS.untrustedBytes,
            untrustedTexts: DEFAULT_CAPS.untrustedTexts,
          },
        };
        built.postMessage(start);
        await ready;
        return ((builtMarks[1]! - builtMarks[0]!) / ECHO_CALLS) * 1000;
      },
    ],
    { warmup: 2, samples: 20 },
  );
  await luaPing.terminate();
  await built.terminate();
  luaChannel.port1.close();
  builtChannel.port1.close();
  const pingBaseline = { name: `${PING_NAME}, this pass`, values: ping! };

  // Host side, in-thread: each step of Run.answer for one echo call.
  const payload = '{"alias":"echo","args":{"text":"x"}}';
  const spec = catalog.get('echo')!;
  const signal = new AbortController().signal;
  const request = {
    runId: 'bench',
    callId: 'call-1',
    alias: 'echo',
    description: spec.description,
    arguments: { text: 'x' },
    policy: spec.approval,
    taint: [],
  };
  const hostRun = new Run({
    script: '',
    scriptPath: 'bench.lua',
    pool: new WorkerPool({ entry: entry(), size: 0 }),
    catalog,
    toolRunner,
    gate: autoGate,
    models,
    onEvent: () => undefined,
  });
  const internals = hostRun as unknown as {
    answer(method: string, payload: string): Promise<void>;
    emit(body: unknown): void;
  };
  const N = 20_000;
  const steps: [string, () => unknown][] = [
    ['JSON.parse(payload)', () => JSON.parse(payload)],
    ['catalog.validateArguments (ajv)', () => catalog.validateArguments('echo', { text: 'x' })],
    ['approval gate decide (auto)', () => autoGate.decide(request, signal)],
    ['tool runner: echo builtin', () => toolRunner.run(spec, { text: 'x' }, signal)],
    [
      '3 × Run.emit (dispatch, decision, output events)',
      () => {
        internals.emit({ type: 'tool-dispatch', callId: 'call-1', alias: 'echo', arguments: { text: 'x' }, count: 1 });
        internals.emit({
          type: 'approval-decision',
          callId: 'call-1',
          alias: 'echo',
          proposedArguments: { text: 'x' },
          decision: { kind: 'approve', source: 'policy', at: new Date().toISOString() },
        });
        internals.emit({
          type: 'tool-output',
          callId: 'call-1',
          alias: 'echo',
          trust: 'trusted',
          output: 'x',
          structured: false,
          durationMs: 0.01,
        });
      },
    ],
    [
      'whole Run.answer (parse + dispatcher + gate + runner + events), no reply post',
      () => internals.answer('tools.call', payload),
    ],
  ];
  const hostRows: BenchRow[] = [];
  for (const [name, step] of steps) {
    await perCall(2000, step);
    const values: number[] = [];
    for (let repeat = 0; repeat < 5; repeat += 1) values.push(await perCall(N, step));
    hostRows.push(
      row(`tools.call breakdown, host side: ${name}`, 'us', values, {
        how: `In-thread loop of ${N} awaited calls of this step alone (5 repeats, median of the per-call means). The host-side steps run between the worker's \`call\` message and the reply post.`,
      }),
    );
  }

  return [
    row(
      'tools.call breakdown: Lua → host_call via wasmoon, worker engine options, no prelude (host instant)',
      'us',
      luaLayer!,
      {
        baseline: pingBaseline,
        how: 'A plain-JS worker building its engine exactly as lua-worker.ts does (openStandardLibs false + the same libraries, enableProxy false, traceAllocations true, the same memory limit) and a `host_call` global doing the same Atomics round trip and returning the reply as two Lua values with `LuaMultiReturn.from([true, value])`, as `__pf_host` does; a Lua loop `local ok, v = host_call(...)` calls it with a literal JSON payload. The main thread answers synchronously, like the raw baseline, which is run again in this pass, interleaved (rotating order) with this row and the next. Ratio to the raw ping = the cost of crossing wasmoon (calling a JS function from Lua and pushing its results back).',
      },
    ),
    row('tools.call breakdown: built worker + prelude tools.call (host instant)', 'us', builtLayer!, {
      baseline: pingBaseline,
      how: "out/main/lua-worker.js driven directly (no Run, no pool): the same echo script as the round-trip row; every `call` answered synchronously on the main thread with `{ ok: true, json: '\"x\"' }` and every log acknowledged, as the worker protocol asks. Difference to the previous row = the prelude's tools.call wrapper (argument checks, JSON encoding in Lua); difference to the full round trip = the host side (Run.answer, dispatcher, gate, runner, events).",
    }),
    ...hostRows,
  ];
}

/** Why the echo round trip misses its target, from this run's rows, for docs/BENCHMARKS.md (run-all calls it). */
export function notes(rows: BenchRow[]): string {
  const find = (prefix: string): BenchRow | undefined => rows.find((r) => r.name.startsWith(prefix));
  const full = find("tools.call('echo') round trip");
  const lua = find('tools.call breakdown: Lua → host_call');
  const built = find('tools.call breakdown: built worker');
  const hostPrefix = 'tools.call breakdown, host side: ';
  const hostSteps = rows.filter((r) => r.name.startsWith(hostPrefix));
  if (!full?.baseline || full.ratio === undefined || !lua?.baseline || lua.ratio === undefined || !built) return '';
  const ping = lua.baseline.median;
  const us = (value: number): string => `${value.toFixed(1)} µs`;
  const times = (value: number): string => `${value.toFixed(2)}×`;
  const crossing = lua.ratio;
  // Since replies cross into Lua as bounded JSON text, the prelude also decodes each reply.
  const preludeAdded = built.median - lua.median;
  const preludeText =
    preludeAdded > 0.2 * lua.median
      ? ` The prelude adds ${us(preludeAdded)} on top in this run: it encodes the arguments as JSON and decodes every reply from bounded JSON text with its own stack (the guard against wasmoon's unchecked recursive push of deep tables); passing flat string replies directly would recover part of it.`
      : '';
  const verdict =
    crossing > 1.5
      ? `Crossing wasmoon alone — a JS function called from Lua, its two results pushed back — already costs ${times(crossing)} the raw ping in this run (${us(lua.median)} against ${us(ping)}), more than the whole ≤ 1.5× budget before the prelude or the host do anything. Meeting the target would need changes in wasmoon's call path (how it marshals the arguments of a JS function called from Lua and pushes its return values back).${preludeText}`
      : `In this run crossing wasmoon alone costs ${times(crossing)} the raw ping (${us(lua.median)} against ${us(ping)}), within 1.5× by itself; the layers above it are what push the round trip to ${times(full.ratio)}.`;
  const stepText = hostSteps.map((step) => `${step.name.slice(hostPrefix.length)} ${us(step.median)}`).join('; ');
  return [
    '### Why the tools.call round trip misses ≤ 1.5× (this run)',
    '',
    `The round trip took ${us(full.median)} per call against ${us(full.baseline.median)} for the raw ping measured with it: ${times(full.ratio)}. The layers below were measured in a second pass (the worker-side layers interleaved with the raw ping, the host answering at once); the last layer is the full round trip from the first pass, so its "added" column is approximate.`,
    '',
    '| Layer | Per call | × raw ping | Added by this layer |',
    '| --- | ---: | ---: | ---: |',
    `| raw Atomics ping-pong, plain JS (baseline, second pass) | ${us(ping)} | 1.00× | – |`,
    `| + Lua → JS through wasmoon with the same Atomics round trip (worker's engine options; reply returned as two Lua values via \`LuaMultiReturn\`) | ${us(lua.median)} | ${times(crossing)} | ${us(lua.median - ping)} |`,
    `| + the prelude wrapper: \`tools.call\` (argument checks, JSON encoding in Lua, \`ok, value\` check) | ${us(built.median)} | ${built.ratio === undefined ? '–' : times(built.ratio)} | ${us(built.median - lua.median)} |`,
    `| + the host side in \`Run\` (the full round trip: Run.answer, dispatcher, approval gate, ajv, runner, 3 events) | ${us(full.median)} | ${times(full.ratio)} | ${us(full.median - built.median)} |`,
    '',
    verdict,
    '',
    `What the host side costs, each step timed hot in a loop on the main thread (rows above): ${stepText || 'not measured'}. The CPU budget costs two \`performance.now()\` reads per call (the run keeps one CPU timer for the whole run, not one per call), and no worker boots during a warm run: the pool takes an idle worker and the previous run's worker comes back to it.`,
  ].join('\n');
}

export default async function run(): Promise<BenchRow[]> {
  if (!existsSync(WORKER_FILE)) {
    throw new Error(`${WORKER_FILE} is missing: run \`npm run build\` (npm run bench does) first`);
  }
  // BENCH_RUN_ENGINE=warm,echo runs a subset (while working on one measure).
  const only = process.env['BENCH_RUN_ENGINE']?.split(',');
  const parts: [string, () => Promise<BenchRow[]>][] = [
    ['warm', warmStart],
    ['cold', coldStart],
    ['echo', echoRoundTrip],
    ['fib', fibCompute],
    ['memory', idleRunsMemory],
  ];
  const rows: BenchRow[] = [];
  const restoreWorkers = workersWithoutLoaderHooks();
  try {
    for (const [name, measure] of parts) if (!only || only.includes(name)) rows.push(...(await measure()));
  } finally {
    restoreWorkers();
  }
  return rows;
}
