import { describe, expect, it, vi } from 'vitest';
import {
  contractEventNames,
  type ContractEventName,
  type ContractEventPayload,
  type ContractMethodName,
  type ContractRequest,
  type ContractResponse,
  type PromptForgeApi,
} from '../../../common/contract.js';
import type { RunEvent } from '../../../common/run-events.js';
import { cloneProblem } from '../../../main/app/ipc-registration.js';
import { usePreloadOnGlue } from './glue-fixture.js';

// A studio session as the page has it: preload/index.ts on the stand-in electron module, the
// app's IPC registration on a stand-in ipcMain, and a real StudioService behind it.
vi.mock('electron', () => import('./stand-in-electron-module.js'));

const studio = usePreloadOnGlue();

/** Calls `method` from the page; fails the test on `{ ok: false }`. */
async function ok<M extends ContractMethodName>(method: M, request: ContractRequest<M>): Promise<ContractResponse<M>> {
  const result = await (studio.api[method] as (request: unknown) => ReturnType<PromptForgeApi[M]>)(request);
  if (!result.ok) throw new Error(`${method}: ${result.error.code}: ${result.error.message}`);
  return result.value as ContractResponse<M>;
}

/** The next pushed `name` for which `match` holds, as the page's listener receives it. */
function next<E extends ContractEventName>(
  name: E,
  match: (payload: ContractEventPayload<E>) => boolean,
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

const script = `local page = tools.call('read_page', { name = 'release-notes' })
log('read ' .. #page .. ' characters')
log(tools.call('echo', { text = 'done' }))
`;

describe('a studio session through the stand-in glue', () => {
  it('opens the example, edits an agent, runs it past an approval, reads its history: every reply and event crosses structured clone unchanged', async () => {
    const pushed = new Set<string>();
    for (const name of contractEventNames) studio.api.on(name, () => void pushed.add(name));

    await ok('app:info', {});
    expect(await ok('workspace:state', {})).toBeNull();
    const opened = await ok('workspace:open-example', {});
    expect(opened.agents.length).toBeGreaterThan(0);
    await ok('workspace:state', {});
    // A method that opens one of main's dialogs is served right after the person's press, as a decision is.
    studio.glue.click();
    await ok('workspace:choose', {});
    const tools = await ok('file:read', { path: 'tools.yaml' });
    await ok('catalog:check', { file: 'tools.yaml', text: tools.text });
    await ok('args:check', { alias: 'weather', arguments: { city: 42 } });
    for (const method of [
      'trust:status',
      'trust:list',
      'keys:status',
      'mcp:list',
      'mcp:status',
      'approval:list',
    ] as const) {
      await ok(method, {});
    }

    const created = await ok('file:create', { name: 'glue-check' });
    await ok('file:write', { path: created.path, text: script });
    const waiting = next('approval-pending', (pending) => pending.alias === 'read_page');
    const { runId } = await ok('run:start', { script: created.path });
    const pending = await waiting;
    expect((await ok('approval:list', {})).map((call) => call.callId)).toEqual([pending.callId]);
    const ended = runEnd(runId);
    studio.glue.click();
    await ok('approval:decide', { runId, callId: pending.callId, decision: { kind: 'approve' } });
    expect(await ended).toMatchObject({ status: 'ok' });

    const trialEnded = next('run-event', (event) => (event as RunEvent).type === 'run-end' && event.runId !== runId);
    const trial = await ok('tool:trial', { alias: 'echo', arguments: { text: 'hi' } });
    expect((await trialEnded).runId).toBe(trial.runId);
    const page = await ok('history:page', { runId, from: 0, count: 100 });
    expect(page.complete).toBe(true);
    await ok('history:compare', { left: runId, right: trial.runId });
    studio.glue.click();
    await ok('history:export', { runId });
    await ok('run:stop', { runId });
    const renamed = await ok('file:rename', { path: created.path, name: 'glue-renamed' });
    studio.glue.click();
    await ok('file:delete', { path: renamed.path });

    // What the core produced, before the stand-in IPC cloned it: all of it plain data.
    expect(studio.glue.replies.length).toBeGreaterThan(25);
    for (const { channel, reply } of [
      ...studio.glue.replies,
      ...studio.glue.sent.map(({ channel, payload }) => ({ channel, reply: payload })),
    ]) {
      expect(cloneProblem(reply), channel).toBeNull();
      expect(structuredClone(reply), channel).toStrictEqual(reply);
    }
    expect(studio.glue.replies.every(({ reply }) => (reply as { ok: boolean }).ok)).toBe(true);
    expect([...pushed].sort()).toEqual(expect.arrayContaining(['approval-pending', 'run-event', 'workspace-changed']));
  });
});
