import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { contractMethodNames, type PromptForgeApi } from '../../../common/contract.js';
import type { StudioService } from '../../../main/core/studio/studio-service.js';
import { createGlue, studioHandlers, type Glue } from './glue-fixture.js';
import { connectMain, deliverToPage, pageWorld } from './stand-in-electron-module.js';

// preload/index.ts as the app ships it, on the stand-in contextBridge and ipcRenderer (no Electron here).
vi.mock('electron', () => import('./stand-in-electron-module.js'));

let glue: Glue;
let service: StudioService;
let api: PromptForgeApi;

beforeAll(async () => {
  glue = createGlue((sendEvent) => {
    const studio = studioHandlers(sendEvent);
    service = studio.service;
    return studio.handlers;
  }, deliverToPage);
  connectMain((channel, args) => glue.invoke(channel, args[0]));
  await import('../../../preload/index.js');
  api = pageWorld['promptforge'] as PromptForgeApi;
});
afterAll(async () => {
  await service.close();
});

const log = (seq: number, text: string) =>
  ({ runId: 'run-1', seq, t: '2026-12-02T10:00:00.000Z', type: 'log', text }) as const;

describe('preload/index.ts', () => {
  it('exposes one function per contract method and on(), frozen, and nothing else', () => {
    expect(Object.keys(pageWorld)).toEqual(['promptforge']);
    expect(Object.keys(api).sort()).toEqual([...contractMethodNames, 'on'].sort());
    expect(Object.isFrozen(api)).toBe(true);
    for (const value of Object.values(api)) expect(typeof value).toBe('function');
  });

  it('invokes the channel of each method with the request, and resolves to the IpcResult main answered', async () => {
    expect(await api['app:info']({})).toMatchObject({ ok: true, value: { name: 'PromptForge Studio' } });
    expect(await api['app:info']({ workspace: 1 } as never)).toEqual({
      ok: false,
      error: { code: 'invalid-payload', message: 'app:info: field "workspace": unknown field' },
    });
  });

  it('sends its requests by structured clone: a function in a request never reaches main', async () => {
    const calls = glue.replies.length;
    await expect(api['file:read']({ path: (() => 'agents/a.lua') as never })).rejects.toThrow(/could not be cloned/);
    expect(glue.replies.length).toBe(calls);
  });

  it('on() refuses an event outside the contract', () => {
    expect(() => api.on('shell-output' as never, () => {})).toThrow('promptforge.on: unknown event "shell-output"');
  });

  it('hands a listener the payload only, never the IpcRendererEvent, until it unsubscribes', () => {
    const calls: unknown[][] = [];
    const others: unknown[] = [];
    const stop = api.on('run-event', (...args: unknown[]) => void calls.push(args));
    const stopOther = api.on('run-event', (payload) => void others.push(payload));
    expect(glue.sendEvent('run-event', log(1, 'hello'))).toBe(true);
    stop();
    expect(glue.sendEvent('run-event', log(2, 'after unsubscribe'))).toBe(true);
    stopOther();
    expect(calls).toEqual([[log(1, 'hello')]]);
    expect(others).toEqual([log(1, 'hello'), log(2, 'after unsubscribe')]);
  });

  it('delivers each listener a copy: what it changes is not what main sent', () => {
    const seen: Array<{ text: string }> = [];
    const stop = api.on('run-event', (payload) => void seen.push(payload as { text: string }));
    glue.sendEvent('run-event', log(3, 'original'));
    stop();
    seen[0]!.text = 'changed by the page';
    expect(glue.sent.at(-1)?.payload).toEqual(log(3, 'original'));
  });
});
