import { chromium, type BrowserServer } from 'playwright';
import { chromiumLaunchOptions, SHARED_BROWSER_ENV } from './chromium.js';

/**
 * vitest globalSetup: one Chromium for every e2e test file of the run (starting it costs seconds
 * per file on a loaded 2-core machine). Each StudioHarness connects and uses a browser context of
 * its own. Skipped when the run's file filters name no e2e test (`vitest run test/node/...`); a
 * harness without the shared browser starts its own, as the benchmarks do.
 */
export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  const filters = vitestFileFilters(process.argv);
  if (filters.length > 0 && !filters.some((filter) => filter.includes('e2e'))) return undefined;
  const server: BrowserServer = await chromium.launchServer(chromiumLaunchOptions);
  process.env[SHARED_BROWSER_ENV] = server.wsEndpoint();
  return async () => {
    delete process.env[SHARED_BROWSER_ENV];
    await server.close();
  };
}

/** The file filters of `vitest run FILTER...`: the arguments after `run` that are not options. */
function vitestFileFilters(argv: readonly string[]): string[] {
  const run = argv.indexOf('run');
  return run < 0 ? [] : argv.slice(run + 1).filter((arg) => !arg.startsWith('-'));
}
