import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadWorkspace } from '../../../main/core/catalog/workspace.js';
import { loadTestFile } from '../../../main/core/testing/load-tests.js';
import { runSuite } from '../../../main/core/testing/suite.js';
import { exampleWorkspace, suitePool, testFile } from './harness.js';

const CASES = 10_000;

describe('10,000 cases', () => {
  it('all run, each recorded, in bounded memory (a finished case keeps only its verdict)', async () => {
    const dir = await exampleWorkspace();
    writeFileSync(path.join(dir, 'agents', 'tiny.lua'), `log(tools.call('echo', { text = 'hi' }))`);
    const lines = [
      'defaults: { agent: agents/tiny.lua, model: { replies: [] }, expect: { logs: hi, calls: [{ tool: echo }] } }',
      'cases:',
      ...Array.from({ length: CASES }, (_, i) => `  - name: case ${i}`),
    ];
    const workspace = await loadWorkspace(dir);
    const cases = await loadTestFile(workspace, testFile(dir, 'many.yaml', `${lines.join('\n')}\n`), []);
    expect(cases).toHaveLength(CASES);
    const suite = await runSuite({
      workspace,
      pool: suitePool(),
      trust: { state: 'trusted' },
      cases,
      concurrency: 2,
      folder: path.join(dir, 'runs', 'tests', 'many'),
      signal: new AbortController().signal,
    });
    expect(suite.results.filter((result) => result.outcome === 'passed')).toHaveLength(CASES);
    expect(new Set(suite.results.map((result) => result.run!.transcript)).size).toBe(CASES);
    // What the suite keeps of a finished case is its verdict, a few hundred bytes, never its run's
    // events (those are in its transcript). Measured on the results themselves, not on the heap,
    // which the collector makes noisy.
    const kept = JSON.stringify(suite.results).length / CASES;
    expect(kept).toBeLessThan(2_000);
  }, 900_000);
});
