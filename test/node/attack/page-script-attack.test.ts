import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractMethodNames, type ContractMethodName } from '../../../common/contract.js';
import type { RunEvent } from '../../../common/run-events.js';
import type { StudioService } from '../../../main/core/studio/studio-service.js';
import { MAX_STUDIO_RUNS } from '../../../main/core/studio/studio-runs.js';
import { createGlue, studioHandlers, type Glue } from '../app/glue-fixture.js';

/**
 * A script in the page tries to make main show its dialogs (a question, the folder picker, the
 * save dialog) without the person: with no press at all, by calling every method of the contract;
 * with one press, by firing many calls at once; and by starting runs whose model needs a question.
 * Main shows a dialog only for a call a fresh press came with, one per press. Then it starts run
 * after run, each a worker thread of its own: main keeps at most MAX_STUDIO_RUNS in progress.
 */

const workspace = realpathSync(mkdtempSync(path.join(tmpdir(), 'pf-dialog-attack-')));
mkdirSync(path.join(workspace, 'agents'));
writeFileSync(path.join(workspace, 'promptforge.yaml'), 'defaultModel: elsewhere\n');
writeFileSync(
  path.join(workspace, 'models.yaml'),
  'elsewhere:\n  provider: openai\n  model: gpt-test\n  baseUrl: http://127.0.0.1:9/v1\n',
);
writeFileSync(
  path.join(workspace, 'agents', 'chat.lua'),
  "local reply = models.chat({ { role = 'user', content = 'hi' } })\nlog(reply.content)\n",
);
writeFileSync(
  path.join(workspace, 'agents', 'pick.lua'),
  "for i = 1, 5 do pcall(models.chat, { { role = 'user', content = 'hi' } }, { model = 'elsewhere' }) end\n",
);

writeFileSync(path.join(workspace, 'agents', 'spin.lua'), 'while true do end\n');

mkdirSync(path.join(workspace, 'tests'));
writeFileSync(
  path.join(workspace, 'tests', 'origin.yaml'),
  'cases:\n  - name: chats with the model of another origin\n    agent: agents/chat.lua\n    model: elsewhere\n    expect:\n      status: ok\n',
);

/** Every dialog main showed, by kind. */
const shown: string[] = [];
let glue: Glue;
let service: StudioService;

beforeAll(async () => {
  glue = createGlue((sendEvent) => {
    const studio = studioHandlers(sendEvent, {
      confirmPerson: async (question) => (shown.push(`question: ${question.title}`), true),
      chooseFolder: async () => (shown.push('folder picker'), workspace),
      chooseSaveFile: async () => (shown.push('save dialog'), path.join(workspace, 'export.jsonl')),
      // The system browser counts as one of main's dialogs here: a script must not open it either.
      openExternal: async (url) => void shown.push(`browser: ${url}`),
    });
    service = studio.service;
    return studio.handlers;
  });
  // The person opens the workspace (one press, one dialog: the folder picker) and trusts nothing.
  glue.click();
  const chosen = (await glue.invoke('workspace:choose', {})) as { value: { path: string } };
  await glue.invoke('workspace:open', { path: chosen.value.path });
  shown.length = 0;
});
afterAll(async () => {
  await service.close();
  rmSync(workspace, { recursive: true, force: true });
});

