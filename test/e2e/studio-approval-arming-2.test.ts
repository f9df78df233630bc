import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { StudioHarness } from './bridge.js';
import { pressWhenArmed } from './card-press.js';

// When an approval card waits before it takes keys and clicks (it "arms"), beyond the cases of
// studio-approval-focus.test.ts and attack-approval-ui(-2).test.ts: a card does not arm behind a
// modal dialog, and waits again once the dialog closes; a card that moves on screen waits again
// unless the person scrolled the list; the person's own scrolling leaves the cards armed.

const agents: Record<string, string> = {
  'ask-a': `local ok, page = pcall(tools.call, 'read_page', { name = 'release-notes' })
log(ok and #page or tostring(page))
`,
};

describe('studio: arming of the approval cards behind dialogs and while the list scrolls', () => {
  const studio = new StudioHarness({ viewport: { width: 1440, height: 900 } });
  const started: string[] = [];
  const decideCalls = () => studio.calls.filter((entry) => entry.method === 'approval:decide').length;
  const start = async (agent: string): Promise<string> => {
    const { runId } = await studio.service.startRun({ script: `agents/${agent}.lua` });
    started.push(runId);
    return runId;
  };
  const cardOf = (runId: string) => studio.page.locator(`.approval-card[data-run-id="${runId}"]`);
  const armed = (runId: string) => cardOf(runId).and(studio.page.locator('[data-armed="true"]'));
  const armedOf = (runId: string) => cardOf(runId).getAttribute('data-armed');
  /** Stops the page's timers (the arming delay among them) until `resume`. */
  const pause = async (): Promise<void> => {
    const now = (await studio.page.evaluate('Date.now()')) as number;
    await studio.page.clock.pauseAt(now + 1000);
  };
  const resume = () => studio.page.clock.resume();
  /** Starts `count` runs that each ask once; waits until all their cards are armed. */
  const startMany = async (count: number): Promise<string[]> => {
    const runs: string[] = [];
    for (let index = 0; index < count; index += 1) runs.push(await start('ask-a'));
    await studio.waitForApprovalCards(count);
    for (const runId of runs) await armed(runId).waitFor();
    return runs;
  };
  /** Runs `act` in the page, then waits for the list's next `scrollend` (the scroll it caused ended). */
  const scrollList = async (act: () => Promise<void>): Promise<void> => {
    await studio.page.evaluate(`(() => {
      const list = document.querySelector('.approvals-list');
      globalThis.__pfScrolled = new Promise((resolve) => list.addEventListener('scrollend', resolve, { once: true }));
    })()`);
    await act();
    await studio.page.evaluate('globalThis.__pfScrolled.then(() => undefined)');
  };

  beforeAll(async () => {
    await studio.open();
    studio.page.setDefaultTimeout(15000);
    await studio.page.clock.install();
    await studio.openExampleWorkspace();
    const root = studio.service.workspaceRoot!;
    for (const [name, source] of Object.entries(agents))
      await writeFile(path.join(root, 'agents', `${name}.lua`), source);
    await studio.agentButton('ask-a').waitFor();
    await studio.showRunTab('Approvals');
  });
  afterEach(async () => {
    await resume();
    // A test that failed with a dialog open leaves it for the next: close it.
    while ((await studio.page.locator('dialog[open]').count()) > 0) await studio.page.keyboard.press('Escape');
    for (const runId of started.splice(0)) studio.service.stopRun(runId);
    await studio.page.getByText('No call is waiting for a decision.').waitFor();
  });
  afterAll(async () => {
    await studio.close();
  });

  it('does not arm a card behind the "?" shortcuts dialog, and makes it wait again once the dialog closes', async () => {
    await studio.page.locator('.approvals-panel').focus();
    await studio.page.keyboard.press('?');
    const dialog = studio.page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await dialog.waitFor();
    await pause();
    const runId = await start('ask-a');
    // The card arrives behind the modal dialog: the person cannot see it.
    await cardOf(runId).and(studio.page.locator('[data-shown="false"]')).waitFor({ state: 'attached' });
    await studio.page.clock.runFor(2000);
    expect(await armedOf(runId)).toBe('false');
    await studio.page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    // Seen for the first time now: a click in flight lands on nothing.
    await cardOf(runId).and(studio.page.locator('[data-shown="true"]')).waitFor();
    expect(await armedOf(runId)).toBe('false');
    await studio.page.clock.runFor(1000);
    await armed(runId).waitFor();
  });

  it('disarms an armed card when the command palette opens over it, and makes it wait again once it closes', async () => {
    const [runId] = await startMany(1);
    await pause();
    await studio.page.keyboard.press('ControlOrMeta+Shift+P');
    const palette = studio.page.locator('dialog[open]');
    await palette.waitFor();
    await cardOf(runId!).and(studio.page.locator('[data-shown="false"]')).waitFor({ state: 'attached' });
    expect(await armedOf(runId!)).toBe('false');
    await studio.page.keyboard.press('Escape');
    await palette.waitFor({ state: 'detached' });
    await cardOf(runId!).and(studio.page.locator('[data-shown="true"]')).waitFor();
    expect(await armedOf(runId!)).toBe('false');
    await studio.page.clock.runFor(1000);
    await armed(runId!).waitFor();
  });

  it('makes every card wait again when the app, not the person, scrolls the list', async () => {
    const runs = await startMany(7);
    await pause();
    await scrollList(() =>
      studio.page.evaluate(`(() => {
        const list = document.querySelector('.approvals-list');
        list.scrollTop = list.scrollHeight;
      })()`),
    );
    for (const runId of runs) expect(await armedOf(runId)).toBe('false');
  });

  it('keeps the cards armed while the person scrolls the list, and still disarms the card that then slides under the pointer', async () => {
    const runs = await startMany(8);
    // One decision first, so the "Last decision" line is there and no longer moves the list.
    const firstRun = runs.shift()!;
    await pressWhenArmed({
      card: cardOf(firstRun),
      button: cardOf(firstRun).getByRole('button', { name: 'A Approve' }),
      done: 'card-gone',
    });
    await studio.page.locator('.last-decision').waitFor();
    await studio.waitForApprovalCards(7);
    await studio.page.locator('.approval-card').nth(7).waitFor({ state: 'detached' });
    for (const runId of runs) await armed(runId).waitFor();
    await pause();
    const list = studio.page.locator('.approvals-list');
    const listBox = (await list.boundingBox())!;
    await studio.page.mouse.move(listBox.x + listBox.width / 2, listBox.y + listBox.height / 2);
    await scrollList(() => studio.page.mouse.wheel(0, 20000));
    const scrolled = await list.evaluate(
      (element) => element.scrollTop + element.clientHeight >= element.scrollHeight - 1,
    );
    expect(scrolled).toBe(true);
    // The person moved the cards themselves: every one still takes keys and clicks.
    for (const runId of runs) expect(await armedOf(runId)).toBe('true');

    // A decision on the last card: the list gets shorter, the browser pulls its scroll back, and
    // the card above slides down under the pointer. That move is not the person's scrolling.
    const last = runs[runs.length - 1]!;
    const approve = cardOf(last).getByRole('button', { name: 'A Approve' });
    let x = 0;
    let y = 0;
    // Pressed where its Approve button is, and again there if the card moved meanwhile and ignored
    // it (the clock runs on only while it waits to arm again).
    await pressWhenArmed({
      card: cardOf(last),
      button: approve,
      act: async () => {
        const box = (await approve.boundingBox())!;
        x = box.x + box.width / 2;
        y = box.y + box.height / 2;
        await studio.page.mouse.click(x, y);
      },
      done: 'card-gone',
      advance: () => studio.page.clock.runFor(900),
    });
    const decided = decideCalls();
    const under = (await studio.page.evaluate(`(() => {
      const card = document.elementFromPoint(${x}, ${y})?.closest('.approval-card');
      return card ? { runId: card.dataset.runId, armed: card.dataset.armed } : null;
    })()`)) as { runId: string; armed: string } | null;
    expect(under?.runId).toBe(runs[runs.length - 2]);
    expect(under?.armed).toBe('false');
    await studio.page.mouse.click(x, y);
    // Ignored, and the card says so.
    await cardOf(runs[runs.length - 2]!)
      .locator('.arming-notice', { hasText: /^Ignored: this card is arming/ })
      .waitFor();
    expect(decideCalls()).toBe(decided);
  });

  it('ran without console errors or CSP violations', () => {
    expect(studio.pageErrors).toEqual([]);
  });
});
