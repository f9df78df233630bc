import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * vitest globalSetup: every test file, worker and child process gets a temporary folder of this
 * run's own through TMPDIR (os.tmpdir() reads it on every call, and children inherit it), and the
 * folder is deleted when the run ends, so tests leave no `pf-*` folders behind in the system's
 * temporary directory. `npm run screenshots` gets a fixed folder instead, so the paths the
 * screenshots show are the same on every run.
 */
export default function setup(): () => void {
  const system = os.tmpdir();
  let folder: string;
  if (process.env['PROMPTFORGE_SCREENSHOT_DIR']) {
    folder = path.join(system, 'promptforge-screenshots');
    rmSync(folder, { recursive: true, force: true });
    mkdirSync(folder);
  } else {
    folder = mkdtempSync(path.join(system, 'promptforge-tests-'));
  }
  process.env['TMPDIR'] = folder;
  return () => {
    process.env['TMPDIR'] = system;
    rmSync(folder, { recursive: true, force: true, maxRetries: 3 });
  };
}