/** A plausible request for each method (what a page script would send to raise a dialog). */
function requestFor(method: ContractMethodName, runId: string): unknown {
  const requests: Record<ContractMethodName, unknown> = {
    'app:info': {},
    'workspace:choose': {},
    'workspace:open': { path: workspace },
    'workspace:recent': {},
    'workspace:forget-recent': { path: workspace },
    'workspace:open-example': {},
    'workspace:state': {},
    'file:read': { path: 'agents/chat.lua' },
    'file:write': { path: 'agents/chat.lua', text: "log('x')\n" },
    'file:create': { name: 'planted' },
    'file:save-as': { name: 'planted-copy', text: "log('x')\n" },
    'file:rename': { path: 'agents/planted.lua', name: 'planted-renamed' },
    'file:delete': { path: 'agents/pick.lua' },
    'files:list': {},
    'file:view': { path: 'agents/chat.lua' },
    'model:choose': { path: 'agents/chat.lua', model: 'elsewhere' },
    'settings:spending-cap': {},
    'settings:set-spending-cap': { maxTokens: null, maxCost: null },
    'model:make-default': { path: 'agents/chat.lua', model: 'elsewhere' },
    'tool:trial': { alias: 'echo', arguments: { text: 'hi' } },
    'args:check': { alias: 'echo', arguments: { text: 'hi' } },
    'catalog:check': { file: 'tools.yaml', text: '' },
    'catalog:write': { file: 'tools.yaml', text: '' },
    'run:start': { script: 'agents/chat.lua' },
    'run:fork': { runId, step: 1, model: 'elsewhere', force: true },
    'run:stop': { runId },
    'approval:list': {},
    'approval:decide': { runId, callId: 'call-1', decision: { kind: 'approve' } },
    'keys:status': {},
    'keys:set': { provider: 'openai', key: 'sk-planted-by-the-page-000000' },
    'keys:delete': { provider: 'openai' },
    'history:export': { runId },
    'history:page': { runId, from: 0, count: 10 },
    'history:compare': { left: runId, right: runId },
    'mcp:list': {},
    'mcp:status': {},
    'mcp:restart': { server: 'none' },
    'mcp:stop': { server: 'none' },
    'trust:status': {},
    'trust:grant': { digest: 'whatever' },
    'trust:list': {},
    'trust:revoke': { path: workspace },
    'trust:allow-key-origin': { model: 'elsewhere' },
    'trust:revoke-key-origin': { provider: 'openai', origin: 'http://127.0.0.1:9' },
    'tests:list': {},
    'tests:run': {},
    'tests:stop': {},
    'tests:create': { name: 'planted-tests' },
    'rules:list': {},
    'rules:propose': { runId, callId: 'call-1' },
    'rules:describe': { rule: { id: 'planted', decision: 'allow', workspace: '*', tools: '*' } },
    'rules:save': { rule: { id: 'planted', decision: 'allow', workspace: '*', tools: '*' } },
    'rules:set-enabled': { id: 'planted', enabled: true },
    'rules:delete': { id: 'planted' },
    'mcp:questions': {},
    'mcp:check-answer': { id: 'elicitation-1', content: {} },
    'mcp:answer': { id: 'elicitation-1', answer: { action: 'accept' } },
    'mcp:decide-sampling': { id: 'sampling-1', decision: { kind: 'approve' } },
    'mcp:resources': { server: 'none' },
    'mcp:prompts': { server: 'none' },
    'mcp:read-resource': { server: 'none', uri: 'text://x' },
    'mcp:get-prompt': { server: 'none', name: 'x', arguments: {} },
    'mcp:login-state': { server: 'none' },
    'mcp:login': { server: 'none' },
    'mcp:cancel-login': { server: 'none' },
    'mcp:logout': { server: 'none' },
  };
  return requests[method];
}

const runEnd = (runId: string): Promise<RunEvent> =>
  new Promise((resolve) => {
    const check = (): void => {
      const end = glue.sent.find(
        (entry) =>
          entry.channel === 'run-event' &&
          (entry.payload as RunEvent).runId === runId &&
          (entry.payload as RunEvent).type === 'run-end',
      );
      if (end) resolve(end.payload as RunEvent);
      else setImmediate(check);
    };
    check();
  });

describe('a page script raising main’s dialogs', () => {
  it('with no press, no method of the contract shows any dialog, and runs it starts are refused, not asked', async () => {
    // A run of the workspace's own agent, for the methods that name one.
    const started = (await glue.invoke('run:start', { script: 'agents/chat.lua' })) as { value: { runId: string } };
    const runId = started.value.runId;
    await runEnd(runId);
    // A script picking the model five times in its middle: five refusals, no question.
    const picked = (await glue.invoke('run:start', { script: 'agents/pick.lua' })) as { value: { runId: string } };
    expect(await runEnd(picked.value.runId)).toMatchObject({ status: 'ok' });
    expect(shown).toEqual([]);
    // Then every method of the contract (workspace:open-example opens the example on the way).
    for (const method of contractMethodNames) {
      glue.clock.now += 60_000;
      const result = (await glue.invoke(method, requestFor(method, runId))) as { ok: boolean; value?: unknown };
      // A run that started (run:start, run:fork, tool:trial) asks nothing when it picks a model either.
      const startedRun = (result.value as { runId?: string } | undefined)?.runId;
      if (result.ok && startedRun) await runEnd(startedRun);
    }
    expect(shown).toEqual([]);
  });

  it('one press pays for one dialog, however many calls the page fires at once on it', async () => {
    glue.clock.now += 60_000;
    glue.click();
    const calls = [
      ...Array.from({ length: 5 }, () => glue.invoke('keys:set', requestFor('keys:set', 'x'))),
      ...Array.from({ length: 5 }, () => glue.invoke('workspace:choose', {})),
      ...Array.from({ length: 5 }, () => glue.invoke('run:start', { script: 'agents/chat.lua' })),
    ];
    const results = (await Promise.all(calls)) as Array<{ ok: boolean; value?: { runId?: string } }>;
    for (const result of results) if (result.ok && result.value?.runId) await runEnd(result.value.runId);
    expect(shown).toHaveLength(1);
    expect(results.filter((result) => result.ok)).toHaveLength(1 + 5);
  });
});

