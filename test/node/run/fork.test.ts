import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../common/run-events.js';
import { readTranscript } from '../../../main/core/transcript/transcript-reader.js';
import { byAssistantCount, startScriptedServer, type ScriptedServer } from '../../fixtures/scripted-openai-server.js';
import { contractStudio, type ContractStudio } from '../studio/contract-studio.js';
import { trustForTests } from '../trust/trust-for-tests.js';

/** Replays the echo-loop example, as "Run offline" does: the run the tests fork. */
async function parentRun(studio: ContractStudio): Promise<{ root: string; runId: string; steps: number[] }> {
  const { root } = await studio.call('workspace:open-example', {});
  const { runId } = await studio.call('run:start', {
    script: 'agents/echo-loop.lua',
    replay: 'recordings/echo-loop.jsonl',
  });
  expect((await studio.ended(runId)).status).toBe('ok');
  // A replay streams each reply in one piece, so its steps are not the recording's: read them.
  const steps = studio
    .runEvents(runId)
    .flatMap((e) => (e.type === 'round-response' || e.type === 'tool-output' ? [e.seq] : []));
  expect(steps).toHaveLength(5);
  return { root, runId, steps };
}

function logs(events: RunEvent[]): string[] {
  return events.flatMap((e) => (e.type === 'log' ? [e.text] : []));
}

async function summaryOf(studio: ContractStudio, runId: string) {
  return (await studio.call('workspace:state', {}))!.runs.find((run) => run.runId === runId);
}

describe('run:fork in the studio', () => {
  it('forks a past run at a model step with an edited reply, offline, and records the parent', async () => {
    const studio = contractStudio();
    const { root, runId: parent, steps } = await parentRun(studio);
    const { runId: child } = await studio.call('run:fork', {
      runId: parent,
      step: steps[4]!,
      edit: { reply: 'Edited in the studio.' },
    });
    expect(child).not.toBe(parent);
    expect((await studio.ended(child)).status).toBe('ok');
    expect(logs(studio.runEvents(child))).toContain('model: Edited in the studio.');
    const start = readTranscript(path.join(root, 'runs', `${child}.jsonl`))[0];
    expect(start).toMatchObject({
      type: 'run-start',
      script: { path: 'agents/echo-loop.lua' },
      forkOf: {
        runId: parent,
        transcript: `runs/${parent}.jsonl`,
        step: steps[4],
        kind: 'model',
        then: 'replay',
      },
    });
    expect(await summaryOf(studio, child)).toMatchObject({
      agent: 'echo-loop',
      forkOf: { runId: parent, step: steps[4], edited: true },
    });
  });

  it('a step past the end is refused with the last step named', async () => {
    const studio = contractStudio();
    const { runId, steps } = await parentRun(studio);
    const error = await studio.fail('run:fork', { runId, step: 400 });
    expect(error.code).toBe('fork-past-end');
    expect(error.message).toContain(
      `fork point 400 is past the end of runs/${runId}.jsonl: its last step is ${steps[4]} (model round 3)`,
    );
  });

  it('an edit that does not fit the step, or an unknown run, is refused before anything runs', async () => {
    const studio = contractStudio();
    const { runId, steps } = await parentRun(studio);
    expect(await studio.fail('run:fork', { runId, step: steps[1]!, edit: { reply: 'no' } })).toMatchObject({
      code: 'fork-bad-edit',
    });
    expect(await studio.fail('run:fork', { runId: 'run-nope', step: 3 })).toMatchObject({ code: 'run-not-found' });
    expect(await studio.fail('run:fork', { runId, step: 0 })).toMatchObject({ code: 'invalid-payload' });
  });

  it('a script changed since the parent ran is refused with script-changed, and force forks it anyway', async () => {
    const studio = contractStudio();
    const { root, runId, steps } = await parentRun(studio);
    appendFileSync(path.join(root, 'agents/echo-loop.lua'), '-- changed after the run\n');
    const refused = await studio.fail('run:fork', { runId, step: steps[4]! });
    expect(refused.code).toBe('script-changed');
    expect(refused.message).toContain('agents/echo-loop.lua changed since run');
    const { runId: child } = await studio.call('run:fork', { runId, step: steps[4]!, force: true });
    expect((await studio.ended(child)).status).toBe('ok');
    expect(studio.runEvents(child)[0]).toMatchObject({ forkOf: { scriptChanged: true } });
  });

  it('a divergence before the fork point ends the fork with the replay error', async () => {
    const studio = contractStudio();
    const { root, runId, steps } = await parentRun(studio);
    const file = path.join(root, 'agents/echo-loop.lua');
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace(
        'tools.call(call.name, call.arguments)',
        "tools.call('echo', { text = 'other' })",
      ),
    );
    const { runId: child } = await studio.call('run:fork', { runId, step: steps[4]!, force: true });
    const end = await studio.ended(child);
    expect(end.status).toBe('error');
    expect(end.error?.message).toMatch(
      /^replay diverged at tool call 1 \(.*:\d+\): the script called tools\.call\('echo', \{"text":"other"\}\)/,
    );
  });

  it("an offline fork that diverges past its edited step says to choose a model (the studio's words)", async () => {
    const studio = contractStudio();
    const { runId, steps } = await parentRun(studio);
    const { runId: child } = await studio.call('run:fork', { runId, step: steps[1]!, edit: { output: 'HELLO' } });
    const end = await studio.ended(child);
    expect(end.status).toBe('error');
    expect(end.error?.message).toContain(
      `(after the fork's step ${steps[1]}: choose a model to go on live from there): message 4 differs`,
    );
    expect(end.error?.message).not.toContain('--model');
  });

  it('compare aligns a fork with its parent: the fork side, its step and row, agents and times', async () => {
    const studio = contractStudio();
    const { runId: parent, steps } = await parentRun(studio);
    const { runId: child } = await studio.call('run:fork', {
      runId: parent,
      step: steps[1]!,
      edit: { output: 'HELLO' },
    });
    await studio.ended(child);
    const page = await studio.call('history:compare', { left: parent, right: child });
    expect(page.fork).toEqual({ side: 'right', step: steps[1], row: 3 });
    expect(page.firstDifference).toBe(3);
    expect(page.rows[2]).toMatchObject({
      index: 3,
      same: false,
      left: expect.stringContaining('"hello"'),
      right: expect.stringContaining('"HELLO"'),
    });
    expect(page.left).toMatchObject({ runId: parent, agent: 'echo-loop', script: 'agents/echo-loop.lua' });
    expect(page.right.agent).toBe('echo-loop');
    expect(Date.parse(page.right.startedAt)).toBeGreaterThanOrEqual(Date.parse(page.left.startedAt));
    expect(page.scriptsDiffer).toBe(false);
    // The other way round, the fork is on the left.
    expect((await studio.call('history:compare', { left: child, right: parent })).fork).toEqual({
      side: 'left',
      step: steps[1],
      row: 3,
    });
  });
});

