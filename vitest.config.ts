import path from 'node:path';
import { defineConfig } from 'vitest/config';

// One runner for every suite so CI prints one summary line. Suites live in test/, mirroring the
// source folders: node/ (core, plain Node), e2e/ (Playwright driving Debian's Chromium).
export default defineConfig({
  test: {
    include: ['test/node/**/*.test.ts', 'test/e2e/**/*.test.ts'],
    environment: 'node',
    // A temporary folder per run, deleted afterwards: tests leave nothing in the system's tmp.
    // The CLI tests spawn the built bin: it is rebuilt from source first (test/node/cli/build-cli-setup.ts).
    // The e2e files share one Chromium, each in a context of its own (test/e2e/shared-browser.ts).
    globalSetup: ['./test/temporary-folder.ts', './test/node/cli/build-cli-setup.ts', './test/e2e/shared-browser.ts'],
    // Lua workers start from that same build (out/cli/lua-worker.js, ~0.1 s) instead of the
    // TypeScript source through tsx (~0.5 s): see defaultWorkerEntry in main/core/run/worker-pool.ts.
    // worker-reuse.test.ts still starts the source worker once, so that path stays tested.
    env: { PROMPTFORGE_LUA_WORKER: path.join(import.meta.dirname, 'out/cli/lua-worker.js') },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: run files in parallel, but not so many that Lua workers starve each other.
    maxWorkers: 2,
    // The default reporter's table, then one plain `N passed, N failed, N skipped` line for CI logs.
    reporters: ['default', './test/plain-summary-reporter.ts'],
  },
});
