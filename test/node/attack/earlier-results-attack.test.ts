import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LoadedCase } from '../../../main/core/testing/load-tests.js';
import { MAX_REPORT_BYTES, readEarlierResults } from '../../../main/core/studio/earlier-test-results.js';

/**
 * A cloned workspace's runs/tests/suite-*\/report.json files are read by main on every tests:list,
 * on the main thread (JSON.parse and the schema check are synchronous). Each may be up to
 * MAX_REPORT_BYTES, and ten are tried: ten reports of 100 000 invalid results kept main busy
 * for about 38 s per listing on a loaded machine (the schema check collects an issue for every
 * bad field). A listing reads at most MAX_REPORT_BYTES in all, and a report stops being checked
 * at its first bad result.
 */
const testCase = { id: 'f/ok', name: 'ok', file: 'tests/f.yaml', line: 3 } as LoadedCase;
const good = { id: 'f/ok', name: 'ok', file: 'tests/f.yaml', line: 1, model: 'm', outcome: 'passed', failures: [] };

function workspaceWith(reports: { stamp: string; body: (id: string) => string }[]): string {
  const root = mkdtempSync(path.join(tmpdir(), 'pf-earlier-attack-'));
  for (const { stamp, body } of reports) {
    const id = `suite-2024-05-${stamp}T10-00-00-000Z-abcdef`;
    mkdirSync(path.join(root, 'runs', 'tests', id), { recursive: true });
    writeFileSync(path.join(root, 'runs', 'tests', id, 'report.json'), body(id));
  }
  return root;
}

/** A report of `count` results that each break every field of the schema, padded to about `bytes`. */
function invalidReport(id: string, bytes: number): string {
  const bad = { id: 1, name: 2, file: 3, line: 'x', model: 4, outcome: 5, failures: 6 };
  const count = Math.floor(bytes / JSON.stringify(bad).length) - 1;
  return JSON.stringify({ suiteRunId: id, interrupted: false, results: new Array(count).fill(bad) });
}

describe("earlier results: a cloned workspace's report.json files", () => {
  it('are read up to MAX_REPORT_BYTES in all per listing, however many suite folders there are', async () => {
    const half = Math.floor(MAX_REPORT_BYTES / 2) + 1024;
    const root = workspaceWith([
      {
        stamp: '01',
        body: (id) => JSON.stringify({ suiteRunId: id, interrupted: false, results: [good], pad: 'x'.repeat(half) }),
      },
      { stamp: '02', body: (id) => invalidReport(id, half) },
      { stamp: '03', body: (id) => invalidReport(id, half) },
    ]);
    // The newest takes over half the budget: neither older one fits in what is left, so neither is read.
    expect(await readEarlierResults(root, [testCase], new Set(), () => true)).toBeNull();
  });

  it('still finds a valid report behind small broken ones', async () => {
    const root = workspaceWith([
      { stamp: '01', body: (id) => JSON.stringify({ suiteRunId: id, interrupted: true, results: [good] }) },
      ...['02', '03', '04', '05', '06', '07', '08', '09'].map((stamp) => ({
        stamp,
        body: (id: string) => invalidReport(id, 64 << 10),
      })),
    ]);
    const earlier = await readEarlierResults(root, [testCase], new Set(), () => true);
    expect(earlier).toMatchObject({ suiteRunId: 'suite-2024-05-01T10-00-00-000Z-abcdef', interrupted: true });
    expect(earlier!.results).toEqual([expect.objectContaining({ id: 'f/ok', outcome: 'passed', line: 3 })]);
  });

  it('refuses a report with one bad result among good ones, and one naming another suite', async () => {
    const root = workspaceWith([
      {
        stamp: '01',
        body: () =>
          JSON.stringify({ suiteRunId: 'suite-2024-05-02T10-00-00-000Z-abcdef', interrupted: false, results: [good] }),
      },
      {
        stamp: '02',
        body: (id) =>
          JSON.stringify({ suiteRunId: id, interrupted: false, results: [good, { ...good, outcome: 'excellent' }] }),
      },
    ]);
    expect(await readEarlierResults(root, [testCase], new Set(), () => true)).toBeNull();
  });
});
