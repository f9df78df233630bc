import { describe, expect, it } from 'vitest';
import { contractMethodNames } from '../../../common/contract.js';
import { PersonDialogs } from '../../../main/core/studio/person-dialogs.js';
import {
  CallPress,
  isAutoRepeat,
  isPersonPress,
  MAY_ASK_METHODS,
  needsPersonInput,
  NO_PRESS,
  pressPaysFor,
  PERSON_INPUT_MAX_AGE_MS,
  PERSON_INPUT_METHODS,
  PERSON_INPUT_TYPES,
  PersonInputLog,
} from '../../../main/core/studio/person-input.js';

const STUDIO = 1;
const OTHER = 2;

describe('PersonInputLog (the person-input gate)', () => {
  it('passes a decision right after a click or key press in the same window, up to the allowed delay', () => {
    for (const type of ['mouseDown', 'keyDown', 'rawKeyDown', 'pointerDown', 'touchStart']) {
      const log = new PersonInputLog();
      expect(log.record(STUDIO, type, 10_000)).toBe(true);
      expect(log.judge(STUDIO, 10_000)).toEqual({ ok: true });
      expect(log.judge(STUDIO, 10_000 + PERSON_INPUT_MAX_AGE_MS)).toEqual({ ok: true });
    }
  });

  it('refuses when no input reached any window, saying how to decide', () => {
    expect(new PersonInputLog().judge(STUDIO, 5_000)).toEqual({
      ok: false,
      reason: 'no-input',
      message:
        'No click or key press reached the studio window in the last 3 s: act with the mouse or the keyboard in the studio window.',
    });
  });

  it('refuses when the input went to another window', () => {
    const log = new PersonInputLog();
    log.record(OTHER, 'mouseDown', 1_000);
    expect(log.judge(STUDIO, 1_100)).toMatchObject({ ok: false, reason: 'other-window' });
    expect(log.judge(STUDIO, 1_100)).toHaveProperty('message', expect.stringContaining('another window'));
    // Fresh input elsewhere is named even when this window had input long ago.
    log.record(STUDIO, 'mouseDown', 0);
    log.record(OTHER, 'mouseDown', 10_000);
    expect(log.judge(STUDIO, 10_001)).toMatchObject({ ok: false, reason: 'other-window' });
  });

  it('refuses input older than the allowed delay', () => {
    const log = new PersonInputLog();
    log.record(STUDIO, 'keyDown', 1_000);
    const verdict = log.judge(STUDIO, 1_000 + PERSON_INPUT_MAX_AGE_MS + 1);
    expect(verdict).toEqual({
      ok: false,
      reason: 'stale',
      message:
        'The last click or key press in the studio window was more than 3 s ago: act with the mouse or the keyboard in the studio window.',
    });
  });

  it('does not count pointer moves, the wheel, hovering, scrolling, nor the release, character or tap that end a press', () => {
    const log = new PersonInputLog();
    for (const type of [
      'mouseMove',
      'mouseWheel',
      'mouseEnter',
      'mouseLeave',
      'gestureScrollUpdate',
      'undefined',
      'mouseUp',
      'keyUp',
      'char',
      'touchEnd',
      'gestureTap',
      'gestureTapDown',
    ]) {
      expect(log.record(STUDIO, type, 2_000)).toBe(false);
      expect(PERSON_INPUT_TYPES.has(type)).toBe(false);
    }
    expect(log.judge(STUDIO, 2_000)).toMatchObject({ ok: false, reason: 'no-input' });
  });

  it('does not count the repeats of a key held down, as either of Electron’s events reports them', () => {
    expect(isAutoRepeat({ type: 'keyDown', isAutoRepeat: true })).toBe(true);
    expect(isAutoRepeat({ type: 'rawKeyDown', modifiers: ['isautorepeat'] })).toBe(true);
    expect(isAutoRepeat({ type: 'rawKeyDown', modifiers: ['shift', 'isAutoRepeat'] })).toBe(true);
    expect(isAutoRepeat({ type: 'keyDown', isAutoRepeat: false, modifiers: ['shift', 'iskeypad'] })).toBe(false);
    expect(isPersonPress({ type: 'keyDown' })).toBe(true);
    expect(isPersonPress({ type: 'keyDown', isAutoRepeat: true })).toBe(false);
    expect(isPersonPress({ type: 'mouseUp' })).toBe(false);
    const log = new PersonInputLog();
    expect(log.record(STUDIO, { type: 'keyDown', isAutoRepeat: true }, 1_000)).toBe(false);
    expect(log.record(STUDIO, { type: 'rawKeyDown', modifiers: ['isautorepeat'] }, 1_000)).toBe(false);
    expect(log.judge(STUDIO, 1_000)).toMatchObject({ ok: false, reason: 'no-input' });
    expect(log.record(STUDIO, { type: 'keyDown', isAutoRepeat: false }, 1_000)).toBe(true);
    expect(log.judge(STUDIO, 1_000)).toEqual({ ok: true });
  });

  it('refuses when the clock went back past the input, and judges by the latest arrival', () => {
    const log = new PersonInputLog();
    log.record(STUDIO, 'mouseDown', 50_000);
    expect(log.judge(STUDIO, 49_000)).toEqual({
      ok: false,
      reason: 'stale',
      message:
        'The last click or key press in the studio window is dated after now (the clock went back): act with the mouse or the keyboard in the studio window.',
    });
    // The next click after the jump is the one that counts, though its time is earlier.
    log.record(STUDIO, 'mouseDown', 48_000);
    expect(log.judge(STUDIO, 48_500)).toEqual({ ok: true });
  });

  it('forgets a window that closed', () => {
    const log = new PersonInputLog();
    log.record(STUDIO, 'mouseDown', 1_000);
    log.forget(STUDIO);
    expect(log.judge(STUDIO, 1_001)).toMatchObject({ ok: false, reason: 'no-input' });
  });

  it('one press pays for one call: once used, the next call needs a press of its own', () => {
    const log = new PersonInputLog();
    log.record(STUDIO, 'mouseDown', 1_000);
    expect(log.judge(STUDIO, 1_010)).toEqual({ ok: true });
    log.consume(STUDIO);
    expect(log.judge(STUDIO, 1_020)).toEqual({
      ok: false,
      reason: 'used',
      message:
        'The last click or key press in the studio window was already used for another request; each needs its own: act with the mouse or the keyboard in the studio window.',
    });
    // Used up in one window, not in another.
    log.record(OTHER, 'keyDown', 1_030);
    expect(log.judge(OTHER, 1_040)).toEqual({ ok: true });
    // A new press counts, even at the same time as the one used (a coarse clock).
    log.record(STUDIO, 'rawKeyDown', 1_000);
    expect(log.judge(STUDIO, 1_060)).toEqual({ ok: true });
    // Consuming with nothing recorded does nothing; forgetting clears what was used.
    const empty = new PersonInputLog();
    empty.consume(STUDIO);
    expect(empty.judge(STUDIO, 0)).toMatchObject({ reason: 'no-input' });
    log.forget(STUDIO);
    log.record(STUDIO, 'mouseDown', 1_050);
    expect(log.judge(STUDIO, 1_060)).toEqual({ ok: true });
  });

  it('gates deciding a call, answering an MCP server, the spending cap, and every method that always opens one of main’s dialogs or the browser, and no other', () => {
    const gated = [
      'settings:set-spending-cap',
      'approval:decide',
      'keys:set',
      'keys:delete',
      'trust:grant',
      'trust:allow-key-origin',
      'workspace:choose',
      'history:export',
      'file:delete',
      'rules:save',
      'rules:delete',
      'mcp:answer',
      'mcp:decide-sampling',
      'mcp:login',
      'mcp:logout',
    ];
    expect([...PERSON_INPUT_METHODS].sort()).toEqual([...gated].sort());
    expect(contractMethodNames.filter(needsPersonInput).sort()).toEqual([...gated].sort());
    // Starting or forking a run may ask (a model's new destination), paid for by a press that came with it.
    expect([...MAY_ASK_METHODS].sort()).toEqual(['rules:set-enabled', 'run:fork', 'run:start']);
    expect(contractMethodNames.filter(pressPaysFor).sort()).toEqual(
      [...gated, 'rules:set-enabled', 'run:fork', 'run:start'].sort(),
    );
  });
});

