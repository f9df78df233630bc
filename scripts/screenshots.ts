/**
 * `npm run screenshots`: builds the app and runs the end-to-end tests that take screenshots, with
 * PROMPTFORGE_SCREENSHOT_DIR=docs/screenshots, so the README's pictures are redrawn from the real
 * studio UI. `npm test` writes its screenshots to test-results/screenshots instead.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { runStep, runWithTestKeychain } from './lib/keychain-session.js';
import { packageFile, projectRoot } from './lib/project.js';

const e2e = path.join(projectRoot, 'test', 'e2e');
const files = readdirSync(e2e)
  .filter((name) => name.endsWith('.test.ts') && readFileSync(path.join(e2e, name), 'utf8').includes('.screenshot('))
  .map((name) => path.join('test', 'e2e', name));
const env = { ...process.env, PROMPTFORGE_SCREENSHOT_DIR: path.join(projectRoot, 'docs', 'screenshots') };
await runWithTestKeychain(async () => {
  const built = await runStep(process.execPath, [packageFile('electron-vite', 'bin/electron-vite.js'), 'build'], env);
  if (built !== 0) return built;
  return runStep(process.execPath, [packageFile('vitest', 'vitest.mjs'), 'run', ...files], env);
});
