import { afterEach, describe, expect, it } from 'vitest';
import { contractMethodNames } from '../../../common/contract.js';
import { type IpcResult } from '../../../common/contract-ipc.js';
import { cloneProblem, createEventSender } from '../../../main/app/ipc-registration.js';
import { ContractError } from '../../../main/core/studio/contract-error.js';
import { PERSON_INPUT_METHODS } from '../../../main/core/studio/person-input.js';
import type { StudioHandlers } from '../../../main/core/studio/studio-handlers.js';
import type { StudioService } from '../../../main/core/studio/studio-service.js';
import { StandInBrowserWindow, StandInWebContents, StandInWebFrameMain } from './electron-stand-ins.js';
import { createGlue, STUDIO_INDEX_URL, studioHandlers, type Glue } from './glue-fixture.js';

let service: StudioService | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

/** The glue around a real studio's handlers, some of them replaced by `override`. */
function glue(override: Partial<StudioHandlers> = {}): Glue {
  return createGlue((sendEvent) => {
    const studio = studioHandlers(sendEvent);
    service = studio.service;
    return { ...studio.handlers, ...override };
  });
}

const forbidden = (method: string): IpcResult<never> => ({
  ok: false,
  error: { code: 'forbidden-sender', message: `${method}: refused: the call did not come from the studio window` },
});

describe('registerContractHandlers: the sender frame', () => {
  it('registers one handler per contract method, and removes them all again', () => {
    const studio = glue();
    expect(studio.ipcMain.channels).toEqual(contractMethodNames);
    studio.unregister();
    expect(studio.ipcMain.channels).toEqual([]);
  });

  it('serves the main frame of the studio window showing the studio document', async () => {
    const studio = glue();
    const result = (await studio.invoke('app:info', {})) as IpcResult<{ name: string }>;
    expect(result).toMatchObject({ ok: true, value: { name: 'PromptForge Studio' } });
  });

  it('refuses an iframe of the studio window, even one showing the studio document', async () => {
    const studio = glue();
    const top = new StandInWebFrameMain(STUDIO_INDEX_URL);
    const result = await studio.invoke('app:info', {}, { frame: new StandInWebFrameMain(STUDIO_INDEX_URL, top) });
    expect(result).toEqual(forbidden('app:info'));
    expect(studio.log).toEqual([
      {
        level: 'warn',
        message: 'refused IPC call: foreign sender',
        fields: { method: 'app:info', url: STUDIO_INDEX_URL },
      },
    ]);
  });

  it('refuses the main frame once it shows another document (a navigation, another file, a remote page)', async () => {
    const studio = glue();
    for (const url of [
      'file:///home/person/notes.html',
      'file:///opt/PromptForge%20Studio/resources/app/out/renderer/index.html',
      'promptforge://studio/other.html',
      'https://attacker.example/out/renderer/index.html',
      'about:blank',
    ]) {
      expect(await studio.invoke('keys:status', {}, { frame: new StandInWebFrameMain(url) })).toEqual(
        forbidden('keys:status'),
      );
    }
    // Electron gives no frame once the sender navigated away or was destroyed.
    expect(await studio.invoke('keys:status', {}, { frame: null })).toEqual(forbidden('keys:status'));
  });

  it('accepts the studio document with a query or a fragment', async () => {
    const studio = glue();
    const frame = new StandInWebFrameMain(`${STUDIO_INDEX_URL}?theme=dark#approvals`);
    expect(await studio.invoke('app:info', {}, { frame })).toMatchObject({ ok: true });
  });

  it('refuses another window (another webContents) showing the studio document', async () => {
    const studio = glue();
    const other = new StandInWebContents();
    expect(await studio.invoke('app:info', {}, { contents: other })).toEqual(forbidden('app:info'));
  });

  it('refuses while the window is torn down: no window, or a destroyed one, and never throws', async () => {
    const studio = glue();
    studio.current.window = null;
    expect(await studio.invoke('app:info', {})).toEqual(forbidden('app:info'));
    const closing = new StandInBrowserWindow(studio.webContents);
    studio.current.window = closing;
    closing.destroy();
    // A destroyed window's webContents throws when read: the check asks isDestroyed() first.
    expect(() => closing.webContents).toThrow('Object has been destroyed');
    expect(await studio.invoke('app:info', {})).toEqual(forbidden('app:info'));
  });

  it('answers internal-error, and logs, when the glue itself fails: the IPC never throws', async () => {
    const studio = createGlue({} as StudioHandlers);
    studio.current.window = {
      isDestroyed: () => {
        throw new TypeError('Object has been destroyed');
      },
    } as unknown as StandInBrowserWindow;
    expect(await studio.invoke('app:info', {})).toEqual({
      ok: false,
      error: { code: 'internal-error', message: 'app:info: Object has been destroyed' },
    });
    expect(studio.log.at(-1)).toEqual({
      level: 'error',
      message: 'IPC call failed in the glue',
      fields: { method: 'app:info', reason: 'Object has been destroyed' },
    });
  });
});

