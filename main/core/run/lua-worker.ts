import { createRequire } from 'node:module';
import { parentPort, receiveMessageOnPort, threadId, workerData } from 'node:worker_threads';
import type { LuaEngine } from 'wasmoon';
import { wrapUntrusted } from '../../../common/envelope.js';
import { LUA_PRELUDE } from './lua-prelude.js';
import {
  Signal,
  type FromWorker,
  type HostMethod,
  type HostReply,
  type ToWorker,
  type WorkerCaps,
  type WorkerInit,
} from './worker-protocol.js';
import { errorMessage } from '../../../common/error-message.js';
import { keepWasmWrappersGeneric } from './wasm-wrappers.js';

// One Lua VM per run, in this worker. The worker keeps one wasmoon factory (the compiled module)
// and prepares a fresh engine before each run, so a pooled worker starts a script in well under a
// millisecond. A worker whose run was stopped is terminated by the main side, never reused.
//
// Strings cross between JS and Lua only as JSON text (see worker-protocol.ts): wasmoon converts
// strings as NUL-terminated C strings and pushes JS objects recursively without stack checks.

// wasmoon through require: loading its CommonJS build as an ES module costs a worker 30-40 ms of
// start-up (measured in bench/run-start.bench.ts).
const { LuaFactory, LuaLibraries, LuaMultiReturn } = createRequire(import.meta.url)(
  'wasmoon',
) as typeof import('wasmoon');

const init = workerData as WorkerInit;
const port = parentPort!;
const signal = new Int32Array(init.signal);
const OPENED_LIBRARIES = [
  LuaLibraries.Base,
  LuaLibraries.Coroutine,
  LuaLibraries.Table,
  LuaLibraries.String,
  LuaLibraries.Math,
  // Opened only so the prelude can keep debug.getinfo for error positions; the prelude removes the
  // global before the script runs.
  LuaLibraries.Debug,
];

function post(message: FromWorker): void {
  port.postMessage(message);
}

// Before this worker compiles or instantiates any wasm: the first Lua worker of the process sets
// V8's wasm-wrapper flag, the others wait until it is set (see wasm-wrappers.ts).
keepWasmWrappersGeneric(init.wrapperFlag, threadId);
const factory = new LuaFactory();
let nonce = '';
let caps: WorkerCaps = { logLineBytes: 0, logsInFlight: 1, untrustedBytes: 0, untrustedTexts: 0 };
/** Texts `untrusted()` has recorded in this run. */
let untrustedTexts = 0;
/** How the script ended, set by `__pf_done`. */
type Outcome = { status: 'ok' | 'syntax' | 'runtime'; message: string };
let outcome: Outcome | undefined;
const AFTER_END = JSON.stringify('the run has ended: a finalizer cannot call the host');

function hostCall(method: string, payload: string): HostReply {
  // Read the counter before posting: the main side adds to it after posting the reply, so the
  // wait below returns at once if the reply is already there, and sleeps until it is otherwise.
  const expected = Atomics.load(signal, Signal.Reply);
  post({ type: 'call', method: method as HostMethod, payload });
  for (;;) {
    Atomics.wait(signal, Signal.Reply, expected);
    const reply = receiveMessageOnPort(init.replyPort);
    if (reply) return reply.message as HostReply;
  }
}

/**
 * Posts a log line (already cut by the prelude; `length` is its full length in bytes), blocking
 * while too many earlier ones wait for the main side: the back-pressure that keeps a log flood
 * from queueing up in the host.
 */
function postLog(text: string, length: number): void {
  // Both counters live as long as the worker, across runs: every line posted is acknowledged.
  const posted = Atomics.add(signal, Signal.LogPosted, 1) + 1;
  post({ type: 'log', text, length });
  for (;;) {
    const acked = Atomics.load(signal, Signal.LogAck);
    if (posted - acked <= caps.logsInFlight) return;
    Atomics.wait(signal, Signal.LogAck, acked);
  }
}

/**
 * Opens utf8 itself: wasmoon's loadLibrary(UTF8) calls luaopen_string, which makes `utf8` a second
 * copy of the string library (with `dump`) and repoints the string metatable at it.
 */
function openUtf8(engine: LuaEngine): void {
  const { lua, address } = engine.global;
  lua.luaopen_utf8(address);
  lua.lua_setglobal(address, 'utf8');
}