describe('run:fork with a model goes on live past the step', () => {
  let server: ScriptedServer;
  beforeAll(async () => {
    server = await startScriptedServer(byAssistantCount([{ content: 'unused' }, { content: 'Live after the fork.' }]));
  });
  afterAll(() => server.close());

  it('answers round 1 from the parent and round 2 from the chosen model', async () => {
    const studio = contractStudio();
    const { root, runId: parent, steps } = await parentRun(studio);
    appendFileSync(
      path.join(root, 'models.yaml'),
      `\nscripted:\n  provider: openai-compatible\n  model: gpt-fork\n  baseUrl: ${server.url}\n`,
    );
    await studio.next('workspace-changed', (state) => state.models.some((m) => m.alias === 'scripted'));
    const before = server.requests.length;
    const { runId: child } = await studio.call('run:fork', {
      runId: parent,
      step: steps[1]!,
      edit: { output: 'HELLO' },
      model: 'scripted',
    });
    const end = await studio.ended(child);
    expect(end.status, JSON.stringify(end.error)).toBe('ok');
    expect(logs(studio.runEvents(child))).toContain('model: Live after the fork.');
    expect(server.requests.length - before).toBe(1);
    expect((server.requests.at(-1) as { messages: { content: string }[] }).messages.at(-1)?.content).toBe('HELLO');
    expect(await summaryOf(studio, child)).toMatchObject({
      model: { alias: 'scripted', provider: 'openai-compatible', modelId: 'gpt-fork' },
    });
  });
});

