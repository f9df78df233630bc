import { nestingDepth } from '../../../common/json.js';
import type { MessagePort } from 'node:worker_threads';
import { errorMessage } from '../../../common/error-message.js';

/**
 * Messages between the main side of a run and its Lua worker. Host calls block the worker on an
 * `Atomics.wait` over {@link WorkerInit.signal}; the main side posts the {@link HostReply} on
 * {@link WorkerInit.replyPort} and then wakes it. The worker reads the reply with
 * `receiveMessageOnPort`, so it never needs its own event loop while Lua runs.
 *
 * Every value and string that crosses into Lua travels as JSON text made by
 * {@link encodeForLua} (bounded in depth and size) and is rebuilt by the prelude's iterative
 * decoder; every string that leaves Lua travels as JSON text made by the prelude. JSON text never
 * holds a NUL byte, so wasmoon's C-string conversions cannot cut it, and no value is ever pushed by
 * wasmoon's recursive converter (which calls no `lua_checkstack`).
 */
export interface WorkerInit {
  replyPort: MessagePort;
  /** Int32Array view over {@link SIGNAL_SLOTS} counters, see {@link Signal}. */
  signal: SharedArrayBuffer;
  /** The process's cell for V8's wasm-wrapper flag (keepWasmWrappersGeneric in wasm-wrappers.ts). */
  wrapperFlag: SharedArrayBuffer;
  /** Set in source mode: the TypeScript module the bootstrap should import. */
  entry?: string;
}

/** The counters in {@link WorkerInit.signal}, by index. Both only ever grow (add, never store). */
export const Signal = {
  /** The main side adds 1 after posting each host reply. */
  Reply: 0,
  /** The main side adds 1 after handling each log message (the worker's log back-pressure). */
  LogAck: 1,
  /** The worker adds 1 before posting each log message. */
  LogPosted: 2,
} as const;
export const SIGNAL_SLOTS = 3;

/** The deepest table nesting that may cross between the host and Lua, either way (a scalar is 0). */
export const MAX_LUA_DEPTH = 64;
/** The largest value, as JSON text in characters, the host sends into Lua in one reply. */
export const MAX_LUA_VALUE_CHARS = 16 * 1024 * 1024;

/** Per-run bounds the worker enforces itself. */
export interface WorkerCaps {
  /** Longest log line or error message sent to the host, in bytes; longer ones are cut with a note. */
  logLineBytes: number;
  /** Log lines posted but not yet handled by the main side before `log` blocks. */
  logsInFlight: number;
  /** Largest text `untrusted()` accepts, in bytes. */
  untrustedBytes: number;
  /** Texts `untrusted()` accepts per run (each is recorded for the taint rule). */
  untrustedTexts: number;
}

/** Main → worker (over parentPort). */
export type ToWorker = {
  type: 'start';
  runId: string;
  script: string;
  chunkName: string;
  nonce: string;
  memoryBytes: number;
  caps: WorkerCaps;
  /** A value handed to the script as its chunk argument (`local input = ...`), as JSON made by {@link encodeForLua}. */
  input?: string;
};

/** Worker → main (over parentPort). */
export type FromWorker =
  | { type: 'ready' }
  /** The script is about to run its first instruction (the CPU clock starts). */
  | { type: 'started'; runId: string }
  /** `length` is the line's length before any cut, in bytes. */
  | { type: 'log'; text: string; length: number }
  | { type: 'call'; method: HostMethod; payload: string }
  | {
      type: 'end';
      runId: string;
      status: 'ok' | 'syntax' | 'runtime' | 'crash';
      message: string;
      /** Peak Lua heap in bytes. */
      memoryUsed: number;
      /** False when closing the VM failed: the worker must not run another script. */
      reusable?: boolean;
    };

/**
 * The blocking host calls a script can make. `untrusted` records text the script marked with
 * `untrusted()` for the taint rule (the reply carries nothing).
 */
export type HostMethod = 'models.chat' | 'tools.call' | 'untrusted' | 'mcp.read_resource' | 'mcp.get_prompt';

/**
 * Main → worker reply to a host call (over the reply port): `json` is the value (ok) or the error
 * message (not ok) as JSON text, ready for the prelude's decoder.
 */
export type HostReply = { ok: boolean; json: string };

/**
 * The one gate for every value the host sends into Lua: its JSON text when it nests at most
 * {@link MAX_LUA_DEPTH} levels and is at most {@link MAX_LUA_VALUE_CHARS} long, else a message that
 * names `what` (e.g. `tools.call('x'): the output`) and the bound.
 */
export function encodeForLua(value: unknown, what: string): { ok: true; json: string } | { ok: false; error: string } {
  if (nestingDepth(value, MAX_LUA_DEPTH) > MAX_LUA_DEPTH)
    return {
      ok: false,
      error: `${what} is nested deeper than ${MAX_LUA_DEPTH} levels, more than a value sent to Lua may have (flatten it)`,
    };
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    return { ok: false, error: `${what} cannot be sent to Lua (${errorMessage(error)})` };
  }
  json ??= 'null';
  if (json.length > MAX_LUA_VALUE_CHARS)
    return {
      ok: false,
      error: `${what} is ${mib(json.length)} as JSON, more than the ${mib(MAX_LUA_VALUE_CHARS)} limit for a value sent to Lua`,
    };
  return { ok: true, json };
}

/** `chars` as mebibytes for messages: `16 MiB`, `20.5 MiB`. */
export function mib(chars: number): string {
  const value = chars / (1024 * 1024);
  return `${Number.isInteger(value) ? value : value.toFixed(1)} MiB`;
}
