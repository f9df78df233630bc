import { trustForTests } from '../trust/trust-for-tests.js';
import { appendFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../common/run-events.js';
import type { RunSummary } from '../../../common/studio-schemas.js';
import { changedPart } from '../../../renderer/src/history/compare-diff.js';
import { forkTree } from '../../../renderer/src/history/fork-tree.js';
import { byAssistantCount, startScriptedServer, type ScriptedServer } from '../../fixtures/scripted-openai-server.js';
import { contractStudio, type ContractStudio } from '../studio/contract-studio.js';

async function summaryOf(studio: ContractStudio, runId: string): Promise<RunSummary | undefined> {
  return (await studio.call('workspace:state', {}))!.runs.find((run) => run.runId === runId);
}

function runStart(studio: ContractStudio, runId: string): Extract<RunEvent, { type: 'run-start' }> {
  const start = studio.runEvents(runId)[0];
  if (start?.type !== 'run-start') throw new Error(`no run-start of ${runId}`);
  return start;
}

describe('run summaries say what a header needs', () => {
  let server: ScriptedServer;
  beforeAll(async () => {
    server = await startScriptedServer(
      byAssistantCount([
        { content: '', toolCalls: [{ id: 'call_1', name: 'echo', arguments: '{"text":"hi"}' }] },
        { content: 'Done.' },
      ]),
    );
  });
  afterAll(() => server.close());

  it('a replay names its agent and the recorded model, and says it was replayed', async () => {
    const studio = contractStudio();
    await studio.call('workspace:open-example', {});
    const { runId } = await studio.call('run:start', {
      script: 'agents/weather-report.lua',
      replay: 'recordings/weather-report.jsonl',
    });
    const end = await studio.ended(runId);
    const summary = await summaryOf(studio, runId);
    // The model the recording says answered, not the replay stand-in.
    const recorded = runStart(studio, runId).model;
    expect(recorded).toBeDefined();
    expect(summary).toMatchObject({
      agent: 'weather-report',
      script: 'agents/weather-report.lua',
      model: recorded,
      replayed: true,
      status: 'ok',
      durationMs: end.durationMs,
      rounds: 2,
      startedAt: runStart(studio, runId).t,
    });
  });

  it('a live run names the model that answered, its cost and duration', async () => {
    const studio = contractStudio();
    const { root } = await studio.call('workspace:open-example', {});
    appendFileSync(
      path.join(root, 'models.yaml'),
      `\npriced:\n  provider: openai-compatible\n  model: gpt-priced\n  baseUrl: ${server.url}\n  price: { inputPerMillion: 1000, outputPerMillion: 2000 }\n`,
    );
    await studio.next('workspace-changed', (state) => state.models.some((m) => m.alias === 'priced'));
    // A new base URL changes the example's manifest: the person trusts it again (not the subject here).
    await trustForTests(root);
    const { runId } = await studio.call('run:start', { script: 'agents/echo-loop.lua', model: 'priced' });
    const end = await studio.ended(runId);
    expect(end.status, JSON.stringify(end.error)).toBe('ok');
    const summary = (await summaryOf(studio, runId))!;
    expect(summary.model).toEqual({ alias: 'priced', provider: 'openai-compatible', modelId: 'gpt-priced' });
    expect(summary.replayed).toBeUndefined();
    expect(summary.cost).toBe(end.cost);
    expect(summary.cost).toBeGreaterThan(0);
    expect(summary.durationMs).toBe(end.durationMs);
  });
});

describe('the Runs list is live', () => {
  it('lists a run as running as soon as it starts, and as ended when it ends', async () => {
    const studio = contractStudio();
    const { root } = await studio.call('workspace:open-example', {});
    writeFileSync(path.join(root, 'agents/spin.lua'), "log('spinning')\nwhile true do end\n");
    // The watcher's own refresh for the new file comes first, so it cannot be what lists the run.
    await studio.next('workspace-changed', (state) => state.agents.includes('agents/spin.lua'));
    const { runId } = await studio.call('run:start', { script: 'agents/spin.lua' });
    const running = await studio.next('workspace-changed', (state) => state.runs.some((run) => run.runId === runId));
    expect(running.runs.find((run) => run.runId === runId)).toMatchObject({ status: 'running', agent: 'spin' });
    expect(await studio.call('run:stop', { runId })).toEqual({ stopped: true });
    const stopped = await studio.next('workspace-changed', (state) =>
      state.runs.some((run) => run.runId === runId && run.status !== 'running'),
    );
    expect(stopped.runs.find((run) => run.runId === runId)).toMatchObject({ status: 'stopped' });
  });
});

describe('history:compare says which runs it compares', () => {
  it('heads the columns with agent names and start times, and flags different scripts', async () => {
    const studio = contractStudio();
    await studio.call('workspace:open-example', {});
    const runOnce = async (agent: string) => {
      const { runId } = await studio.call('run:start', {
        script: `agents/${agent}.lua`,
        replay: `recordings/${agent}.jsonl`,
      });
      await studio.ended(runId);
      return runId;
    };
    const a = await runOnce('echo-loop');
    const b = await runOnce('echo-loop');
    const c = await runOnce('weather-report');
    const same = await studio.call('history:compare', { left: a, right: b });
    expect(same.scriptsDiffer).toBe(false);
    expect(same.fork).toBeNull();
    const different = await studio.call('history:compare', { left: a, right: c });
    expect(different.scriptsDiffer).toBe(true);
    expect(different.left).toMatchObject({ runId: a, agent: 'echo-loop', startedAt: runStart(studio, a).t });
    expect(different.right).toMatchObject({ runId: c, agent: 'weather-report', startedAt: runStart(studio, c).t });
    expect(different.left.scriptSha256).not.toBe(different.right.scriptSha256);
  });
});

describe('the history view: fork tree and in-row diff', () => {
  const run = (runId: string, startedAt: string, forkOf?: string): RunSummary => ({
    runId,
    file: `runs/${runId}.jsonl`,
    script: 'agents/a.lua',
    agent: 'a',
    startedAt,
    status: 'ok',
    toolCalls: {},
    rounds: 0,
    inputTokens: 0,
    outputTokens: 0,
    ...(forkOf && { forkOf: { runId: forkOf, step: 3, edited: false } }),
  });

  it('puts each fork under its parent, forks of forks deeper, and orphans at the top level', () => {
    // Newest first, as listRuns gives them.
    const runs = [run('d', '4', 'missing'), run('c', '3', 'b'), run('b', '2', 'a'), run('x', '2'), run('a', '1')];
    expect(forkTree(runs).map(({ run: r, depth }) => `${r.runId}:${depth}`)).toEqual([
      'd:0',
      'x:0',
      'a:0',
      'b:1',
      'c:2',
    ]);
  });

  it('lists every run once even when forks point at each other', () => {
    const tree = forkTree([run('a', '2', 'b'), run('b', '1', 'a')]);
    expect(tree.map(({ run: r }) => r.runId).sort()).toEqual(['a', 'b']);
  });

  it('marks only the changed words of a row', () => {
    expect(changedPart('echo({"text":"hello"})', 'weather({"city":"Oslo"})')).toEqual({
      before: '',
      changed: 'echo({"text":"hello',
      after: '"})',
    });
    expect(changedPart('"I echoed it all." [stop]', '"I echoed twice." [stop]')).toEqual({
      before: '"I echoed ',
      changed: 'it all',
      after: '." [stop]',
    });
    expect(changedPart('same', 'same')).toEqual({ before: 'same', changed: '', after: '' });
    expect(changedPart('only here', null)).toEqual({ before: '', changed: 'only here', after: '' });
  });
});