describe('registerContractHandlers: requests, responses and the error shape', () => {
  it('refuses a bad request with invalid-payload naming the field, in the { ok: false, error: { code, message } } shape', async () => {
    const studio = glue();
    const result = await studio.invoke('app:info', { workspace: 42 });
    expect(result).toStrictEqual({
      ok: false,
      error: { code: 'invalid-payload', message: 'app:info: field "workspace": unknown field' },
    });
    expect(studio.log.at(-1)).toMatchObject({ level: 'warn', message: 'refused IPC call: invalid payload' });
  });

  it('refuses a response outside the contract with invalid-response', async () => {
    const studio = glue({ 'keys:status': () => ({ keys: 'none' }) as never });
    const result = (await studio.invoke('keys:status', {})) as IpcResult<unknown>;
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid-response' } });
    expect(studio.log.at(-1)).toMatchObject({
      level: 'error',
      message: 'IPC handler returned a response outside the contract',
    });
  });

  it("keeps a handler's own error code, and turns any other throw into internal-error", async () => {
    const studio = glue({
      'run:stop': () => {
        throw new ContractError('run-not-found', 'run:stop: no run "r-1"');
      },
      'keys:status': () => {
        throw new Error('keychain locked');
      },
    });
    expect(await studio.invoke('run:stop', { runId: 'r-1' })).toStrictEqual({
      ok: false,
      error: { code: 'run-not-found', message: 'run:stop: no run "r-1"' },
    });
    expect(await studio.invoke('keys:status', {})).toStrictEqual({
      ok: false,
      error: { code: 'internal-error', message: 'keys:status: keychain locked' },
    });
  });

  it('registers nothing outside the contract: another channel rejects as in Electron', async () => {
    const studio = glue();
    await expect(studio.invoke('shell:exec', {})).rejects.toThrow("No handler registered for 'shell:exec'");
  });
});

describe('registerContractHandlers: the person-input gate', () => {
  const decide = { runId: 'run-1', callId: 'call-1', decision: { kind: 'approve' } };

  it('refuses approval:decide without a click or key press in the studio window, and logs why', async () => {
    let decided = 0;
    const studio = glue({
      'approval:decide': () => {
        decided += 1;
        return { decided: true } as never;
      },
    });
    expect(await studio.invoke('approval:decide', decide)).toStrictEqual({
      ok: false,
      error: {
        code: 'no-person-input',
        message:
          'No click or key press reached the studio window in the last 3 s: act with the mouse or the keyboard in the studio window.',
      },
    });
    expect(decided).toBe(0);
    expect(studio.log.at(-1)).toEqual({
      level: 'warn',
      message: 'refused IPC call: no person input',
      fields: { method: 'approval:decide', reason: 'no-input' },
    });
  });

  it("passes approval:decide to the core right after the window's input-event or before-input-event", async () => {
    const studio = glue();
    studio.click();
    studio.clock.now += 200;
    // Past the gate: the core answers (no such run here).
    const result = (await studio.invoke('approval:decide', decide)) as IpcResult<unknown>;
    expect(result.ok === false && result.error.code).not.toBe('no-person-input');
    studio.clock.now += 10_000;
    expect(await studio.invoke('approval:decide', decide)).toMatchObject({ error: { code: 'no-person-input' } });
    studio.webContents.emit('before-input-event', {}, { type: 'keyDown', key: 'a' });
    expect(await studio.invoke('approval:decide', decide)).not.toMatchObject({ error: { code: 'no-person-input' } });
  });

  it('does not count pointer moves or the wheel, nor input that reached another window', async () => {
    const studio = glue();
    studio.webContents.emit('input-event', {}, { type: 'mouseMove' });
    studio.webContents.emit('input-event', {}, { type: 'mouseWheel' });
    expect(await studio.invoke('approval:decide', decide)).toMatchObject({
      error: { code: 'no-person-input', message: expect.stringContaining('No click or key press') },
    });
    studio.personInput.record(new StandInWebContents().id, 'mouseDown', studio.clock.now);
    expect(await studio.invoke('approval:decide', decide)).toMatchObject({
      error: { code: 'no-person-input', message: expect.stringContaining('another window') },
    });
  });

  it('does not count a held key: its repeats (isAutoRepeat, or the isautorepeat modifier) are no new press', async () => {
    const studio = glue();
    // The person presses a key once and keeps it down; the first decision uses the press.
    studio.webContents.emit('before-input-event', {}, { type: 'keyDown', key: 'a', isAutoRepeat: false });
    expect(await studio.invoke('approval:decide', decide)).not.toMatchObject({ error: { code: 'no-person-input' } });
    // The repeats of that key, as both of Electron's events report them, pay for nothing more.
    for (let repeat = 0; repeat < 5; repeat += 1) {
      studio.clock.now += 30;
      studio.webContents.emit('before-input-event', {}, { type: 'keyDown', key: 'a', isAutoRepeat: true });
      studio.webContents.emit('input-event', {}, { type: 'rawKeyDown', modifiers: ['isautorepeat'] });
      studio.webContents.emit('input-event', {}, { type: 'keyDown', modifiers: ['shift', 'isAutoRepeat'] });
      expect(await studio.invoke('approval:decide', decide)).toMatchObject({
        error: { code: 'no-person-input', message: expect.stringContaining('already used') },
      });
    }
    // Released and pressed again: a new press.
    studio.webContents.emit('before-input-event', {}, { type: 'keyUp', key: 'a', isAutoRepeat: false });
    studio.webContents.emit('before-input-event', {}, { type: 'keyDown', key: 'a', isAutoRepeat: false });
    expect(await studio.invoke('approval:decide', decide)).not.toMatchObject({ error: { code: 'no-person-input' } });
  });

  it('forgets the input of a window that was destroyed', async () => {
    const studio = glue();
    studio.click();
    studio.window.destroy();
    studio.current.window = new StandInBrowserWindow(studio.webContents);
    expect(await studio.invoke('approval:decide', decide)).toMatchObject({ error: { code: 'no-person-input' } });
  });

  it('refuses the methods of PERSON_INPUT_METHODS without input, and serves every other method without it', async () => {
    const studio = glue();
    const refused: string[] = [];
    for (const method of contractMethodNames) {
      const result = (await studio.invoke(method, {})) as IpcResult<unknown>;
      if (!result.ok && result.error.code === 'no-person-input') refused.push(method);
    }
    expect(refused.sort()).toEqual([...PERSON_INPUT_METHODS].sort());
    expect(
      studio.log
        .filter((line) => line.message === 'refused IPC call: no person input')
        .map((line) => line.fields?.method),
    ).toEqual(contractMethodNames.filter((method) => PERSON_INPUT_METHODS.has(method)));
  });
});