describe('CallPress (the press that pays for one of main’s dialogs)', () => {
  it('a paid press pays for one dialog, while its call is served', () => {
    const press = CallPress.paid();
    expect(press.spend()).toBe(true);
    expect(press.spend()).toBe(false);
    expect(press.refusal).toContain('already paid for another question');
    press.end();
    expect(press.spend()).toBe(false);
    expect(press.refusal).toContain('never later');
    // Unspent, but its call was answered: nothing it started may ask any more.
    const answered = CallPress.paid();
    answered.end();
    expect(answered.spend()).toBe(false);
    expect(answered.refusal).toContain('never later (as in the middle of a run)');
  });

  it('a call no press came with pays for nothing, and says so', () => {
    for (const press of [CallPress.unpaid(), NO_PRESS]) {
      expect(press.spend()).toBe(false);
      expect(press.refusal).toBe(
        'main opens its dialogs only right after your own click or key press in the studio window, and none came with this request',
      );
    }
    const unpaid = CallPress.unpaid();
    unpaid.end();
    expect(unpaid.refusal).toContain('none came with this request');
  });
});

describe('PersonDialogs (every dialog main shows)', () => {
  const question = { title: 'Delete the agent x?', message: 'm', detail: 'd', confirm: 'Delete' };

  it('shows no dialog of any kind without a press, and names the dialog that was not shown', async () => {
    const shown: string[] = [];
    const dialogs = new PersonDialogs({
      confirmPerson: async (q) => (shown.push(q.title), true),
      chooseFolder: async () => (shown.push('folder'), '/x'),
      chooseSaveFile: async () => (shown.push('save'), '/y'),
    });
    for (const press of [CallPress.unpaid(), NO_PRESS]) {
      await expect(dialogs.confirm(press, question)).rejects.toMatchObject({
        code: 'no-person-input',
        message: expect.stringMatching(
          /^"Delete the agent x\?" was not asked: main opens its dialogs only right after/,
        ),
      });
      await expect(dialogs.chooseFolder(press)).rejects.toMatchObject({ code: 'no-person-input' });
      await expect(dialogs.chooseSaveFile(press, 'r.jsonl')).rejects.toMatchObject({ code: 'no-person-input' });
    }
    expect(shown).toEqual([]);
    // One press, one dialog: the second in the same call is not shown.
    const press = CallPress.paid();
    expect(await dialogs.confirm(press, question)).toBe(true);
    await expect(dialogs.chooseFolder(press)).rejects.toMatchObject({
      code: 'no-person-input',
      message: expect.stringContaining('already paid for another question'),
    });
    expect(shown).toEqual(['Delete the agent x?']);
  });

  it('asks one question at a time, of any kind: a second is refused while one is open, and its press is kept', async () => {
    let answer!: (yes: boolean) => void;
    const dialogs = new PersonDialogs({
      confirmPerson: () => new Promise<boolean>((resolve) => (answer = resolve)),
      chooseFolder: async () => '/x',
    });
    const open = dialogs.confirm(CallPress.paid(), question);
    const second = CallPress.paid();
    await expect(dialogs.chooseFolder(second)).rejects.toMatchObject({
      code: 'person-busy',
      message: expect.stringContaining('already asking you "Delete the agent x?"'),
    });
    answer(false);
    expect(await open).toBe(false);
    expect(await dialogs.chooseFolder(second)).toBe('/x');
  });

  it('says when the host has no such dialog', async () => {
    const dialogs = new PersonDialogs({});
    expect(dialogs.canConfirm).toBe(false);
    expect(() => dialogs.confirm(CallPress.paid(), question)).toThrow('this host cannot ask the person');
    expect(() => dialogs.chooseFolder(CallPress.paid())).toThrow('this host cannot show a folder picker');
    expect(() => dialogs.chooseSaveFile(CallPress.paid(), 'r')).toThrow('this host cannot show a save dialog');
  });
});
