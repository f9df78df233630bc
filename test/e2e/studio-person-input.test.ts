import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApprovalCards } from './approval-fixtures.js';
import { StudioHarness } from './bridge.js';

/**
 * The person-input gate through the app's own preload and IPC registration: approval:decide is
 * served only right after a real click or key press reached the studio window. The harness takes
 * that input from the page's trusted presses, as Electron's input-event reports them
 * (test/e2e/person-stand-in.ts; `studio.person.input` can hold it back, send it to another window
 * or make it stale); the gate's judgement is the app's.
 */
describe('studio: a decision needs the person’s input in the studio window', () => {
  const studio = new StudioHarness();
  const cards = new ApprovalCards(studio);

  beforeAll(() => cards.setUp({ agents: { 'ask-sink': "log(tools.call('sink', { note = 'hello' }))" } }));
  afterEach(async () => {
    studio.person.input = 'real';
    await cards.stopStarted();
  });
  afterAll(async () => {
    await studio.close();
  });

  it('refuses an approval click no input event came with: the card stays and says why', async () => {
    const runId = await cards.start('ask-sink');
    studio.person.input = 'none';
    const alert = cards.cardOf(runId).getByRole('alert');
    await cards.press(runId, 'A Approve', alert);
    expect(await alert.textContent()).toBe(
      'No click or key press reached the studio window in the last 3 s: act with the mouse or the keyboard in the studio window. (no-person-input)',
    );
    expect(studio.calls.filter((call) => call.method === 'approval:decide')).toEqual([
      { method: 'approval:decide', ok: false },
    ]);
    expect((await studio.service.listApprovals()).map((pending) => pending.runId)).toEqual([runId]);
    expect(studio.log).toContainEqual({
      level: 'warn',
      message: 'refused IPC call: no person input',
      fields: { method: 'approval:decide', reason: 'no-input' },
    });

    // With the person's click, the same button decides.
    studio.person.input = 'real';
    await cards.press(runId, 'A Approve');
    expect(studio.calls.filter((call) => call.method === 'approval:decide').at(-1)).toEqual({
      method: 'approval:decide',
      ok: true,
    });
  });

  it('names input that went to another window, or came too long ago', async () => {
    const runId = await cards.start('ask-sink');
    await cards.cardOf(runId).waitFor();
    const [pending] = await studio.service.listApprovals();
    const decide = () =>
      studio.call('approval:decide', { runId, callId: pending!.callId, decision: { kind: 'approve' } });
    studio.person.input = 'other-window';
    await expect(decide()).rejects.toThrow(
      'approval:decide failed: no-person-input: The last click or key press went to another window, not the studio window: act with the mouse or the keyboard in the studio window.',
    );
    studio.person.input = 'stale';
    await expect(decide()).rejects.toThrow('the studio window was more than 3 s ago');
  });

  it('a key held down is one press: its repeats pay for no second decision', async () => {
    const first = await cards.start('ask-sink');
    const second = await cards.start('ask-sink');
    await cards.cardOf(second).waitFor();
    const decideFromPage = (runId: string) =>
      studio.page.evaluate(async (run) => {
        const api = (globalThis as unknown as { promptforge: Record<string, (request: unknown) => Promise<unknown>> })
          .promptforge;
        const list = (await api['approval:list']!({})) as { value: Array<{ runId: string; callId: string }> };
        const call = list.value.find((pending) => pending.runId === run)!;
        return api['approval:decide']!({ runId: run, callId: call.callId, decision: { kind: 'approve' } });
      }, runId);
    studio.person.forgetInput();
    // The person holds Shift down; a script riding on the key gets the first press only.
    await studio.page.keyboard.down('Shift');
    expect(await decideFromPage(first)).toMatchObject({ ok: true });
    for (let repeat = 0; repeat < 3; repeat += 1) await studio.page.keyboard.down('Shift');
    expect(await decideFromPage(second)).toMatchObject({ ok: false, error: { code: 'no-person-input' } });
    await studio.page.keyboard.up('Shift');
    expect((await studio.service.listApprovals()).map((pending) => pending.runId)).toEqual([second]);
  });

  it('refuses a call an iframe sends over the bridge itself: the sender-frame check is the app’s', async () => {
    const attached = studio.page.waitForEvent('frameattached');
    await studio.page.evaluate(
      `document.body.appendChild(Object.assign(document.createElement('iframe'), { srcdoc: '<p>frame</p>' }))`,
    );
    const child = await attached;
    await child.waitForLoadState();
    const result = await child.evaluate(() =>
      (globalThis as unknown as { __pfInvoke: (channel: string, request: unknown) => Promise<unknown> }).__pfInvoke(
        'keys:status',
        {},
      ),
    );
    expect(result).toEqual({
      ok: false,
      error: {
        code: 'forbidden-sender',
        message: 'keys:status: refused: the call did not come from the studio window',
      },
    });
    expect(studio.log.at(-1)).toMatchObject({ level: 'warn', message: 'refused IPC call: foreign sender' });
  });

  it('ran without console errors or CSP violations', () => {
    expect(studio.pageErrors).toEqual([]);
  });
});
