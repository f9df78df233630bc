import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoSeriousAxeViolations } from './axe.js';
import { StudioHarness } from './bridge.js';
import { pressWhenArmed } from './card-press.js';

// Four calls of read_page (approval: ask), each in pcall so a denial does not end the run.
const askFour = `for i = 1, 4 do
  local ok, result = pcall(tools.call, 'read_page', { name = 'release-notes' })
  log(('call %d: %s'):format(i, ok and ('read ' .. #result .. ' chars') or tostring(result)))
end
`;

describe('studio: a waiting call is decided where it is, in the conversation and in the tool trial', () => {
  const studio = new StudioHarness({ viewport: { width: 1440, height: 900 } });
  const decideCalls = () => studio.calls.filter((entry) => entry.method === 'approval:decide').length;
  const conversation = () => studio.page.getByRole('log', { name: 'Conversation' });
  const dispatch = (callId: string) => conversation().getByRole('article', { name: `Tool call ${callId}` });
  const cardIn = (callId: string) => dispatch(callId).locator('.approval-card');
  const armed = (callId: string) => cardIn(callId).and(studio.page.locator('[data-armed="true"]'));
  /**
   * Runs the paused page clock until the card of `callId` is armed: the conversation may still
   * settle (its rows measured, its scroll kept at the end), and each move of the card makes it wait
   * again from there. Page time only: no real time passes.
   */
  const armNow = async (callId: string): Promise<void> => {
    // Its buttons in sight first: a click scrolls what it clicks into view, and a card that moves waits again.
    await cardIn(callId).locator('.button-row').first().scrollIntoViewIfNeeded();
    for (let step = 0; step < 20; step += 1) {
      if ((await cardIn(callId).getAttribute('data-armed')) === 'true') return;
      await studio.page.clock.runFor(900);
    }
    await armed(callId).waitFor();
  };
  /** One step of the paused page clock: the card's arming delay runs in page time. */
  const tick = () => studio.page.clock.runFor(900);
  /** Stops the page's timers (the arming delay among them) until the clock runs on. */
  const pause = async (): Promise<void> => {
    const now = (await studio.page.evaluate('Date.now()')) as number;
    await studio.page.clock.pauseAt(now + 1000);
  };

  beforeAll(async () => {
    await studio.open();
    studio.page.setDefaultTimeout(15_000);
    await studio.page.clock.install();
    await studio.openExampleWorkspace();
    await writeFile(path.join(studio.service.workspaceRoot!, 'agents', 'ask-four.lua'), askFour);
    await studio.agentButton('ask-four').waitFor();
    await studio.openAgent('ask-four');
  });
  afterAll(async () => {
    await studio.close();
  });

  it('shows the card in the conversation; while it arms, its buttons are reachable and a press says it was ignored', async () => {
    await pause();
    await studio.page.getByRole('button', { name: '▶ Run' }).click();
    await cardIn('call-1').waitFor();
    expect(await cardIn('call-1').getAttribute('data-armed')).toBe('false');
    // The button is not disabled for focus: it can be clicked (and reached with Tab), and the click says why it did nothing.
    const approve = cardIn('call-1').getByRole('button', { name: 'A Approve' });
    await approve.click({ force: true });
    const notice = cardIn('call-1').locator('.arming-notice');
    expect(await notice.textContent()).toBe('Ignored: this card is arming; press again in a moment.');
    expect(await notice.getAttribute('role')).toBe('status');
    expect(await studio.focusedElement()).toBe('BUTTON.button.button-primary');
    // A key pressed on the card meanwhile is not dropped silently either.
    await studio.page.keyboard.press('Shift+Tab');
    await studio.page.keyboard.press('Tab');
    await studio.page.keyboard.press('a');
    expect(await notice.textContent()).toBe('Ignored: this card is arming; press again in a moment.');
    expect(decideCalls()).toBe(0);
    await armNow('call-1');
    expect(await notice.textContent()).toBe('The card is ready now: press again.');
    await studio.screenshot('inline-approval-conversation');
    // axe waits on the page's timers: the clock runs for the audit.
    await studio.page.clock.resume();
    await expectNoSeriousAxeViolations(studio.page, 'a card in the conversation (dark)');
    await studio.useTheme('light');
    await expectNoSeriousAxeViolations(studio.page, 'a card in the conversation (light)');
    await studio.useTheme('dark');
    await pause();
  });

  it('decides with a key once armed; focus lands on the call, and the Approvals panel says so at once', async () => {
    await cardIn('call-1').locator('h3').click();
    // The audit ran with the clock on: the card may have moved and be arming again.
    await pressWhenArmed({
      card: cardIn('call-1'),
      button: cardIn('call-1').locator('h3'),
      key: 'a',
      done: cardIn('call-2'),
      advance: tick,
    });
    expect(decideCalls()).toBe(1);
    // The decided card took focus with it: focus is on its call, not on the page, nor on the next card.
    expect(await studio.focusedElement()).toMatch(/^ARTICLE\.conversation-card\.dispatch\..*\[Tool call call-1\]$/);
    expect(await dispatch('call-1').locator('.decision-note').textContent()).toBe('Approved by you');
    await studio.showRunTab('Approvals');
    expect(await studio.page.locator('.last-decision').textContent()).toBe(
      'Last decision: Approved by you: read_page call-1.',
    );
    // The same waiting call is the panel's card too.
    expect(await studio.page.locator('.approvals-panel .approval-card').getAttribute('data-call-id')).toBe('call-2');
    await studio.showRunTab('Conversation');
  });

  it('never decides with the second click of a double click', async () => {
    await armNow('call-2');
    const approve = cardIn('call-2').getByRole('button', { name: 'A Approve' });
    // The first click decides call-2 (a double click whose first click the card ignored, because it
    // moved just before, is made again once it is armed); the second lands on nothing, or on the
    // next card, which it does not decide.
    await pressWhenArmed({
      card: cardIn('call-2'),
      button: approve,
      act: async () => {
        const box = (await approve.boundingBox())!;
        await studio.page.mouse.dblclick(box.x + box.width / 2, box.y + box.height / 2);
      },
      done: cardIn('call-3'),
      advance: tick,
    });
    expect(decideCalls()).toBe(2);
    await armNow('call-3');
    expect(decideCalls()).toBe(2);
    expect(await studio.focusedElement()).not.toBe('BODY');
  });

  it('approves edited arguments with Enter, and focus lands on the call, never on the page', async () => {
    await pressWhenArmed({
      card: cardIn('call-3'),
      button: cardIn('call-3').getByRole('button', { name: 'E Edit then approve' }),
      done: cardIn('call-3').locator('.cm-content'),
      advance: tick,
    });
    await studio.replaceEditorText(
      `${'.conversation-card[aria-label="Tool call call-3"]'} .cm-content`,
      '{ "name": "release-notes" }',
    );
    // The check waits for typing to pause (page time).
    await studio.page.clock.runFor(500);
    await cardIn('call-3').getByText("The arguments fit the tool's parameters.").waitFor();
    // Out of the editor the keyboard way (Esc, then Tab), onto "Approve edited", then Enter.
    await studio.page.keyboard.press('Escape');
    await studio.page.keyboard.press('Tab');
    expect(await studio.focusedElement()).toBe('BUTTON.button.button-primary');
    await pressWhenArmed({
      card: cardIn('call-3'),
      button: cardIn('call-3').getByRole('button', { name: 'Approve edited' }),
      key: 'Enter',
      done: cardIn('call-4'),
      advance: tick,
    });
    expect(await studio.focusedElement()).toMatch(/^ARTICLE\.conversation-card\.dispatch\..*\[Tool call call-3\]$/);
    expect(await dispatch('call-3').locator('.decision-note').textContent()).toBe(
      'Approved with edited arguments by you',
    );
  });

  it('denies with a reason and Enter; focus lands on the call', async () => {
    const reason = cardIn('call-4').getByLabel('Reason for denying');
    await pressWhenArmed({
      card: cardIn('call-4'),
      button: cardIn('call-4').getByRole('button', { name: 'D Deny…' }),
      done: reason,
      advance: tick,
    });
    await reason.fill('four is too many');
    // The form made the call's row taller and the conversation kept its end in view: the card moved,
    // so it waits again before it takes the Enter (a person typing the reason gives it that time).
    await pressWhenArmed({
      card: cardIn('call-4'),
      button: reason,
      key: 'Enter',
      done: dispatch('call-4').locator('.deny-reason'),
      advance: tick,
    });
    expect(await dispatch('call-4').locator('.deny-reason').textContent()).toBe('Denied by you: four is too many');
    expect(await studio.focusedElement()).toMatch(/^ARTICLE\.conversation-card\.dispatch\..*\[Tool call call-4\]$/);
    await studio.page.clock.resume();
    expect(await studio.waitForRunEnd()).toBe('ok');
  });

  it('decides a tool trial’s call in the trial; the Approvals panel follows, and focus lands on the result', async () => {
    const tools = studio.page
      .getByRole('navigation', { name: 'Workspace explorer' })
      .getByRole('region', { name: 'Tools' });
    await tools.getByRole('button', { name: /^read_page\b/ }).click();
    const view = studio.page.getByRole('region', { name: 'Try tool read_page' });
    await view.getByLabel('name', { exact: true }).fill('release-notes');
    await view.getByRole('status').filter({ hasText: 'Arguments valid' }).waitFor();
    await view.getByRole('button', { name: 'Run read_page' }).click();
    const result = view.getByRole('region', { name: 'Trial result' });
    const card = result.locator('.approval-card');
    // In sight before it arms: a click scrolls what it clicks into view, and a card that moves waits again.
    await card.locator('.button-row').first().scrollIntoViewIfNeeded();
    await card.and(studio.page.locator('[data-armed="true"]')).waitFor();
    await studio.showRunTab('Approvals');
    await studio.page.locator('.approvals-panel .approval-card').waitFor();
    await studio.screenshot('inline-approval-trial');
    await expectNoSeriousAxeViolations(studio.page, 'a card in the tool trial');
    // The audit and the picture may bring the window to the front, which arms the card again.
    await pressWhenArmed({
      card,
      button: card.getByRole('button', { name: 'A Approve' }),
      done: result.locator('.status-pill', { hasText: 'ok' }),
    });
    // Gone from the panel at once, which says what was decided, and by whom.
    await studio.page.getByText('No call is waiting for a decision.').waitFor();
    expect(await studio.page.locator('.last-decision').textContent()).toMatch(
      /^Last decision: Approved by you: read_page call-1\.$/,
    );
    expect(await studio.focusedElement()).toBe('SECTION.trial-result[Trial result]');
  });

  it('ran without console errors or CSP violations', () => {
    expect(studio.pageErrors).toEqual([]);
  });
});
