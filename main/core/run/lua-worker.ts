import { createRequire } from 'node:module';
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import type { LuaEngine } from 'wasmoon';
import { wrapUntrusted } from '../../../common/envelope.js';
import { LUA_PRELUDE } from './lua-prelude.js';
import type { FromWorker, HostReply, ToWorker, WorkerInit } from './worker-protocol.js';

// One Lua VM per run, in this worker. The worker keeps one wasmoon factory (the compiled module)
// and prepares a fresh engine before each run, so a pooled worker starts a script in well under a
// millisecond. A worker whose run was stopped is terminated by the main side, never reused.

// wasmoon through require: loading its CommonJS build as an ES module costs a worker 30-40 ms of
// start-up (measured in bench/run-engine.bench.ts).
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
  LuaLibraries.UTF8,
  // Opened only so the prelude can keep debug.getinfo for error positions; the prelude removes the
  // global before the script runs.
  LuaLibraries.Debug,
];

function post(message: FromWorker): void {
  port.postMessage(message);
}

const factory = new LuaFactory();
let nonce = '';
let outcome: { status: 'ok' | 'syntax' | 'runtime'; message: string } | undefined;

function hostCall(method: string, payload: string): HostReply {
  // Read the counter before posting: the main side adds to it after posting the reply, so the
  // wait below returns at once if the reply is already there, and sleeps until it is otherwise.
  const expected = Atomics.load(signal, 0);
  post({ type: 'call', method: method as 'models.chat' | 'tools.call', payload });
  for (;;) {
    Atomics.wait(signal, 0, expected);
    const reply = receiveMessageOnPort(init.replyPort);
    if (reply) return reply.message as HostReply;
  }
}

async function prepareEngine(): Promise<LuaEngine> {
  // openStandardLibs: false, so io/os/package/debug never exist; enableProxy: false, because JS
  // proxies let Lua write to Object.prototype (SPEC §3.1).
  const engine = await factory.createEngine({
    openStandardLibs: false,
    enableProxy: false,
    injectObjects: false,
    traceAllocations: true,
  });
  for (const library of OPENED_LIBRARIES) engine.global.loadLibrary(library);
  // Returns two Lua values, (true, value) or (false, message): cheaper than a table per call.
  engine.global.set('__pf_host', (method: string, payload: string) => {
    let reply: HostReply;
    try {
      reply = hostCall(method, payload);
    } catch (error) {
      reply = { ok: false, error: `host call failed: ${String(error)}` };
    }
    return LuaMultiReturn.from(reply.ok ? [true, reply.value] : [false, reply.error]);
  });
  engine.global.set('__pf_log', (text: string) => {
    post({ type: 'log', text: String(text) });
  });
  engine.global.set('__pf_untrusted', (text: string) => wrapUntrusted(String(text), nonce));
  engine.global.set('__pf_done', (status: 'ok' | 'syntax' | 'runtime', message: string) => {
    outcome = { status, message: String(message) };
  });
  return engine;
}

let engine = await prepareEngine();
post({ type: 'ready' });

port.on('message', (message: ToWorker) => {
  if (message.type !== 'start') return;
  void runScript(message);
});

async function runScript(start: ToWorker): Promise<void> {
  nonce = start.nonce;
  outcome = undefined;
  engine.global.set('__pf_src', start.script);
  engine.global.set('__pf_chunk', start.chunkName);
  engine.global.setMemoryMax(start.memoryBytes);
  post({ type: 'started', runId: start.runId });
  let crash: string | undefined;
  try {
    // Exactly one doString per engine, returning nothing (wasmoon issue #109 corrupts the heap
    // after many doString calls that return values).
    engine.doStringSync(LUA_PRELUDE);
  } catch (error) {
    crash = error instanceof Error ? error.message : String(error);
  }
  const memoryUsed = engine.global.getMemoryUsed();
  const result = outcome ?? { status: 'crash' as const, message: crash ?? 'the script ended without a result' };
  post({ type: 'end', runId: start.runId, status: result.status, message: result.message, memoryUsed });
  engine.global.close();
  engine = await prepareEngine();
  post({ type: 'ready' });
}
