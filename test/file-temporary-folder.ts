import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect } from 'vitest';
import { fileFolderStem } from './leftovers.js';

/**
 * vitest setupFiles: each test file gets a temporary folder and a config folder of its own inside the run's
 * (test/temporary-folder.ts), through TMPDIR, so every folder the file, its workers and its child
 * processes make with `mkdtemp(os.tmpdir())` is deleted when the file ends, whether its tests
 * passed, failed or timed out. The folder is named after the file (`f-` and the start of its name),
 * so whatever outlives it (a process of the file's still writing, a file that crashed its worker)
 * is named by the global teardown with the test file that made it.
 */
const runFolder = os.tmpdir();
const testFile = expect.getState().testPath ?? 'unknown';
const stem = fileFolderStem(testFile);
const folder = mkdtempSync(path.join(runFolder, `f-${stem}-`));
process.env['TMPDIR'] = folder;
// The person's settings (workspace trust, approved key origins, the spending cap, approval rules)
// in a config folder of the file's own: a cap or a rule one file sets never reaches another's runs.
const runConfig = process.env['PROMPTFORGE_CONFIG_DIR'];
process.env['PROMPTFORGE_CONFIG_DIR'] = path.join(folder, 'promptforge-config');

afterAll(() => {
  process.env['TMPDIR'] = runFolder;
  if (runConfig === undefined) delete process.env['PROMPTFORGE_CONFIG_DIR'];
  else process.env['PROMPTFORGE_CONFIG_DIR'] = runConfig;
  rmSync(folder, { recursive: true, force: true, maxRetries: 3 });
});
