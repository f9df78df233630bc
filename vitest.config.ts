import os from 'node:os';
import path from 'node:path';
import { defineConfig } from 'vitest/config';
import SlowFirstSequencer from './test/slow-first-sequencer.js';

// One runner for every suite so CI prints one summary line. Suites live in test/, mirroring the
// source folders: node/ (core, plain Node), e2e/ (Playwright driving Debian's Chromium).
export default defineConfig({
  test: {
    include: ['test/node/**/*.test.ts', 'test/e2e/**/*.test.ts'],
    environment: 'node',
    // A temporary folder per run, deleted afterwards: tests leave nothing in the system's tmp.
    // The CLI tests spawn the built bin: it is rebuilt from source first (test/node/cli/build-cli-setup.ts).
    // The e2e files share one Chromium, each in a context of its own (test/e2e/shared-browser.ts).
    // Each test file gets a folder of its own inside it, deleted when the file ends (test/file-temporary-folder.ts).
    setupFiles: ['./test/file-temporary-folder.ts'],
    globalSetup: ['./test/temporary-folder.ts', './test/node/cli/build-cli-setup.ts', './test/e2e/shared-browser.ts'],
    // Lua workers start from that same build (out/cli/lua-worker.js, ~0.1 s) instead of the
    // TypeScript source through tsx (~0.5 s): see defaultWorkerEntry in main/core/run/worker-pool.ts.
    // worker-reuse.test.ts still starts the source worker once, so that path stays tested.
    env: { PROMPTFORGE_LUA_WORKER: path.join(import.meta.dirname, 'out/cli/lua-worker.js') },
    testTimeout: 30_000,
    // expect.poll waits for a state, never for a time: its default of one second fails on busy cores
    // (a server restart under load takes longer), so it gets the same patience as a locator's wait.
    expect: { poll: { timeout: 15_000 } },
    hookTimeout: 60_000,
    // Two test files per core: most of a file's time is spent waiting (for Chromium, a child
    // process, a Lua worker), so two per core keeps the cores busy without starving the workers.
    maxWorkers: Math.max(2, os.availableParallelism() * 2),
    // Each test file runs in a fresh process (vitest's default, kept on purpose). Sharing processes
    // between files (isolate: false) saved about a sixth of the node tests' CPU, but a long-lived
    // test process that starts and terminates hundreds of Lua workers (wasm) hit a V8 fatal error
    // ("Check failed: jit_page_->allocations_.erase(addr) == 1", Node 24.21) in a fresh-clone run.
    // Its cause, V8's wasm-to-JS wrapper tier-up, is now kept off for every Lua worker
    // (keepWasmWrappersGeneric in main/core/run/wasm-wrappers.ts); isolation stays, untried since.
    isolate: true,
    // The longest files start first (see the sequencer), so the suite does not end on one of them.
    sequence: { sequencer: SlowFirstSequencer },
    // The default reporter's table, then one plain `N passed, N failed, N skipped` line for CI logs.
    reporters: ['default', './test/plain-summary-reporter.ts'],
  },
});
