import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';

/**
 * vitest globalSetup: the `promptforge` bin runs the CLI built into out/cli, so every test run
 * first rebuilds it from the current source (esbuild, well under a second; unchanged files are
 * left alone and changed ones are renamed into place, so a CLI another run has started is never
 * handed a half-written file). Without this, CLI tests would test whatever `npm install` built.
 * Every test's Lua workers start from out/cli/lua-worker.js too (vitest.config.ts).
 */
export default function setup(project: TestProject): void {
  build();
  // In watch mode, a rerun tests the source as it is now (the Lua workers run from this build too).
  project.onTestsRerun(() => build());
}

function build(): void {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
  const built = spawnSync(process.execPath, [path.join(root, 'main/cli/build-cli.mjs'), '--keep-stale'], {
    cwd: root,
    encoding: 'utf8',
  });
  if (built.status !== 0)
    throw new Error(`building the CLI (node main/cli/build-cli.mjs) failed:\n${built.stderr}${built.stdout}`);
}
