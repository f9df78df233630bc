import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { leftoverFiles } from '../../leftovers.js';

describe('temporary folders of the test run', () => {
  it('each test file makes its folders, and keeps its settings, in a folder of its own named after it (deleted when it ends)', () => {
    expect(path.basename(os.tmpdir())).toMatch(/^f-temporary-fold-[A-Za-z0-9]{6}$/);
    // Inside the run's folder, which the global teardown checks.
    expect(path.basename(path.dirname(os.tmpdir()))).toMatch(/^promptforge-tests-/);
    // The person's settings too: a spending cap or a rule one file sets never reaches another's runs.
    expect(process.env['PROMPTFORGE_CONFIG_DIR']).toBe(path.join(os.tmpdir(), 'promptforge-config'));
  });

  it('what is left behind is named, with the test files that make folders of that name', () => {
    const run = mkdtempSync(path.join(os.tmpdir(), 'run-'));
    const tests = path.join(mkdtempSync(path.join(os.tmpdir(), 'tests-')), 'test');
    mkdirSync(path.join(tests, 'node', 'studio'), { recursive: true });
    writeFileSync(
      path.join(tests, 'node', 'studio', 'maker.test.ts'),
      "mkdtemp(path.join(os.tmpdir(), 'pf-maker-'));\n",
    );
    mkdirSync(path.join(run, 'promptforge-config'));
    mkdirSync(path.join(run, 'pf-maker-Ab3xYz'));
    // A test file's own folder that outlived it (its worker crashed).
    mkdirSync(path.join(run, 'f-maker-Qr5tUv'));
    writeFileSync(path.join(run, 'f-maker-Qr5tUv', 'left.txt'), '');
    // An empty one: the file's tests were all skipped, and nothing was left in it.
    mkdirSync(path.join(run, 'f-skipped-Wx7yZa'));
    writeFileSync(path.join(run, 'stray.txt'), '');
    expect(leftoverFiles(run, new Set(['promptforge-config']), tests)).toEqual([
      'f-maker-Qr5tUv (made by test/node/studio/maker.test.ts)',
      'pf-maker-Ab3xYz (made by test/node/studio/maker.test.ts)',
      'stray.txt (no test names it: search test/ for it)',
    ]);
  });
});
