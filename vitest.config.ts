import { defineConfig } from 'vitest/config';

// One runner for every suite so CI prints one summary line. Suites live in test/, mirroring the
// source folders: node/ (core, plain Node), e2e/ (Playwright driving Debian's Chromium).
export default defineConfig({
  test: {
    include: ['test/node/**/*.test.ts', 'test/e2e/**/*.test.ts'],
    environment: 'node',
    // A temporary folder per run, deleted afterwards: tests leave nothing in the system's tmp.
    // The CLI tests spawn the built bin: it is rebuilt from source first (test/node/cli/build-cli-setup.ts).
    globalSetup: ['./test/temporary-folder.ts', './test/node/cli/build-cli-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: run files in parallel, but not so many that Lua workers starve each other.
    maxWorkers: 2,
    // The default reporter's table, then one plain `N passed, N failed, N skipped` line for CI logs.
    reporters: ['default', './test/plain-summary-reporter.ts'],
  },
});
