import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINIMAL_TEST_FILE } from '../../common/test-example.js';
import { expectNoSeriousAxeViolations } from './axe.js';
import { StudioHarness } from './bridge.js';
import { examplesWithoutTests, TESTS_VIEW_CLIPPED, trustThenRunAll } from './tests-view-helpers.js';

// A case of the example agent echo-loop that expects another argument than the model gives, and a
// log line the script never writes: it fails at its first call, and after the run.
const FAILING = `cases:
  - name: echoes mars
    agent: agents/echo-loop.lua
    model:
      replies:
        - calls: [{ name: echo, arguments: { text: hello } }]
        - content: done
    expect:
      calls: [{ tool: echo, arguments: { text: mars } }]
      logs: { contains: never logged }
`;

describe('studio: the Tests view lists, runs and explains the workspace’s agent tests', () => {
  // The folder main's folder dialog answers (a stand-in): a copy of the examples without tests/,
  // opened later as a workspace nobody trusted yet.
  const untrusted = examplesWithoutTests('pf-e2e-untrusted-');
  // Main's answer to opening that folder can be held back (as on a busy machine, where main's events
  // reach the page before its answer does).
  let openHeld: Promise<void> | undefined;
  const studio = new StudioHarness({
    viewport: { width: 1280, height: 800 },
    chooseFolder: async () => untrusted,
    holdReply: (method) => (method === 'workspace:open' ? openHeld : undefined),
  });
  const list = () => studio.page.getByRole('listbox', { name: 'Test cases' });
  const option = (name: string) => list().getByRole('option', { name: new RegExp(`${name}$`) });
  const progress = () => studio.page.getByRole('progressbar', { name: 'Test run progress' });
  const details = () => studio.page.getByRole('region', { name: 'echoes mars' });

  beforeAll(async () => {
    await studio.open();
    studio.page.setDefaultTimeout(20_000);
    await studio.openExampleWorkspace();
    writeFileSync(path.join(studio.service.workspaceRoot!, 'tests', 'failing.yaml'), FAILING);
  });
  afterAll(async () => {
    await studio.close();
  });

  it('lists the test files and their cases, not run yet', async () => {
    await studio.page.getByRole('button', { name: 'Tests', exact: true }).click();
    await list().waitFor();
    const groups = await list()
      .getByRole('group')
      .evaluateAll((elements) => elements.map((element) => element.getAttribute('aria-label')));
    expect(groups).toEqual(['tests/examples.yaml', 'tests/failing.yaml']);
    expect(await list().getByRole('option').count()).toBe(5);
    expect(await list().locator('.test-status').allTextContents()).toEqual(Array(5).fill('not run'));
    await studio.page.getByText('5 cases in 2 files under tests/').waitFor();
  });

  it('runs all with progress, n of m, and each case’s status', async () => {
    // Every value the progress bar takes, recorded in the page as it changes.
    await studio.page.evaluate(`(() => {
      const seen = (globalThis.__pfProgress = []);
      new MutationObserver(() => {
        const bar = document.querySelector('[role="progressbar"]');
        const value = bar && Number(bar.getAttribute('aria-valuenow'));
        if (bar && seen.at(-1) !== value) seen.push(value);
      }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['aria-valuenow'] });
    })()`);
    await studio.page.getByRole('button', { name: 'Run all' }).click();
    await progress().waitFor();
    expect(await progress().getAttribute('aria-valuemax')).toBe('5');
    await studio.page.locator('.tests-progress').getByText('5 of 5 cases · 4 passed, 1 failed · finished').waitFor();
    const seen = (await studio.page.evaluate('globalThis.__pfProgress')) as number[];
    expect(seen[0]).toBe(0);
    expect(seen.at(-1)).toBe(5);
    expect([...seen].sort((a, b) => a - b)).toEqual(seen);
    expect(await progress().getAttribute('aria-valuetext')).toBe('5 of 5 cases');
    expect(await option('echoes mars').locator('.test-status').textContent()).toBe('failed');
    expect(await list().locator('.test-status-passed').count()).toBe(4);
    // Recorded under runs/tests/, and History stays as it was.
    expect(studio.service.state()!.runs).toEqual([]);
  });

  it('a failing case shows each assertion with expected, actual and the step', async () => {
    await option('echoes mars').click();
    const failures = details().getByRole('list', { name: 'Assertions that did not hold' }).getByRole('listitem');
    expect(await failures.count()).toBe(2);
    const first = failures.first();
    expect(await first.locator('.test-failure-field').textContent()).toBe('expect.calls[1].arguments');
    expect(await first.locator('.test-failure-head .muted').textContent()).toMatch(
      /^at event \d+ \(round 1, call 1\)$/,
    );
    expect(await first.locator('dd').allTextContents()).toEqual(['{"text":"mars"}', '{"text":"hello"}']);
    const second = failures.nth(1);
    expect(await second.locator('.test-failure-field').textContent()).toBe('expect.logs');
    expect(await second.locator('.test-failure-head .muted').textContent()).toMatch(
      /^after the run \(event \d+, its end\)$/,
    );
    expect(await second.locator('dd').first().textContent()).toBe('contains "never logged"');
  });

  it('opens the failing case at its diverging step in the conversation, where Fork from here works', async () => {
    await details().getByRole('button', { name: 'Open where it diverged' }).click();
    const conversation = studio.page.getByRole('log', { name: 'Conversation' });
    const note = conversation.locator('.diverged-note');
    await note.waitFor();
    expect(await note.textContent()).toMatch(/The test diverged here: expect\.calls\[1\]\.arguments at event \d+/);
    // Focus moved to the step, which is the first call's card, and it is in view.
    await expect.poll(() => studio.focusedElement()).toBe('P.diverged-note');
    const row = conversation.locator('.diverged-row');
    expect(await row.getByRole('article', { name: 'Tool call call-1' }).count()).toBe(1);
    const inView = await studio.page.evaluate(`(() => {
      const box = document.querySelector('.diverged-note').getBoundingClientRect();
      const pane = document.querySelector('.conversation-scroller').getBoundingClientRect();
      return box.top >= pane.top && box.bottom <= pane.bottom;
    })()`);
    expect(inView).toBe(true);
    await studio.screenshot('tests-diverged');
    // Fork from here, on that call: a new run, answered from the case's transcript, in History.
    await row.getByRole('button', { name: /^Fork from here: step \d+ \(echo call-1\)$/ }).click();
    const dialog = studio.page.getByRole('dialog', { name: /^Fork from step \d+$/ });
    await dialog.getByRole('button', { name: 'Fork', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await studio.waitForRunEnd()).toBe('ok');
    await expect.poll(() => studio.service.state()!.runs.map((run) => run.forkOf?.step !== undefined)).toEqual([true]);
  });

  it('is keyboard operable: one tab stop for the list, arrows move, Enter opens the run', async () => {
    await studio.page.getByRole('button', { name: 'Tests', exact: true }).click();
    await option('echoes mars').click();
    expect(await list().locator('[role="option"][tabindex="0"]').count()).toBe(1);
    await studio.page.keyboard.press('Home');
    expect(await list().locator('[aria-selected="true"]').getAttribute('data-case-id')).toBe(
      'examples/echo-loop-echoes-twice-then-answers',
    );
    await studio.page.keyboard.press('ArrowDown');
    expect(await studio.focusedElement()).toMatch(/^DIV\.tests-case\.current/);
    await studio.page.keyboard.press('End');
    expect(await list().locator('[aria-selected="true"]').getAttribute('data-case-id')).toBe('failing/echoes-mars');
    // Tab leaves the list at once (one stop), onto the selected case's buttons.
    await studio.page.keyboard.press('Tab');
    expect(await studio.page.evaluate('document.activeElement.closest("[role=listbox]") === null')).toBe(true);
    await studio.page.keyboard.press('Shift+Tab');
    await studio.page.keyboard.press('Enter');
    await studio.page.locator('.diverged-note').waitFor();
  });

  it('has no serious axe violations in either theme, with a failing case shown', async () => {
    await option('echoes mars').click();
    for (const theme of ['light', 'dark'] as const) {
      await studio.useTheme(theme);
      await expectNoSeriousAxeViolations(studio.page, `the Tests view (${theme})`);
      await studio.screenshot(`tests-view-${theme}`);
    }
  });

  it('clips nothing at 1024×700, side by side with the run panel', async () => {
    await studio.page.setViewportSize({ width: 1024, height: 700 });
    await option('echoes mars').click();
    await details().getByRole('button', { name: 'Run this case' }).waitFor();
    expect(await studio.page.evaluate(TESTS_VIEW_CLIPPED)).toEqual([]);
    await studio.screenshot('tests-view-1024');
    await studio.page.setViewportSize({ width: 1280, height: 800 });
  });

  it('in a workspace nobody trusted: teaches when empty, updates live, and never runs silently restricted', async () => {
    // The person picks Tests after main said the folder is restricted and before its answer to the
    // open came back: the view they chose stays when the open finishes (it is not replaced by the
    // workspace's first agent).
    let release = (): void => undefined;
    openHeld = new Promise((resolve) => (release = resolve));
    await studio.page.keyboard.press('ControlOrMeta+Shift+P');
    await studio.page.getByRole('combobox').fill('Open a folder…');
    await studio.page.keyboard.press('Enter');
    await studio.page.locator('main.workspace-area[aria-busy="true"]').waitFor();
    await studio.page.getByText('Restricted mode:').first().waitFor();
    await studio.page.getByRole('button', { name: 'Tests', exact: true }).click();
    openHeld = undefined;
    release();
    await studio.page.locator('main.workspace-area[aria-busy="false"]').waitFor();
    await studio.page.getByRole('heading', { name: 'No tests yet' }).waitFor();
    expect(await studio.page.locator('.tests-example').textContent()).toBe(MINIMAL_TEST_FILE);
    await studio.screenshot('tests-empty');
    // A file saved on disk shows up without a reload.
    mkdirSync(path.join(untrusted, 'tests'));
    writeFileSync(path.join(untrusted, 'tests', 'echo.yaml'), MINIMAL_TEST_FILE);
    await option('echoes hello, then answers').waitFor();

    await studio.page.getByRole('button', { name: 'Run all' }).click();
    const refusal = studio.page.getByRole('alert').filter({ hasText: 'tests never run restricted' });
    await refusal.waitFor();
    expect(existsSync(path.join(untrusted, 'runs', 'tests'))).toBe(false);
    expect(studio.person.asked).toEqual([]);
    await expectNoSeriousAxeViolations(studio.page, 'the Tests view refusing a restricted workspace');
    // The way out is the trust review, then main's own dialog, then the run.
    await trustThenRunAll(studio);
  });

  it('ran without console errors or CSP violations', () => {
    expect(studio.pageErrors).toEqual([]);
  });
});