describe('a page script running the workspace’s tests', () => {
  it('a case whose live model goes to a new origin is refused, never asked about, even with a press', async () => {
    glue.clock.now += 60_000;
    glue.click();
    const chosen = (await glue.invoke('workspace:choose', {})) as { value: { path: string } };
    await glue.invoke('workspace:open', { path: chosen.value.path });
    shown.length = 0;
    glue.click();
    const started = (await glue.invoke('tests:run', {})) as { ok: boolean; value: { suiteRunId: string } };
    expect(started.ok).toBe(true);
    const finished = await new Promise<{ counts: { errors: number; failed: number }; result?: unknown }>((resolve) => {
      const check = (): void => {
        const done = glue.sent.find(
          (entry) =>
            entry.channel === 'tests-progress' &&
            (entry.payload as { suiteRunId: string; state: string }).suiteRunId === started.value.suiteRunId &&
            (entry.payload as { state: string }).state !== 'running',
        );
        if (done) resolve(done.payload as never);
        else setImmediate(check);
      };
      check();
    });
    expect(finished.counts.errors + finished.counts.failed).toBe(1);
    const results = glue.sent
      .filter((entry) => entry.channel === 'tests-progress')
      .map((entry) => JSON.stringify((entry.payload as { result?: unknown }).result ?? ''))
      .join('\n');
    expect(results).toContain('never in the middle of one');
    expect(shown).toEqual([]);
  });
});

describe('a page script starting run after run', () => {
  it('gets at most MAX_STUDIO_RUNS in progress at once; the rest are refused, saying how to go on', async () => {
    glue.clock.now += 60_000;
    // The workspace is the example by now (a test above opened it): open the attack's own again.
    glue.click();
    const chosen = (await glue.invoke('workspace:choose', {})) as { value: { path: string } };
    await glue.invoke('workspace:open', { path: chosen.value.path });
    const results = (await Promise.all(
      Array.from({ length: MAX_STUDIO_RUNS * 3 }, () => glue.invoke('run:start', { script: 'agents/spin.lua' })),
    )) as Array<{ ok: boolean; value?: { runId: string }; error?: { code: string; message: string } }>;
    const started = results.flatMap((result) => (result.ok ? [result.value!.runId] : []));
    expect(started).toHaveLength(MAX_STUDIO_RUNS);
    const refused = results.filter((result) => !result.ok);
    expect(new Set(refused.map((result) => result.error!.code))).toEqual(new Set(['too-many-runs']));
    expect(refused[0]!.error!.message).toContain('stop one (or wait until one ends), then start this again');
    // A trial is a run too.
    expect(await glue.invoke('tool:trial', { alias: 'echo', arguments: { text: 'x' } })).toMatchObject({
      error: { code: 'too-many-runs' },
    });
    // Stopped, they make room again.
    await Promise.all(started.map((runId) => glue.invoke('run:stop', { runId })));
    await Promise.all(started.map((runId) => runEnd(runId)));
    const again = (await glue.invoke('run:start', { script: 'agents/spin.lua' })) as {
      ok: boolean;
      value: { runId: string };
    };
    expect(again.ok).toBe(true);
    await glue.invoke('run:stop', { runId: again.value.runId });
    await runEnd(again.value.runId);
  }, 120_000);
});
