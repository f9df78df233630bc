import { MAX_LUA_DEPTH, MAX_LUA_VALUE_CHARS } from './worker-protocol.js';
// The Lua text, inlined by the bundler (esbuild's text loader, build/node-bundle.mjs); in source mode
// the worker's bootstrap (worker-boot.mjs) loads it the same way.
import preludeText from './lua-prelude.lua';

/**
 * The Lua side of the host API, written in `lua-prelude.lua`. It runs once per run, before the script, in a VM that has only the
 * base, coroutine, table, string, math and utf8 libraries open (docs/host-api.md#sandbox). Everything it needs is
 * captured in locals first, so the script can neither reach nor replace it.
 *
 * The worker sets these globals before running it, and the prelude removes them at once:
 * - `__pf_host(method, json)` → `ok, json`: a blocking call answered by the main thread (the value,
 *   or the error message);
 * - `__pf_log(json)`: posts a log line (blocks only while too many lines are in flight);
 * - `__pf_untrusted(json)` → `ok, json`: records the text with the host's taint rule, then wraps it
 *   with the shared envelope function (common/envelope.ts); `false` and a message past the run's cap;
 * - `__pf_done(status, json)`: reports how the script ended;
 * - `__pf_src`, `__pf_chunk`: the script text and the name used in error positions, as JSON strings;
 * - `__pf_untrusted_max`: the largest text `untrusted()` accepts, in bytes;
 * - `__pf_line_max`: the longest log line or error message sent to the host, in bytes (longer ones
 *   are cut here, with a note, before they cross);
 * - `__pf_input` (only for a run given an input, such as a tool trial): a JSON value passed to the
 *   script as its chunk argument (`local input = ...`).
 *
 * Every string and value crosses as JSON text, both ways (see worker-protocol.ts): from Lua, JSON
 * made here (strict: cycles, functions, NaN and nesting deeper than MAX_LUA_DEPTH levels are errors that
 * name the path); into Lua, JSON decoded here without recursion. JSON text has no NUL bytes, so
 * wasmoon's C-string conversions keep every string whole.
 */
export const LUA_PRELUDE = preludeText
  .replaceAll('@MAX_LUA_DEPTH@', String(MAX_LUA_DEPTH))
  .replaceAll('@MAX_LUA_VALUE_CHARS@', String(MAX_LUA_VALUE_CHARS));
