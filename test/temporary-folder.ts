import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * vitest globalSetup: every test file, worker and child process gets a temporary folder of this
 * run's own through TMPDIR (os.tmpdir() reads it on every call, and children inherit it), and the
 * folder is deleted when the run ends, so tests leave no `pf-*` folders behind in the system's
 * temporary directory. `npm run screenshots` gets a fixed folder instead, so the paths the
 * screenshots show are the same on every run. The config folder (workspace trust) lives inside it.
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
  // Workspace trust and approved key origins go to a config folder of this run's own, never the
  // person's (~/.config/PromptForge Studio): the studio and the CLI both read PROMPTFORGE_CONFIG_DIR.
  const previousConfig = process.env['PROMPTFORGE_CONFIG_DIR'];
  process.env['PROMPTFORGE_CONFIG_DIR'] = path.join(folder, 'promptforge-config');
  return () => {
    process.env['TMPDIR'] = system;
    if (previousConfig === undefined) delete process.env['PROMPTFORGE_CONFIG_DIR'];
    else process.env['PROMPTFORGE_CONFIG_DIR'] = previousConfig;
    rmSync(folder, { recursive: true, force: true, maxRetries: 3 });
  };
}
