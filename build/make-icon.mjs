// Renders build/icon.svg to build/icon.png (512x512, transparent) with Debian's Chromium.
// Run by hand after changing the SVG: `node build/make-icon.mjs`. Not part of the build.
import { readFile } from 'node:fs/promises';
import { chromium } from 'playwright';

const svg = await readFile(new URL('./icon.svg', import.meta.url), 'utf8');
const browser = await chromium.launch({
  executablePath: process.env.PROMPTFORGE_CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu'],
});
try {
  const page = await browser.newPage({ viewport: { width: 512, height: 512 }, deviceScaleFactor: 1 });
  await page.setContent(`<style>html,body{margin:0;background:transparent}svg{display:block}</style>${svg}`);
  await page.screenshot({ path: new URL('./icon.png', import.meta.url).pathname, omitBackground: true });
} finally {
  await browser.close();
}
