import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StudioHarness } from './bridge.js';

describe('studio: what a run costs, and the spending cap', () => {
  let studio: StudioHarness;

  beforeAll(async () => {
    studio = new StudioHarness();
    await studio.open();
    await studio.openExampleWorkspace();
    await studio.openAgent('summarize-page');
  });
  afterAll(async () => {
    await studio.close();
  });

  const runPanel = () => studio.page.getByRole('region', { name: 'Run panel' });

  it('a replay costs nothing, and the run and each round say why (never a bare dash)', async () => {
    await studio.page.getByRole('button', { name: 'Run offline (replay)' }).click();
    expect(await studio.waitForRunEnd()).toBe('ok');
    const header = runPanel().getByRole('definition').filter({ hasText: /^\$/ });
    expect(await header.first().textContent()).toBe('$0');
    await studio.showRunTab('Usage/Timing');
    const usage = runPanel().getByRole('table', { name: 'Usage per round' });
    const firstRound = usage.locator('tbody tr').first();
    expect(await firstRound.textContent()).toContain('replay, nothing sent');
    expect(await usage.textContent()).not.toContain('—');
    // The history lists it at $0 too.
    await studio.page
      .getByRole('navigation', { name: 'Workspace explorer' })
      .getByRole('button', { name: /^Runs history/ })
      .click();
    const history = studio.page.getByRole('table').filter({ hasText: 'summarize-page' }).first();
    await history.waitFor();
    expect(await history.textContent()).toContain('$0');
    await studio.showRunTab('Conversation');
  });

  it('the cap set in Credentials stops the next run at the round that reaches it, and says so', async () => {
    await studio.page.getByRole('button', { name: 'Credentials' }).click();
    const cap = studio.page.getByRole('region', { name: 'Spending cap' });
    await cap.getByRole('textbox', { name: 'Tokens per run' }).fill('-3');
    // The form checks as the person types: wait for its word, then the button it turned off.
    await cap.getByText('Tokens per run: type a positive number, or leave it empty for no cap.').waitFor();
    await expect.poll(() => cap.getByRole('button', { name: 'Save cap' }).isDisabled()).toBe(true);
    await cap.getByRole('textbox', { name: 'Tokens per run' }).fill('100');
    await cap.getByRole('button', { name: 'Save cap' }).click();
    await cap
      .getByRole('status')
      .filter({ hasText: 'Saved. A run stops at the round that reaches 100 tokens.' })
      .waitFor();
    await studio.screenshot('spending-cap-setting');

    await studio.openAgent('summarize-page');
    await studio.page.getByRole('button', { name: 'Run offline (replay)' }).click();
    // The pill of this run (the previous run's said ok).
    await runPanel()
      .locator('.run-status .status-pill', { hasText: /^limit$/ })
      .waitFor();
    await runPanel()
      .getByText(/spending cap reached: round 2 brought the run to \d+ tokens \(cap 100\)/)
      .first()
      .waitFor();

    await studio.page.getByRole('button', { name: 'Credentials' }).click();
    // The saved cap shows once read (what is typed before then stays), and the person clears it.
    await expect.poll(() => cap.getByRole('textbox', { name: 'Tokens per run' }).inputValue()).toBe('100');
    await cap.getByRole('textbox', { name: 'Tokens per run' }).fill('');
    await cap.getByRole('button', { name: 'Save cap' }).click();
    await cap.getByRole('status').filter({ hasText: 'No cap' }).waitFor();
  });

  it('ran without console errors or CSP violations', () => {
    expect(studio.pageErrors).toEqual([]);
  });
});
