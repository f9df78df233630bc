import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import {
  contractEventNames,
  contractMethodNames,
  type ContractEventName,
  type ContractEventPayload,
  type ContractMethodName,
  type ContractRequest,
} from '../../../common/contract.js';
import { type IpcResult } from '../../../common/contract-ipc.js';
import type { RunEvent } from '../../../common/run-events.js';
import { cloneProblem } from '../../../main/app/ipc-registration.js';
import { needsPersonInput } from '../../../main/core/studio/person-input.js';
import { repositoryRoot } from '../setup/project-copy.js';
import { usePreloadOnGlue } from './glue-fixture.js';
import { standInBrowser } from '../../fixtures/stand-in-browser.js';
import { startOAuthFixture } from '../mcp/fixtures/oauth-fixture.js';

// A studio session as the page has it: preload/index.ts on the stand-in electron module, the
// app's IPC registration on a stand-in ipcMain, and a real StudioService behind it. EVERY contract
// method is called through it, and every event is pushed: each reply and each event, success or
// error, must reach the page exactly as main produced it after IPC's structured clone.
vi.mock('electron', () => import('./stand-in-electron-module.js'));

const HOSTILE_MCP = path.join(repositoryRoot, 'test', 'fixtures', 'hostile-mcp-server.mjs');
// A server that asks the person things (forms, sampling) and lists resources and prompts, and one
// behind an OAuth sign-in (both on loopback).
const ASKING_MCP = path.join(repositoryRoot, 'test', 'node', 'mcp', 'fixtures', 'asking-server.mjs');
const oauth = await startOAuthFixture();
const workspace = realpathSync(mkdtempSync(path.join(tmpdir(), 'pf-glue-session-')));
const exported = path.join(workspace, '..', `${path.basename(workspace)}-export.jsonl`);
mkdirSync(path.join(workspace, 'agents'));
// A restricted workspace (an MCP server and a model of another origin to trust): every call asks.
const toolsYaml =
  `bad:\n  kind: mcp\n  description: hostile\n  command: ${JSON.stringify(process.execPath)}\n  args: [${JSON.stringify(HOSTILE_MCP)}]\n` +
  `ask:\n  kind: mcp\n  command: ${JSON.stringify(process.execPath)}\n  args: [${JSON.stringify(ASKING_MCP)}]\n  approval: auto\n` +
  `web:\n  kind: mcp\n  url: ${oauth.mcpUrl}\n`;
writeFileSync(path.join(workspace, 'tools.yaml'), toolsYaml);
writeFileSync(
  path.join(workspace, 'models.yaml'),
  'elsewhere:\n  provider: openai\n  model: gpt-test\n  baseUrl: http://127.0.0.1:9/v1\n' +
    // The model a server's sampling request would go to (denied here: nothing listens there).
    'local:\n  provider: openai-compatible\n  model: local-test\n  baseUrl: http://127.0.0.1:9/v1\n',
);
// A run during whose calls the server asks for a form and a model round, then changes its resources.
writeFileSync(
  path.join(workspace, 'agents', 'asks.lua'),
  "tools.call('ask.elicit', { variant = 'form' })\ntools.call('ask.sample', {})\ntools.call('ask.relist', {})\n",
);
const script = "log(tools.call('echo', { text = 'done' }))\n";
writeFileSync(path.join(workspace, 'agents', 'glue.lua'), script);
afterAll(async () => {
  await oauth.close();
  rmSync(workspace, { recursive: true, force: true });
  rmSync(exported, { force: true });
});

const studio = usePreloadOnGlue({
  // Main's dialogs, stand-ins: the folder dialog answers the test's workspace, the save dialog a
  // file beside it, and the person says yes.
  chooseFolder: async () => workspace,
  chooseSaveFile: async () => exported,
  confirmPerson: async () => true,
  // The person's browser, a stand-in: it consents and comes back to the studio's loopback listener.
  openExternal: async (url) => void (await standInBrowser(url)),
});

/** Every call the page made and what it received, with the reply main produced before IPC's clone. */
const made: Array<{ method: string; received: IpcResult<unknown>; produced: unknown }> = [];

/** Calls `method` from the page, after a press of the person (the gate is not what this test is about). */
async function send(method: string, request: unknown, press = true): Promise<IpcResult<unknown>> {
  if (press) studio.glue.click();
  const before = studio.glue.replies.length;
  const received = (await (studio.api as unknown as Record<string, (request: unknown) => Promise<unknown>>)[method]!(
    request,
  )) as IpcResult<unknown>;
  const reply = studio.glue.replies.slice(before).find((entry) => entry.channel === method);
  made.push({ method, received, produced: reply?.reply });
  return received;
}

