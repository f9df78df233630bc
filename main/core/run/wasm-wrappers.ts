// The V8 flag that keeps wasmoon's Lua→JS calls on V8's generic wasm wrapper: set once per process, by the first Lua worker, before any Lua worker runs wasm.
import { setFlagsFromString } from 'node:v8';

/**
 * The V8 flag that keeps every wasm-to-JS call on V8's generic wrapper: no tier-up before a billion
 * calls through one import (a value that fits a small integer in every V8 build, Electron's too).
 *
 * In Node 24's V8 (13.6) a wrapper's tier-up can crash the whole process while several threads
 * run wasm: Runtime_TierUpWasmToJSWrapper → ~WasmCodeRefScope → FreeDeadCode frees code that is
 * already gone, a SIGSEGV in NativeModule::FreeCode or a fatal "Check failed: jit_page.has_value()"
 * in WasmImportWrapperCache::Free ("jit_page_->allocations_.erase(addr) == 1" is its twin). Every
 * Lua→JS call in wasmoon (its allocator hook, each host function) crosses such a wrapper, and each
 * run's fresh engine tiered up new ones after a thousand calls, so a 10,000-case suite killed its
 * host process now and then, with no message
 * (docs/threat-model.md, "A V8 crash path is kept closed").
 */
const NO_WASM_WRAPPER_TIER_UP = '--wasm-wrapper-tiering-budget=1000000000';

/**
 * Sets {@link NO_WASM_WRAPPER_TIER_UP} where V8 has it: V8 12 (Node 22) on. V8 11 (Node 20, below
 * the supported Node) has no such flag, and would print "unrecognized flag" on stderr.
 */
function setWrapperFlag(): void {
  if (Number(process.versions.v8.split('.')[0]) >= 12) setFlagsFromString(NO_WASM_WRAPPER_TIER_UP);
}

/**
 * The one cell of {@link wrapperFlagCell}: {@link UNSET}, {@link SET}, or `threadId + SETTER_BASE`
 * while the worker of that thread id sets the flag.
 */
const UNSET = 0;
const SET = 1;
const SETTER_BASE = 2;

const CELL_KEY = Symbol.for('promptforge.wasm-wrapper-flag');

/**
 * The process's flag cell, shared with every Lua worker (WorkerInit.wrapperFlag). It hangs on
 * `globalThis` under a registered symbol, so two copies of this module in one thread (two bundles)
 * share it. Lua workers are started from one thread (the main thread of the app, the CLI and each
 * test process).
 */
export function wrapperFlagCell(): SharedArrayBuffer {
  const holder = globalThis as Partial<Record<symbol, SharedArrayBuffer>>;
  return (holder[CELL_KEY] ??= new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
}

/**
 * Called by each Lua worker before it compiles or instantiates any wasm. The first worker to get
 * here sets {@link NO_WASM_WRAPPER_TIER_UP} for the whole process (V8's flags are per process, and
 * V8 reads this one whenever a wasm instance's imports are bound, which wasmoon does for every
 * engine and every JS function it registers); every other worker waits until it is set. So the
 * flag is written once, while no Lua worker runs wasm yet, and no Lua worker runs wasm without it.
 *
 * Why a worker and not the main thread before it starts the first worker: a V8 flag changed at
 * run time changes V8's flag hash, and V8 then turns down the code cache Node compiled its built-in
 * modules with; a worker started after the change compiles them all again (about 30 ms of CPU).
 * Set here, after the worker's own start-up, it costs only the built-ins loaded afterwards.
 *
 * `run` is the setter: {@link setFlagsFromString} unless a test gives its own.
 */
export function keepWasmWrappersGeneric(
  cell: SharedArrayBuffer,
  threadId: number,
  run: () => void = setWrapperFlag,
): 'set' | 'waited' {
  const state = new Int32Array(cell);
  const mine = threadId + SETTER_BASE;
  for (;;) {
    const seen = Atomics.compareExchange(state, 0, UNSET, mine);
    if (seen === UNSET) {
      run();
      Atomics.store(state, 0, SET);
      Atomics.notify(state, 0);
      return 'set';
    }
    if (seen === SET) return 'waited';
    // Another worker is setting it; if that worker dies first, the pool hands the cell back
    // (setterExited) and this loop elects again.
    Atomics.wait(state, 0, seen);
  }
}

/**
 * Called by the pool when a Lua worker exits: if it was setting the flag and died before it said
 * so (terminated during start-up), the cell goes back to unset and a waiting worker takes over.
 * Setting the flag twice to the same value is harmless here: every other Lua worker is still
 * waiting, before any wasm.
 */
export function setterExited(cell: SharedArrayBuffer, threadId: number): void {
  const state = new Int32Array(cell);
  if (Atomics.compareExchange(state, 0, threadId + SETTER_BASE, UNSET) === threadId + SETTER_BASE)
    Atomics.notify(state, 0);
}
