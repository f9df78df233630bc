// knip's view of the project (`npm run lint` runs it): the real entry points, so an export,
// file or dependency nothing reaches is reported, and dead code stays out.
import type { KnipConfig } from 'knip';

const config: KnipConfig = {
  // The app's main process, preload and renderer come from electron.vite.config.ts, and the CLI's
  // bin (main/cli/promptforge.mjs) from package.json, through knip's plugins.
  entry: [
    // The CLI build's entries (main/cli/build-cli.mjs), and the Lua worker the app bundles on its own.
    'main/cli/cli.ts',
    'main/core/run/lua-worker.ts',
    'main/core/run/worker-pool.ts',
    'main/core/run/worker-boot.mjs',
    // Started by path: the electron download reporter (scripts/ensure-electron.ts), the
    // screenshots' clock (scripts/screenshots.vitest.config.ts), the examples' tool scripts.
    'scripts/*.ts',
    'scripts/lib/report-electron-download.mjs',
    'test/e2e/screenshot-clock.ts',
    'examples/tools/*.mjs',
    'bench/*.ts',
    'build/*.mjs',
    // Tests, and every fixture a test starts by path (servers, workers, children, hooks).
    'test/**/*.test.ts',
    'test/**/*.mjs',
    'test/fixtures/*.ts',
    'test/node/credentials/unavailable-child.ts',
    'test/node/transcript/read-blocking-child.ts',
    'test/node/mcp/conformance/conformance-client.ts',
  ],
  project: ['**/*.{ts,tsx,mjs,js}', '!out/**', '!dist/**'],
  ignore: [
    // Types for the plain-JavaScript eslint config, read by TypeScript, not imported.
    'eslint.config.d.ts',
  ],
  ignoreExportsUsedInFile: true,
  // test-command.ts loads these with import() and passes the modules on: knip cannot follow that.
  ignoreIssues: {
    'main/core/testing/reporters.ts': ['exports'],
    'main/core/testing/update-expectations.ts': ['exports'],
  },
  ignoreDependencies: [
    // Run or read by path from node_modules by the tests (MCP servers, the conformance suite, axe).
    '@modelcontextprotocol/conformance',
    '@modelcontextprotocol/server-everything',
    '@modelcontextprotocol/server-filesystem',
    'axe-core',
  ],
  ignoreBinaries: [
    // The OS keychain's tools the keychain tests start, and this package's own bin.
    'gnome-keyring-daemon',
    'secret-tool',
    'promptforge',
  ],
};

export default config;
