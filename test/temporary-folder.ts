import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { leftoverFiles, leftoverProcesses } from './leftovers.js';

const repository = path.resolve(import.meta.dirname, '..');
/** The run's own config folder, inside its temporary folder: shared by the run's tests, deleted with it. */
const CONFIG_FOLDER = 'promptforge-config';

/**
 * vitest globalSetup: every test file, worker and child process gets a temporary folder of this
 * run's own through TMPDIR (os.tmpdir() reads it on every call, and children inherit it), and the
 * folder is deleted when the run ends, so tests leave no `pf-*` folders behind in the system's
 * temporary directory. `npm run screenshots` gets a fixed folder instead, so the paths the
 * screenshots show are the same on every run. The config folder (workspace trust) lives inside it.
 *
 * When the run ends, failed or not, a process a test started that still runs is killed and named,
 * and so is every file or folder a test left in the temporary folder, with the test files that make
 * it; then the run fails (test/leftovers.ts). The folder, with whatever was left in it, is deleted.
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
  process.env['PROMPTFORGE_CONFIG_DIR'] = path.join(folder, CONFIG_FOLDER);
  return () => {
    const left: string[] = [];
    for (const orphan of leftoverProcesses(folder, repository)) {
      try {
        process.kill(orphan.pid, 'SIGKILL');
      } catch {
        // It ended on its own meanwhile.
      }
      left.push(`a process still running (now killed): ${orphan.description}`);
    }
    // tsx's compile cache (tsx-UID), made by the tools that start the run: not a test's.
    const kept = new Set([CONFIG_FOLDER, `tsx-${process.getuid?.() ?? 0}`]);
    // A screenshot run's folder is fixed and kept for the pictures' paths: what it holds is expected.
    const screenshots = process.env['PROMPTFORGE_SCREENSHOT_DIR'] !== undefined;
    for (const file of screenshots ? [] : leftoverFiles(folder, kept, path.join(repository, 'test')))
      left.push(`a temporary file or folder not deleted: ${file}`);
    if (left.length > 0) {
      process.stderr.write(
        `\nThe tests left ${left.length} thing${left.length === 1 ? '' : 's'} behind (each test must stop what it started, even when it fails):\n` +
          left.map((line) => `- ${line}\n`).join(''),
      );
      process.exitCode = 1;
    }
    process.env['TMPDIR'] = system;
    if (previousConfig === undefined) delete process.env['PROMPTFORGE_CONFIG_DIR'];
    else process.env['PROMPTFORGE_CONFIG_DIR'] = previousConfig;
    rmSync(folder, { recursive: true, force: true, maxRetries: 3 });
  };
}