describe('run:fork of a live run (one still waiting for an approval)', () => {
  let server: ScriptedServer;
  beforeAll(async () => {
    server = await startScriptedServer(
      byAssistantCount([
        { toolCalls: [{ id: 'call_page', name: 'read_page', arguments: '{"name":"release-notes"}' }] },
        { content: 'Two bullets.' },
      ]),
    );
  });
  afterAll(() => server.close());

  /** Runs summarize-page live until it waits for a person to approve its read_page call. */
  async function waitingParent(studio: ContractStudio) {
    const { root } = await studio.call('workspace:open-example', {});
    appendFileSync(
      path.join(root, 'models.yaml'),
      `\nscripted:\n  provider: openai-compatible\n  model: gpt-live\n  baseUrl: ${server.url}\n`,
    );
    await studio.next('workspace-changed', (state) => state.models.some((m) => m.alias === 'scripted'));
    // Not about workspace trust: the new model's base URL changed the manifest, and read_page is a
    // command tool, which a restricted workspace refuses before asking anyone. Trusted as it is now.
    await trustForTests(root);
    const { runId } = await studio.call('run:start', { script: 'agents/summarize-page.lua', model: 'scripted' });
    const pending = await studio.next('approval-pending', (p) => p.runId === runId);
    const step = studio.runEvents(runId).find((e) => e.type === 'round-response')!.seq;
    return { root, runId, pending, step, transcript: path.join(root, 'runs', `${runId}.jsonl`) };
  }

  it('forks an already recorded step at once, reads past a half-written last line, and leaves the parent waiting', async () => {
    const studio = contractStudio();
    const parent = await waitingParent(studio);
    // Another process reading the transcript may catch a line half-written: append one.
    const written = readFileSync(parent.transcript);
    appendFileSync(parent.transcript, '{"type":"log","runId":"');
    const { runId: child } = await studio.call('run:fork', {
      runId: parent.runId,
      step: parent.step,
      edit: { reply: 'No page needed.', calls: [] },
    });
    writeFileSync(parent.transcript, written);
    const end = await studio.ended(child);
    expect(end.status, JSON.stringify(end.error)).toBe('ok');
    expect(logs(studio.runEvents(child))).toContain('model: No page needed.');
    expect(studio.runEvents(child)[0]).toMatchObject({
      type: 'run-start',
      forkOf: { runId: parent.runId, step: parent.step, kind: 'model', then: 'replay' },
    });

    // The parent still waits on its call, unaffected; approved, it ends as it would have.
    expect((await studio.call('approval:list', {})).map((p) => p.callId)).toEqual([parent.pending.callId]);
    expect(studio.runEvents(parent.runId).some((e) => e.type === 'run-end')).toBe(false);
    expect(await summaryOf(studio, parent.runId)).toMatchObject({ status: 'running' });
    await studio.call('approval:decide', {
      runId: parent.runId,
      callId: parent.pending.callId,
      decision: { kind: 'approve' },
    });
    expect((await studio.ended(parent.runId)).status).toBe('ok');
    expect(logs(readTranscript(parent.transcript))).toContain('model: Two bullets.');
  });

  it('a step not recorded yet is past the end; replay past the step stops at the call still waiting', async () => {
    const studio = contractStudio();
    const parent = await waitingParent(studio);
    const last = studio.runEvents(parent.runId).at(-1)!.seq;
    const error = await studio.fail('run:fork', { runId: parent.runId, step: last + 1 });
    expect(error.code).toBe('fork-past-end');
    expect(error.message).toContain(
      `fork point ${last + 1} is past the end of runs/${parent.runId}.jsonl: its last step is ${parent.step} (model round 1)`,
    );
    expect(error.message).toContain('the run has not ended');

    const { runId: child } = await studio.call('run:fork', { runId: parent.runId, step: parent.step });
    const end = await studio.ended(child);
    expect(end.status).toBe('error');
    expect(end.error?.message).toMatch(
      /^replay reached tool call 1 \(.*:\d+\), tools\.call\('read_page', \{"name":"release-notes"\}\), but the recording holds no outcome for it/,
    );
    expect((await studio.call('approval:list', {})).map((p) => p.runId)).toEqual([parent.runId]);
    await studio.call('run:stop', { runId: parent.runId });
    expect((await studio.ended(parent.runId)).status).toBe('stopped');
  });
});