async function prepareEngine(): Promise<LuaEngine> {
  // openStandardLibs: false, so io/os/package/debug never exist; enableProxy: false, because JS
  // proxies let Lua write to Object.prototype.
  const engine = await factory.createEngine({
    openStandardLibs: false,
    enableProxy: false,
    injectObjects: false,
    traceAllocations: true,
  });
  for (const library of OPENED_LIBRARIES) engine.global.loadLibrary(library);
  openUtf8(engine);
  // Returns two Lua values, (true, json) or (false, json message): cheaper than a table per call.
  // After the script's end (finalizers run while the VM closes) the host is refused at once.
  engine.global.set('__pf_host', (method: string, payload: string) => {
    if (outcome) return LuaMultiReturn.from([false, AFTER_END]);
    let reply: HostReply;
    try {
      reply = hostCall(method, payload);
    } catch (error) {
      reply = { ok: false, json: JSON.stringify(`host call failed: ${String(error)}`) };
    }
    return LuaMultiReturn.from([reply.ok, reply.json]);
  });
  engine.global.set('__pf_log', (json: string, length: number) => {
    if (!outcome) postLog(JSON.parse(json) as string, length);
  });
  // Returns (true, json) or (false, json message), like __pf_host.
  engine.global.set('__pf_untrusted', (json: string) => {
    // The host records the text for the taint rule first (a blocking call), then the text comes
    // back in the run's envelope. Past the run's cap it is refused here, with no host call, so a
    // loop of refused calls costs the host nothing. After the script's end nothing can be
    // dispatched any more, so nothing is recorded.
    if (!outcome) {
      if (untrustedTexts >= caps.untrustedTexts)
        return LuaMultiReturn.from([
          false,
          JSON.stringify(
            `untrusted: this run has already wrapped ${caps.untrustedTexts} texts, the most one run may (each is remembered for the taint rule); wrap fewer, larger pieces`,
          ),
        ]);
      untrustedTexts += 1;
      hostCall('untrusted', json);
    }
    return LuaMultiReturn.from([true, JSON.stringify(wrapUntrusted(JSON.parse(json) as string, nonce))]);
  });
  engine.global.set('__pf_done', (status: 'ok' | 'syntax' | 'runtime', json: string) => {
    outcome = { status, message: JSON.parse(json) as string };
  });
  return engine;
}

let engine = await prepareEngine();
post({ type: 'ready' });

port.on('message', (message: ToWorker) => {
  void runScript(message);
});

async function runScript(start: ToWorker): Promise<void> {
  nonce = start.nonce;
  caps = start.caps;
  untrustedTexts = 0;
  outcome = undefined;
  engine.global.set('__pf_src', JSON.stringify(start.script));
  engine.global.set('__pf_chunk', JSON.stringify(start.chunkName));
  engine.global.set('__pf_untrusted_max', start.caps.untrustedBytes);
  engine.global.set('__pf_line_max', start.caps.logLineBytes);
  if (start.input !== undefined) engine.global.set('__pf_input', start.input);
  engine.global.setMemoryMax(start.memoryBytes);
  post({ type: 'started', runId: start.runId });
  let crash: string | undefined;
  try {
    // Exactly one doString per engine, returning nothing (wasmoon issue #109 corrupts the heap
    // after many doString calls that return values).
    engine.doStringSync(LUA_PRELUDE);
  } catch (error) {
    crash = errorMessage(error);
  }
  const memoryUsed = engine.global.getMemoryUsed();
  // `__pf_done` sets outcome while doStringSync runs (TypeScript cannot see that: the type is restated).
  const finished = outcome as Outcome | undefined;
  const result = finished ?? { status: 'crash' as const, message: crash ?? 'the script ended without a result' };
  // From here host calls and logs are refused (outcome is set). The VM closes before `end` is
  // posted, so its finalizers run while the run's CPU clock still runs: one that never finishes
  // is stopped by the CPU limit, which terminates this worker.
  outcome ??= { status: 'runtime', message: result.message };
  // A VM that crashed (a wasm trap) is not closed: its heap may be corrupt, and the worker is
  // terminated after this run anyway.
  let reusable = result.status !== 'crash';
  try {
    if (reusable) engine.global.close();
  } catch {
    reusable = false;
  }
  post({ type: 'end', runId: start.runId, status: result.status, message: result.message, memoryUsed, reusable });
  if (!reusable) return;
  engine = await prepareEngine();
  post({ type: 'ready' });
}
