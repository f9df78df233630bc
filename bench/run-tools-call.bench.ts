// Benchmark of the run engine: a tools.call round trip from Lua through the host and back, and where its time goes.
import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads';
import { DEFAULT_CAPS } from '../main/core/run/run-limits.js';
import { Run } from '../main/core/run/run.js';
import { SIGNAL_SLOTS, Signal, type HostReply, type ToWorker } from '../main/core/run/worker-protocol.js';
import { wrapperFlagCell } from '../main/core/run/wasm-wrappers.js';
import { WorkerPool } from '../main/core/run/worker-pool.js';
import { type BenchRow, interleave, interleaveMany, MiB, nextMessage, now, row, wasmoonPath } from './bench-kit.js';
import {
  autoGate,
  catalog,
  entry,
  models,
  runEngineParts,
  settle,
  timedRun,
  toolRunner,
  WORKER_FILE,
} from './engine-kit.js';

/**
 * The run engine, a tools.call round trip: per call from Lua through the host and back, against the
 * BUILT worker (out/main/lua-worker.js, what users run) and a raw Atomics ping-pong measured in the
 * same process, interleaved with it; then where its time goes, layer by layer.
 */

const ECHO_CALLS = 200;
const ECHO_BATCHES = 40;

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
    workerData: { signal: builtChannel.buffer, replyPort: builtChannel.port2, wrapperFlag: wrapperFlagCell() },
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
  return runEngineParts([['echo', echoRoundTrip]]);
}
