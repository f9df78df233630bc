import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { currentConfigDir } from '../../../main/core/trust/config-dir.js';
import { SPENDING_CAP_FILE } from '../../../main/core/studio/spending-cap.js';
import { contractStudio } from './contract-studio.js';

// The config folder is shared by this file's tests: each starts from no cap.
afterEach(() => rmSync(path.join(currentConfigDir(), SPENDING_CAP_FILE), { force: true }));

describe('the studio applies the spending cap the person set to every run it starts', () => {
  it('is kept in the config folder and stops a run at the round that reaches it', async () => {
    const s = contractStudio();
    expect(await s.call('settings:spending-cap', {})).toEqual({ maxTokens: null, maxCost: null, problem: null });
    expect(await s.call('settings:set-spending-cap', { maxTokens: 100, maxCost: null })).toEqual({
      maxTokens: 100,
      maxCost: null,
      problem: null,
    });
    const state = await s.call('workspace:open-example', {});
    const { runId } = await s.call('run:start', {
      script: 'agents/summarize-page.lua',
      replay: state.recordings['agents/summarize-page.lua']!,
    });
    const end = await s.ended(runId);
    expect(end.status).toBe('limit');
    expect(end.error?.kind).toBe('budget');
    expect(end.error?.message).toMatch(/^spending cap reached: round 2 brought the run to \d+ tokens \(cap 100\)$/);
    // Another studio (a restart) reads the same cap.
    expect((await contractStudio().call('settings:spending-cap', {})).maxTokens).toBe(100);
  });

  it('holds a case the Tests view runs to the cap too: a test file cannot lift it, only lower it', async () => {
    const s = contractStudio();
    await s.call('settings:set-spending-cap', { maxTokens: 100, maxCost: null });
    const state = await s.call('workspace:open-example', {});
    // A case that sets a far higher cap of its own, and one that sets a lower one.
    writeFileSync(
      path.join(state.root, 'tests', 'capped.yaml'),
      `cases:
  - name: asks for a million tokens
    agent: agents/summarize-page.lua
    approve: { tools: { read_page: approve } }
    model: { recording: recordings/summarize-page.jsonl }
    limits: { tokens: 1000000 }
    expect: { status: ok }
  - name: caps itself lower
    agent: agents/summarize-page.lua
    approve: { tools: { read_page: approve } }
    model: { recording: recordings/summarize-page.jsonl }
    limits: { tokens: 10 }
    expect: { status: limit }
`,
    );
    const listing = await s.call('tests:list', {});
    const cases = listing.files.find((file) => file.file === 'tests/capped.yaml')!.cases;
    const ended: Record<string, string | undefined> = {};
    for (const testCase of cases) {
      const { suiteRunId } = await s.call('tests:run', { case: testCase.id });
      // The suite's end (state no longer running) comes after its one result.
      const progress = await s.next('tests-progress', (p) => p.suiteRunId === suiteRunId && p.result !== undefined);
      ended[testCase.name] = progress.result!.run?.status;
      await s.next('tests-progress', (p) => p.suiteRunId === suiteRunId && p.state !== 'running');
    }
    expect(ended).toEqual({ 'asks for a million tokens': 'limit', 'caps itself lower': 'limit' });
  });

  it('refuses a cap that is not a positive number', async () => {
    const s = contractStudio();
    for (const cap of [
      { maxTokens: 0, maxCost: null },
      { maxTokens: -5, maxCost: null },
      { maxTokens: null, maxCost: 1e12 },
      { maxTokens: Number.NaN, maxCost: null },
    ])
      expect((await s.fail('settings:set-spending-cap', cap)).code).toBe('invalid-payload');
  });

  it('a cap file that cannot be read: no run starts without the cap, and the reason is shown', async () => {
    const s = contractStudio();
    const state = await s.call('workspace:open-example', {});
    writeFileSync(path.join(currentConfigDir(), SPENDING_CAP_FILE), '{ broken', { mode: 0o600 });
    const read = await s.call('settings:spending-cap', {});
    expect(read.problem).toMatch(/spending-cap\.json: not valid JSON/);
    const refused = await s.fail('run:start', {
      script: 'agents/summarize-page.lua',
      replay: state.recordings['agents/summarize-page.lua']!,
    });
    expect(refused.code).toBe('config-unreadable');
    expect(refused.message).toMatch(/^the spending cap could not be read, so no run starts/);
  });
});
