import type { LaunchOptions } from 'playwright-core';

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
