/**
 * `npm run screenshots`: redraws the pictures README.md shows (its `docs/screenshots/NAME.png`
 * image links, the one list of them) from the real studio UI. It builds the app and runs only the
 * end-to-end test files that take one of those pictures. Every screenshot still goes to
 * test-results/screenshots, as under `npm test`; the README's pictures are also copied to
 * docs/screenshots (test/e2e/bridge.ts `screenshot()`), so no other picture lands there.
 *
 * So that the pictures do not change from one run to the next, the core's clock is frozen at one
 * instant (test/e2e/screenshot-clock.ts, through scripts/screenshots.vitest.config.ts) and the browser formats times in UTC and US English.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { runStep, runWithTestKeychain } from './lib/keychain-session.js';
import { packageFile, projectRoot } from './lib/project.js';

const pictureFolder = path.join('docs', 'screenshots');
const readme = readFileSync(path.join(projectRoot, 'README.md'), 'utf8');
// ![alt](docs/screenshots/NAME.png): the README's pictures, in the order it shows them.
const names = [
  ...new Set([...readme.matchAll(/!\[[^\]]*\]\(docs\/screenshots\/([\w-]+)\.png\)/g)].map((match) => match[1]!)),
];
if (names.length === 0) {
  process.stderr.write('README.md links no docs/screenshots/*.png picture: nothing to redraw\n');
  process.exit(1);
}

const e2e = path.join(projectRoot, 'test', 'e2e');
const sources = readdirSync(e2e)
  .filter((name) => name.endsWith('.test.ts'))
  .map((name) => ({ file: path.join('test', 'e2e', name), text: readFileSync(path.join(e2e, name), 'utf8') }));
const takes = (text: string, name: string) => text.includes(`.screenshot('${name}')`);
const missing = names.filter((name) => !sources.some((source) => takes(source.text, name)));
if (missing.length > 0) {
  process.stderr.write(
    `No test in test/e2e takes ${missing.map((name) => `screenshot('${name}')`).join(', ')}, which README.md shows\n`,
  );
  process.exit(1);
}
const files = sources.filter((source) => names.some((name) => takes(source.text, name))).map((source) => source.file);

const env = {
  ...process.env,
  PROMPTFORGE_SCREENSHOT_DIR: path.join(projectRoot, pictureFolder),
  PROMPTFORGE_SCREENSHOT_NAMES: names.join(','),
  // Chromium formats the shown dates and times in this zone and language, on every machine.
  TZ: 'UTC',
  LANGUAGE: 'en_US',
};
process.stdout.write(`Redrawing ${names.map((name) => `${pictureFolder}/${name}.png`).join(', ')}\n`);
await runWithTestKeychain(async () => {
  const built = await runStep(process.execPath, [packageFile('electron-vite', 'bin/electron-vite.js'), 'build'], env);
  if (built !== 0) return built;
  return runStep(
    process.execPath,
    [
      packageFile('vitest', 'vitest.mjs'),
      'run',
      '--config',
      path.join('scripts', 'screenshots.vitest.config.ts'),
      ...files,
    ],
    env,
  );
});
