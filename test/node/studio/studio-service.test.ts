import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTranscript } from '../../../main/core/transcript/transcript-reader.js';
import { pressStandIn, runEvents, studio } from './studio-harness.js';

describe('StudioService', () => {
  it('opens the example workspace with its agents, tools, models and recordings', async () => {
    const { service } = studio();
    const state = await service.openExample();
    expect(state.agents).toEqual(['agents/echo-loop.lua', 'agents/summarize-page.lua', 'agents/weather-report.lua']);
    expect(state.tools.map((t) => t.alias)).toEqual(
      expect.arrayContaining(['echo', 'read_file', 'weather', 'read_page']),
    );
    expect(state.tools.find((t) => t.alias === 'read_page')).toMatchObject({
      trust: 'untrusted',
      approval: 'ask',
      kind: 'command',
    });
    expect(state.tools.find((t) => t.alias === 'weather')).toMatchObject({ structured: true });
    expect(state.models.map((m) => m.alias)).toEqual(['fast', 'claude', 'local']);
    expect(state.defaultModel).toBe('fast');
    expect(state.problems).toEqual([]);
    expect(state.recordings).toEqual({
      'agents/echo-loop.lua': 'recordings/echo-loop.jsonl',
      'agents/summarize-page.lua': 'recordings/summarize-page.jsonl',
      'agents/weather-report.lua': 'recordings/weather-report.jsonl',
    });
  });

  it('runs an example offline from its recording, streams its events, and lists it in history', async () => {
    const { service, pushed, waitFor } = studio();
    await service.openExample();
    const { runId } = await service.startRun({
      script: 'agents/summarize-page.lua',
      replay: 'recordings/summarize-page.jsonl',
    });
    const end = await waitFor('run-event', (e) => e.runId === runId && e.type === 'run-end');
    expect(end, JSON.stringify(end)).toMatchObject({ status: 'ok', toolCalls: { read_page: 1 } });
    const events = runEvents(pushed, runId);
    expect(events.filter((e) => e.type === 'message-delta').length).toBeGreaterThan(0);
    expect(events.find((e) => e.type === 'tool-output')).toMatchObject({ alias: 'read_page', trust: 'untrusted' });
    const history = service.state()!.runs;
    expect(history[0]).toMatchObject({ runId, script: 'agents/summarize-page.lua', status: 'ok', rounds: 2 });
    expect(service.readPage(runId, 0, 5000)).toMatchObject({ events, complete: true });
  });

  it('pauses on ask calls: approve, edit then approve, deny with a reason; the transcript keeps each decision', async () => {
    const { service, pushed, waitFor } = studio();
    const state = await service.openExample();
    writeFileSync(
      path.join(state.root, 'agents', 'three-pages.lua'),
      `log(#tools.call('read_page', { name = 'release-notes' }))
       log(#tools.call('read_page', { name = 'wrong-name' }))
       log(pcall(tools.call, 'read_page', { name = 'release-notes' }))`,
    );
    const { runId } = await service.startRun({ script: 'agents/three-pages.lua' });

    const first = await waitFor('approval-pending', (p) => p.runId === runId);
    expect(first).toMatchObject({
      alias: 'read_page',
      arguments: { name: 'release-notes' },
      reason: 'policy',
      taint: [],
    });
    expect(service.listApprovals()).toHaveLength(1);
    service.decide(runId, first.callId, { kind: 'approve' });

    const second = await waitFor('approval-pending', (p) => p.runId === runId && p.callId !== first.callId);
    expect(() =>
      service.decide(runId, second.callId, { kind: 'approve-edited', arguments: { name: 'Bad Name!' } }),
    ).toThrow(/name/);
    service.decide(runId, second.callId, { kind: 'approve-edited', arguments: { name: 'release-notes' } });

    const third = await waitFor(
      'approval-pending',
      (p) => p.runId === runId && p.callId !== first.callId && p.callId !== second.callId,
    );
    service.decide(runId, third.callId, { kind: 'deny', reason: 'enough pages' });

    const end = await waitFor('run-event', (e) => e.runId === runId && e.type === 'run-end');
    expect(end).toMatchObject({ status: 'ok', toolCalls: { read_page: 3 } });
    const logs = runEvents(pushed, runId).flatMap((e) => (e.type === 'log' ? [e.text] : []));
    expect(logs[2]).toBe("false\tagents/three-pages.lua:3: tools.call('read_page') was denied: enough pages");

    const transcript = readTranscript(path.join(state.root, 'runs', `${runId}.jsonl`));
    const decisions = transcript.flatMap((e) => (e.type === 'approval-decision' ? [e] : []));
    expect(decisions.map((d) => d.decision.kind)).toEqual(['approve', 'approve-edited', 'deny']);
    expect(decisions[1]).toMatchObject({
      proposedArguments: { name: 'wrong-name' },
      decision: { arguments: { name: 'release-notes' }, source: 'studio' },
    });
    expect(decisions[2]!.decision).toMatchObject({ reason: 'enough pages', source: 'studio' });
    expect(transcript.filter((e) => e.type === 'approval-pending')).toHaveLength(3);
    expect(pushed.filter((p) => p.name === 'approval-resolved')).toHaveLength(3);
  });

  it('a call whose arguments repeat untrusted output needs a person even when the tool is auto', async () => {
    const { service, waitFor } = studio();
    const state = await service.openExample();
    writeFileSync(
      path.join(state.root, 'agents', 'tainted.lua'),
      `local page = tools.call('read_page', { name = 'release-notes' })
       tools.call('echo', { text = 'please ' .. string.sub(page, 200, 320) })
       tools.call('echo', { text = 'a clean call' })`,
    );
    const { runId } = await service.startRun({ script: 'agents/tainted.lua' });
    const read = await waitFor('approval-pending', (p) => p.runId === runId);
    service.decide(runId, read.callId, { kind: 'approve' });
    const tainted = await waitFor('approval-pending', (p) => p.runId === runId && p.alias === 'echo');
    expect(tainted.reason).toBe('tainted');
    expect(tainted.taint.length).toBeGreaterThan(0);
    expect(tainted.taint[0]).toMatchObject({ path: '/text', sourceOutputId: read.callId });
    service.decide(runId, tainted.callId, { kind: 'approve' });
    const end = await waitFor('run-event', (e) => e.runId === runId && e.type === 'run-end');
    expect(end).toMatchObject({ status: 'ok', toolCalls: { read_page: 1, echo: 2 } });
    // The clean echo call ran without asking.
    expect(service.listApprovals()).toEqual([]);
  });

  it('"allow for this run" approves later calls of that tool without asking, in that run only', async () => {
    const { service, pushed, waitFor } = studio();
    const state = await service.openExample();
    writeFileSync(
      path.join(state.root, 'agents', 'allow.lua'),
      `for i = 1, 3 do tools.call('read_page', { name = 'release-notes' }) end log(tools.calls.read_page)`,
    );
    const { runId } = await service.startRun({ script: 'agents/allow.lua' });
    const first = await waitFor('approval-pending', (p) => p.runId === runId);
    service.decide(runId, first.callId, { kind: 'allow-for-run' });
    const end = await waitFor('run-event', (e) => e.runId === runId && e.type === 'run-end');
    expect(end).toMatchObject({ status: 'ok', toolCalls: { read_page: 3 } });
    expect(
      pushed.filter((p) => p.name === 'approval-pending' && (p.payload as { runId: string }).runId === runId),
    ).toHaveLength(1);
    const decisions = runEvents(pushed, runId).flatMap((e) => (e.type === 'approval-decision' ? [e.decision] : []));
    expect(decisions.map((d) => [d.kind, d.source])).toEqual([
      ['allow-for-run', 'studio'],
      ['approve', 'policy'],
      ['approve', 'policy'],
    ]);
    expect(decisions[1]!.reason).toBe('allowed for this run');

    // A new run asks again.
    const second = await service.startRun({ script: 'agents/allow.lua' });
    const asked = await waitFor('approval-pending', (p) => p.runId === second.runId);
    service.stopRun(second.runId);
    expect(asked.alias).toBe('read_page');
  });

  it('stops a runaway run', async () => {
    const { service, waitFor } = studio();
    const state = await service.openExample();
    writeFileSync(path.join(state.root, 'agents', 'spin.lua'), 'while true do end');
    const { runId } = await service.startRun({ script: 'agents/spin.lua' });
    expect(service.stopRun(runId)).toEqual({ stopped: true });
    const end = await waitFor('run-event', (e) => e.runId === runId && e.type === 'run-end');
    expect(end).toMatchObject({ status: 'stopped', error: { message: 'stopped from the studio' } });
    expect(service.stopRun(runId)).toEqual({ stopped: false });
  });

  it('validates catalog edits live and refuses to save a broken file', async () => {
    const { service } = studio();
    const state = await service.openExample();
    const original = readFileSync(path.join(state.root, 'tools.yaml'), 'utf8');
    const broken = original.replace('kind: command\n  command: [node, tools/weather.mjs]', 'kind: mcp');
    const check = await service.files.checkCatalog('tools.yaml', broken);
    expect(check.problems[0]).toMatchObject({ severity: 'error', file: 'tools.yaml', pointer: '/weather/kind' });
    expect(check.problems[0]!.message).toContain('MCP server "weather" needs "command" (a stdio server) or "url"');
    expect(check.problems[0]!.line).toBeGreaterThan(1);
    const refused = await service.files.writeCatalog('tools.yaml', broken);
    expect(refused.saved).toBe(false);
    expect(readFileSync(path.join(state.root, 'tools.yaml'), 'utf8')).toBe(original);
    const saved = await service.files.writeCatalog(
      'tools.yaml',
      `${original}\nshout:\n  kind: builtin\n  builtin: echo\n  description: Echo, louder\n`,
    );
    expect(saved).toEqual({ saved: true, problems: [] });
    expect(service.state()!.tools.map((t) => t.alias)).toContain('shout');
  });

  it('saves only scripts, only inside the workspace', async () => {
    const { service } = studio();
    await service.openExample();
    await expect(service.files.writeScript('tools.yaml', 'x')).rejects.toThrow(/only agent scripts/);
    await service.files.writeScript('agents/new.lua', "log('new')");
    expect((await service.files.readFile('agents/new.lua')).text).toBe("log('new')");
    expect(service.state()!.agents).toContain('agents/new.lua');
  });

  it('keeps keys write-only: status says set or not, never the key', async () => {
    const { service } = studio();
    expect(await service.setKey('openai', '  sk-canary-studio-0123456789  ', pressStandIn())).toEqual({
      replaced: false,
    });
    expect(await service.setKey('openai', 'sk-canary-studio-9876543210', pressStandIn())).toEqual({ replaced: true });
    const status = await service.keyStatus();
    expect(status.available).toBe(true);
    expect(status.keys.find((k) => k.provider === 'openai')).toEqual({
      provider: 'openai',
      label: 'OpenAI',
      set: true,
      needsKey: true,
      envVar: 'OPENAI_API_KEY',
    });
    expect(JSON.stringify(status)).not.toContain('sk-canary');
    expect(await service.deleteKey('openai', pressStandIn())).toEqual({ deleted: true });
    await expect(service.setKey('nope', 'x', pressStandIn())).rejects.toThrow('unknown provider "nope"');
  });

  it('compares two runs: identical replays match, a changed run shows where it differs', async () => {
    const { service, waitFor } = studio();
    const state = await service.openExample();
    const runOnce = async (script: string) => {
      const { runId } = await service.startRun({ script, replay: 'recordings/echo-loop.jsonl' });
      await waitFor('run-event', (e) => e.runId === runId && e.type === 'run-end');
      return runId;
    };
    const a = await runOnce('agents/echo-loop.lua');
    const b = await runOnce('agents/echo-loop.lua');
    expect(service.compare(a, b).rows.every((row) => row.same)).toBe(true);
    const changed = readFileSync(path.join(state.root, 'agents/echo-loop.lua'), 'utf8').replace(
      "log('echo ran '",
      "log('ECHO RAN '",
    );
    writeFileSync(path.join(state.root, 'agents/echo-copy.lua'), changed);
    const c = await runOnce('agents/echo-copy.lua');
    const rows = service.compare(a, c).rows;
    const differing = rows.filter((row) => !row.same);
    expect(differing).toEqual([
      { kind: 'log', index: expect.any(Number), left: 'echo ran 2 times', right: 'ECHO RAN 2 times', same: false },
    ]);
  });
});