/** {@link send}, failing the test on `{ ok: false }`. */
async function ok<M extends ContractMethodName>(method: M, request: ContractRequest<M>): Promise<unknown> {
  const result = await send(method, request);
  if (!result.ok) throw new Error(`${method}: ${result.error.code}: ${result.error.message}`);
  return result.value;
}

/** The next pushed `name` for which `match` holds, as the page's listener receives it. */
function next<E extends ContractEventName>(
  name: E,
  match: (payload: ContractEventPayload<E>) => boolean = () => true,
): Promise<ContractEventPayload<E>> {
  return new Promise((resolve) => {
    const stop = studio.api.on(name, (payload) => {
      if (!match(payload)) return;
      stop();
      resolve(payload);
    });
  });
}

const runEnd = (runId: string) =>
  next('run-event', (event) => (event as RunEvent).runId === runId && (event as RunEvent).type === 'run-end');

/**
 * One step per contract method, in an order a session can take: each calls its method (and may
 * set the stage for the next). A method added to the contract without a step here fails the test,
 * by name.
 */
const state = {
  runId: '',
  trialId: '',
  digest: '',
  rule: {} as Record<string, unknown>,
  ruleId: '',
  asksId: '',
  elicitation: '',
  sampling: '',
};
const steps: Record<ContractMethodName, () => Promise<unknown>> = {
  'app:info': () => ok('app:info', {}),
  'workspace:state': () => ok('workspace:state', {}),
  'workspace:recent': () => ok('workspace:recent', {}),
  'workspace:choose': () => ok('workspace:choose', {}),
  'workspace:open': () => ok('workspace:open', { path: workspace }),
  'workspace:forget-recent': () => ok('workspace:forget-recent', { path: workspace }),
  'file:read': () => ok('file:read', { path: 'agents/glue.lua' }),
  'file:write': () => ok('file:write', { path: 'agents/glue.lua', text: script }),
  'file:create': () => ok('file:create', { name: 'glue-made' }),
  'file:save-as': () => ok('file:save-as', { name: 'glue-copy', text: script }),
  'file:rename': () => ok('file:rename', { path: 'agents/glue-copy.lua', name: 'glue-renamed' }),
  'file:delete': () => ok('file:delete', { path: 'agents/glue-renamed.lua' }),
  'files:list': () => ok('files:list', {}),
  'file:view': () => ok('file:view', { path: 'agents/glue.lua' }),
  'model:choose': () => ok('model:choose', { path: 'agents/glue.lua', model: 'elsewhere' }),
  'settings:spending-cap': () => ok('settings:spending-cap', {}),
  'settings:set-spending-cap': () => ok('settings:set-spending-cap', { maxTokens: null, maxCost: null }),
  'model:make-default': () => ok('model:make-default', { path: 'agents/glue.lua', model: 'elsewhere' }),
  'catalog:check': () => ok('catalog:check', { file: 'tools.yaml', text: toolsYaml }),
  'catalog:write': () => ok('catalog:write', { file: 'tools.yaml', text: toolsYaml }),
  'args:check': () => ok('args:check', { alias: 'echo', arguments: { text: 42 } }),
  'run:start': async () => {
    // In Restricted mode every call asks: the run waits for the person.
    const waiting = next('approval-pending', (pending) => pending.alias === 'echo');
    state.runId = ((await ok('run:start', { script: 'agents/glue.lua' })) as { runId: string }).runId;
    await waiting;
  },
  'approval:list': () => ok('approval:list', {}),
  'approval:decide': async () => {
    const [pending] = (await studio.service.listApprovals()).filter((call) => call.runId === state.runId);
    const resolved = next('approval-resolved', (event) => event.callId === pending!.callId);
    const ended = runEnd(state.runId);
    await ok('approval:decide', { runId: state.runId, callId: pending!.callId, decision: { kind: 'approve' } });
    await resolved;
    await ended;
  },
  'run:fork': async () => {
    const ended = next('run-event', (event) => event.type === 'run-end' && event.runId !== state.runId);
    const forked = await send('run:fork', { runId: state.runId, step: 2, force: true });
    // Forked (it replays the approved call) or refused by the core: either crosses the same way.
    if (forked.ok) await ended;
  },
  'tool:trial': async () => {
    const waiting = next('approval-pending', (pending) => pending.alias === 'echo');
    state.trialId = ((await ok('tool:trial', { alias: 'echo', arguments: { text: 'hi' } })) as { runId: string }).runId;
    await waiting;
  },
  // The trial's waiting call: the narrowest rule for it, in words, saved, turned off, deleted.
  'rules:list': () => ok('rules:list', {}),
  'rules:propose': async () => {
    const [pending] = (await studio.service.listApprovals()).filter((call) => call.runId === state.trialId);
    const proposal = (await ok('rules:propose', { runId: state.trialId, callId: pending!.callId })) as {
      rule: Record<string, unknown>;
    };
    const { confirmed: _confirmed, createdAt: _createdAt, ...draft } = proposal.rule;
    state.rule = draft;
    state.ruleId = String(draft['id']);
  },
  'rules:describe': () => ok('rules:describe', { rule: state.rule }),
  'rules:save': async () => {
    const changed = next('rules-changed', (listing) => listing.rules.length === 1);
    await ok('rules:save', { rule: state.rule as ContractRequest<'rules:save'>['rule'] });
    await changed;
  },
  'rules:set-enabled': () => ok('rules:set-enabled', { id: state.ruleId, enabled: false }),
  'rules:delete': () => ok('rules:delete', { id: state.ruleId }),
  'run:stop': async () => {
    const ended = runEnd(state.trialId);
    await ok('run:stop', { runId: state.trialId });
    await ended;
  },
  'history:page': () => ok('history:page', { runId: state.runId, from: 0, count: 100 }),
  'history:compare': () => ok('history:compare', { left: state.runId, right: state.trialId }),
  'history:export': () => ok('history:export', { runId: state.runId }),
  'keys:status': () => ok('keys:status', {}),
  'keys:set': () => ok('keys:set', { provider: 'openai', key: 'sk-glue-session-0123456789abcdef' }),
  'keys:delete': () => ok('keys:delete', { provider: 'openai' }),
  'trust:status': async () => {
    state.digest = ((await ok('trust:status', {})) as { digest: string }).digest;
  },
  'trust:grant': async () => {
    const changed = next('trust-changed', (trust) => trust.state === 'trusted');
    await ok('trust:grant', { digest: state.digest });
    await changed;
  },
  'trust:list': () => ok('trust:list', {}),
  'trust:allow-key-origin': () => ok('trust:allow-key-origin', { model: 'elsewhere' }),
  'trust:revoke-key-origin': () => ok('trust:revoke-key-origin', { provider: 'openai', origin: 'http://127.0.0.1:9' }),
  'mcp:list': async () => {
    const changed = next('mcp-changed', (servers) => servers.servers.some((server) => server.state === 'ready'));
    await ok('mcp:list', {});
    await changed;
  },
  'mcp:status': () => ok('mcp:status', {}),
  'mcp:restart': () => ok('mcp:restart', { server: 'bad' }),
  'mcp:stop': () => ok('mcp:stop', { server: 'bad' }),
  'mcp:resources': () => ok('mcp:resources', { server: 'ask' }),
  'mcp:prompts': () => ok('mcp:prompts', { server: 'ask' }),
  'mcp:read-resource': () => ok('mcp:read-resource', { server: 'ask', uri: 'text://hello' }),
  'mcp:get-prompt': () => ok('mcp:get-prompt', { server: 'ask', name: 'greet', arguments: { name: 'glue' } }),
  'mcp:questions': async () => {
    const asked = next('elicitation-pending');
    state.asksId = ((await ok('run:start', { script: 'agents/asks.lua', model: 'local' })) as { runId: string }).runId;
    state.elicitation = (await asked).id;
    await ok('mcp:questions', {});
  },
  'mcp:check-answer': () => ok('mcp:check-answer', { id: state.elicitation, content: { age: 3 } }),
  'mcp:answer': async () => {
    const resolved = next('elicitation-resolved', (event) => event.id === state.elicitation);
    const sampling = next('sampling-pending', (pending) => pending.runId === state.asksId);
    await ok('mcp:answer', { id: state.elicitation, answer: { action: 'accept', content: { age: 3 } } });
    await resolved;
    state.sampling = (await sampling).id;
  },
  'mcp:decide-sampling': async () => {
    const resolved = next('sampling-resolved', (event) => event.id === state.sampling);
    const changed = next('mcp-lists-changed', (change) => change.server === 'ask');
    const ended = runEnd(state.asksId);
    await ok('mcp:decide-sampling', { id: state.sampling, decision: { kind: 'deny', reason: 'not in this test' } });
    await resolved;
    await changed;
    await ended;
  },
  'mcp:login-state': () => ok('mcp:login-state', { server: 'web' }),
  'mcp:login': () => ok('mcp:login', { server: 'web' }),
  'mcp:cancel-login': () => ok('mcp:cancel-login', { server: 'web' }),
  'mcp:logout': () => ok('mcp:logout', { server: 'web' }),
  'trust:revoke': () => ok('trust:revoke', { path: workspace }),
  'workspace:open-example': () => ok('workspace:open-example', {}),
  // The example's test cases (scripted models, offline).
  'tests:list': async () => {
    await ok('tests:list', {});
    // Followed now: a change of the workspace lists its tests again.
    const changed = next('tests-changed');
    const agent = (await ok('file:read', { path: 'agents/echo-loop.lua' })) as { text: string };
    await ok('file:write', { path: 'agents/echo-loop.lua', text: agent.text });
    await changed;
  },
  'tests:run': async () => {
    const finished = next('tests-progress', (progress) => progress.state === 'finished');
    await ok('tests:run', {});
    await finished;
  },
  'tests:stop': () => ok('tests:stop', {}),
  'tests:create': () => ok('tests:create', { name: 'glue-made' }),
};