describe('registerContractHandlers: only what structured clone copies unchanged crosses', () => {
  it('names what IPC could not carry, and passes plain data', () => {
    class Point {
      constructor(readonly x: number) {}
    }
    expect(cloneProblem({ a: [1, 'two', null, true, { b: undefined }] })).toBeNull();
    expect(cloneProblem(Object.assign(Object.create(null) as object, { a: 1 }))).toBeNull();
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic['self'] = cyclic;
    expect(cloneProblem(cyclic)).toBeNull();
    expect(cloneProblem({ run: { stop: () => true } })).toBe(
      'field "run.stop" is a function, which structured clone cannot copy',
    );
    expect(cloneProblem({ items: [Symbol('id')] })).toBe(
      'field "items[0]" is a symbol, which structured clone cannot copy',
    );
    expect(cloneProblem({ at: new Point(1) })).toBe(
      'field "at" is a Point, not plain data: structured clone would not copy it as it is',
    );
    expect(cloneProblem(new Date(0))).toBe(
      'the value is a Date, not plain data: structured clone would not copy it as it is',
    );
    expect(cloneProblem({ [Symbol('tag')]: 1 })).toBe(
      'the value has a field keyed by Symbol(tag), which structured clone drops',
    );
    expect(cloneProblem(Object.defineProperty({}, 'hidden', { value: 1, enumerable: false }))).toBe(
      'field "hidden" is not enumerable, which structured clone drops',
    );
    expect(
      cloneProblem({
        get now() {
          return 1;
        },
      }),
    ).toBe('field "now" is a getter, which structured clone turns into a copy of one reading');
  });
});

describe('createEventSender', () => {
  const log = { runId: 'run-1', seq: 1, t: '2026-12-02T10:00:00.000Z', type: 'log', text: 'hello' } as const;

  it('sends a payload the contract describes to the studio window', () => {
    const studio = glue();
    expect(studio.sendEvent('run-event', log)).toBe(true);
    expect(studio.sent).toEqual([{ channel: 'run-event', payload: log }]);
  });

  it('refuses a payload outside the contract, and logs it', () => {
    const studio = glue();
    expect(studio.sendEvent('run-event', { ...log, seq: 'one' } as never)).toBe(false);
    expect(studio.sent).toEqual([]);
    expect(studio.log.at(-1)).toEqual({
      level: 'error',
      message: 'refused to push an event outside the contract',
      fields: { event: 'run-event' },
    });
  });

  it('sends nothing to a window that is gone, and reports a send that throws', () => {
    const studio = glue();
    studio.current.window = null;
    expect(studio.sendEvent('run-event', log)).toBe(false);
    const failing = new StandInWebContents(() => {
      throw new Error('Render frame was disposed before WebFrameMain could be accessed');
    });
    const send = createEventSender(() => new StandInBrowserWindow(failing), studio.logger);
    expect(send('run-event', log)).toBe(false);
    expect(studio.log.at(-1)).toMatchObject({ level: 'error', message: 'could not push an event' });
    studio.current.window = studio.window;
    studio.window.destroy();
    expect(studio.sendEvent('run-event', log)).toBe(false);
    expect(studio.sent).toEqual([]);
  });
});
