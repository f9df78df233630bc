import { describe, expect, it, vi } from 'vitest';
import { contractMethodNames } from '../../../common/contract.js';
import { usePreloadOnGlue } from './glue-fixture.js';
import { pageWorld } from './stand-in-electron-module.js';

// preload/index.ts as the app ships it, on the stand-in contextBridge and ipcRenderer (no Electron here).
vi.mock('electron', () => import('./stand-in-electron-module.js'));

const studio = usePreloadOnGlue();

const log = (seq: number, text: string) =>
  ({ runId: 'run-1', seq, t: '2026-12-02T10:00:00.000Z', type: 'log', text }) as const;

describe('preload/index.ts', () => {
  it('exposes one function per contract method and on(), frozen, and nothing else', () => {
    expect(Object.keys(pageWorld)).toEqual(['promptforge']);
    expect(Object.keys(studio.api).sort()).toEqual([...contractMethodNames, 'on'].sort());
    expect(Object.isFrozen(studio.api)).toBe(true);
    for (const value of Object.values(studio.api)) expect(typeof value).toBe('function');
  });

  it('invokes the channel of each method with the request, and resolves to the IpcResult main answered', async () => {
    expect(await studio.api['app:info']({})).toMatchObject({ ok: true, value: { name: 'PromptForge Studio' } });
    expect(await studio.api['app:info']({ workspace: 1 } as never)).toEqual({
      ok: false,
      error: { code: 'invalid-payload', message: 'app:info: field "workspace": unknown field' },
    });
  });

  it('sends its requests by structured clone: a function in a request never reaches main', async () => {
    const calls = studio.glue.replies.length;
    await expect(studio.api['file:read']({ path: (() => 'agents/a.lua') as never })).rejects.toThrow(
      /could not be cloned/,
    );
    expect(studio.glue.replies.length).toBe(calls);
  });

  it('on() refuses an event outside the contract', () => {
    expect(() => studio.api.on('shell-output' as never, () => {})).toThrow(
      'promptforge.on: unknown event "shell-output"',
    );
  });

  it('hands a listener the payload only, never the IpcRendererEvent, until it unsubscribes', () => {
    const calls: unknown[][] = [];
    const others: unknown[] = [];
    const stop = studio.api.on('run-event', (...args: unknown[]) => void calls.push(args));
    const stopOther = studio.api.on('run-event', (payload) => void others.push(payload));
    expect(studio.glue.sendEvent('run-event', log(1, 'hello'))).toBe(true);
    stop();
    expect(studio.glue.sendEvent('run-event', log(2, 'after unsubscribe'))).toBe(true);
    stopOther();
    expect(calls).toEqual([[log(1, 'hello')]]);
    expect(others).toEqual([log(1, 'hello'), log(2, 'after unsubscribe')]);
  });

  it('delivers each listener a copy: what it changes is not what main sent', () => {
    const seen: Array<{ text: string }> = [];
    const stop = studio.api.on('run-event', (payload) => void seen.push(payload as { text: string }));
    studio.glue.sendEvent('run-event', log(3, 'original'));
    stop();
    seen[0]!.text = 'changed by the page';
    expect(studio.glue.sent.at(-1)?.payload).toEqual(log(3, 'original'));
  });
});
