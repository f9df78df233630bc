import type { LaunchOptions } from 'playwright';

/** How the e2e tests start Debian's Chromium (PROMPTFORGE_CHROMIUM names another executable). */
export const chromiumLaunchOptions: LaunchOptions = {
  executablePath: process.env['PROMPTFORGE_CHROMIUM'] ?? '/usr/bin/chromium',
  headless: true,
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
};

/**
 * The WebSocket endpoint of a Chromium that test/e2e/shared-browser.ts started for the whole test
 * run. A harness connects to it and opens a context of its own (as isolated as a new browser: its
 * own storage, cookies and pages) instead of starting Chromium for every test file.
 */
export const SHARED_BROWSER_ENV = 'PROMPTFORGE_E2E_BROWSER';