describe('a studio session through the stand-in glue', () => {
  it('calls every contract method and pushes every event; each reply and event reaches the page as main produced it', async () => {
    const received = new Map<string, unknown[]>(contractEventNames.map((name) => [name, []]));
    for (const name of contractEventNames) studio.api.on(name, (payload) => void received.get(name)!.push(payload));

    expect(
      contractMethodNames.filter((method) => !Object.hasOwn(steps, method)),
      'contract methods this session never calls: add a step for each',
    ).toEqual([]);
    for (const [method, step] of Object.entries(steps)) {
      try {
        await step();
      } catch (error) {
        throw new Error(`the step for ${method} failed: ${String(error)}`, { cause: error });
      }
    }
    expect(made.filter((call) => call.received.ok).map((call) => call.method)).toEqual(
      expect.arrayContaining(contractMethodNames.filter((method) => method !== 'run:fork')),
    );

    // Every event of the contract reached the page, each exactly as main sent it.
    for (const name of contractEventNames) {
      const sent = studio.glue.sent.filter((entry) => entry.channel === name).map((entry) => entry.payload);
      expect(sent.length, `main pushed no ${name}`).toBeGreaterThan(0);
      expect(received.get(name), name).toStrictEqual(sent);
      for (const payload of sent) {
        expect(cloneProblem(payload), name).toBeNull();
        expect(structuredClone(payload), name).toStrictEqual(payload);
      }
    }
    // A whole session (runs, MCP servers, a sign-in, a test suite): room for a busy machine.
  }, 180_000);

  it('answers every method with an error the page receives intact: a bad request, and no press for the gated ones', async () => {
    for (const method of contractMethodNames) {
      const bad = await send(method, 42);
      expect(bad, method).toMatchObject({ ok: false, error: { code: 'invalid-payload' } });
      expect((bad as { error: { message: string } }).error.message, method).toContain(method);
    }
    // The last press is long past: a gated method without one of its own is refused.
    studio.glue.clock.now += 60_000;
    for (const method of contractMethodNames.filter(needsPersonInput)) {
      expect(await send(method, {}, false), method).toMatchObject({ ok: false, error: { code: 'no-person-input' } });
    }
    // Errors from the core itself, with their own codes.
    expect(await send('file:read', { path: 'agents/none.lua' })).toMatchObject({ error: { code: 'not-found' } });
    expect(await send('workspace:open', { path: '/' })).toMatchObject({ error: { code: 'not-chosen' } });
    expect(await send('history:page', { runId: 'nope', from: 0, count: 1 })).toMatchObject({
      error: { code: 'run-not-found' },
    });
  });

  it('every reply the page received, success or error, is what main produced, unchanged by the clone', () => {
    expect(new Set(made.map((call) => call.method))).toEqual(new Set(contractMethodNames));
    for (const { method, received, produced } of made) {
      expect(produced, `${method}: main produced no reply`).toBeDefined();
      expect(cloneProblem(produced), method).toBeNull();
      expect(received, method).toStrictEqual(produced);
    }
    expect(made.filter((call) => !call.received.ok).length).toBeGreaterThan(contractMethodNames.length);
  });
});
