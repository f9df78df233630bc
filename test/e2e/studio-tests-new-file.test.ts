/**
 * The Tests view's "New test file…" (named in a small dialog, checked, written by main, opened in
 * the file viewer) and its results across a restart: the studio closed and opened again on the same
 * userData and workspace shows the last run's results, marked as an earlier session's.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { expectNoSeriousAxeViolations } from './axe.js';
import { StudioHarness } from './bridge.js';
import { examplesWithoutTests, TESTS_VIEW_CLIPPED, trustThenRunAll } from './tests-view-helpers.js';

describe('studio: a new test file from the Tests view, and its results after a restart', () => {
  const workspace = examplesWithoutTests('pf-e2e-new-tests-');
  const userData = mkdtempSync(path.join(tmpdir(), 'pf-e2e-new-tests-data-'));
  const harness = () =>
    new StudioHarness({
      viewport: { width: 1024, height: 700 },
      userDataDirectory: userData,
      chooseFolder: async () => workspace,
    });
  let studio = harness();
  const list = () => studio.page.getByRole('listbox', { name: 'Test cases' });
  const option = (name: string) => list().getByRole('option', { name: new RegExp(`${name}$`) });
  const openFolder = async () => {
    await studio.page.keyboard.press('ControlOrMeta+Shift+P');
    await studio.page.getByRole('combobox').fill('Open a folder…');
    await studio.page.keyboard.press('Enter');
    await studio.agentButtons().first().waitFor();
    await studio.page.locator('main.workspace-area[aria-busy="false"]').waitFor();
  };
  afterAll(async () => {
    await studio.close();
  });

  it('names the file in a dialog that refuses a bad name, writes it for the open agent, and opens it', async () => {
    await studio.open();
    studio.page.setDefaultTimeout(20_000);
    await openFolder();
    await studio.openAgent('echo-loop');
    await studio.page.getByRole('button', { name: 'Tests', exact: true }).click();
    await studio.page.getByRole('heading', { name: 'No tests yet' }).waitFor();
    const dialog = studio.page.getByRole('dialog', { name: 'New test file' });
    const field = dialog.getByRole('textbox', { name: 'Test file name' });
    const newButton = studio.page.locator('.tests-empty').getByRole('button', { name: 'New test file…' });
    // In each theme (switched with the dialog closed: it is modal), a bad name is refused in it.
    for (const theme of ['light', 'dark'] as const) {
      await studio.useTheme(theme);
      await newButton.click();
      await expect.poll(() => studio.focusedElement()).toMatch(/^INPUT/);
      await field.fill('../smoke');
      await dialog.getByRole('button', { name: 'Create' }).click();
      const error = dialog.getByRole('alert');
      expect(await error.textContent()).toMatch(/slash or backslash; test files live directly in tests\//);
      expect(await field.getAttribute('aria-invalid')).toBe('true');
      await expectNoSeriousAxeViolations(studio.page, `the New test file dialog (${theme})`);
      expect(await studio.page.evaluate(TESTS_VIEW_CLIPPED)).toEqual([]);
      await studio.screenshot(`tests-new-file-dialog-${theme}`);
      // Escape closes it, and focus goes back to the button that opened it.
      await studio.page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      await expect.poll(() => studio.page.evaluate('document.activeElement.textContent')).toBe('New test file…');
    }
    await studio.page.keyboard.press('Enter');
    await field.fill('smoke');
    await studio.page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });
    // The file opens in the viewer, and focus is in its text.
    const viewer = studio.page.getByRole('region', { name: 'File tests/smoke.yaml' });
    await viewer.locator('.cm-content').waitFor();
    await expect.poll(() => studio.focusedElement()).toMatch(/cm-content/);
    expect(readFileSync(path.join(workspace, 'tests', 'smoke.yaml'), 'utf8')).toContain(
      'agent: agents/echo-loop.lua\n',
    );
    expect(await viewer.locator('.cm-content').textContent()).toContain('agent: agents/echo-loop.lua');
  });

  it('lists the new case, and a file of that name is refused by main', async () => {
    await studio.page.getByRole('button', { name: 'Tests', exact: true }).click();
    await option('echo-loop ends ok').waitFor();
    expect(await option('echo-loop ends ok').locator('.test-status').textContent()).toBe('not run');
    await studio.page.locator('.tests-view .editor-toolbar').getByRole('button', { name: 'New test file…' }).click();
    const dialog = studio.page.getByRole('dialog', { name: 'New test file' });
    await dialog.getByRole('textbox', { name: 'Test file name' }).fill('SMOKE');
    await dialog.getByRole('button', { name: 'Create' }).click();
    expect(await dialog.getByRole('alert').textContent()).toMatch(/tests\/smoke\.yaml already exists/);
    // Cancel: focus goes back to the button that opened the dialog.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => studio.focusedElement()).toMatch(/^BUTTON/);
    expect(await studio.page.evaluate('document.activeElement.textContent')).toBe('New test file…');
    expect(await studio.page.evaluate(TESTS_VIEW_CLIPPED)).toEqual([]);
  });

  it('runs it once the workspace is trusted', async () => {
    await studio.page.getByRole('button', { name: 'Run all' }).click();
    await trustThenRunAll(studio);
    expect(await option('echo-loop ends ok').locator('.test-status').textContent()).toBe('passed');
    expect(await studio.page.locator('.tests-earlier').count()).toBe(0);
    expect(studio.pageErrors).toEqual([]);
  });

  it('after a restart, shows the last results, marked as from an earlier session with their time', async () => {
    await studio.close();
    studio = harness();
    await studio.open();
    studio.page.setDefaultTimeout(20_000);
    await openFolder();
    await studio.page.getByRole('button', { name: 'Tests', exact: true }).click();
    const badge = option('echo-loop ends ok').locator('.test-status');
    await expect.poll(() => badge.textContent()).toBe('passed (earlier)');
    const note = studio.page.locator('.tests-earlier');
    expect(await note.textContent()).toMatch(
      /^Results marked earlier are from an earlier session: the run of .+ \(runs\/tests\/suite-[^)]+\)\. Run the cases to see this session’s\.$/,
    );
    const details = studio.page.getByRole('region', { name: 'echo-loop ends ok' });
    expect(await details.locator('.test-earlier-note').textContent()).toMatch(/^From an earlier session: run .+\.$/);
    for (const theme of ['light', 'dark'] as const) {
      await studio.useTheme(theme);
      await expectNoSeriousAxeViolations(studio.page, `the Tests view with an earlier session's results (${theme})`);
    }
    expect(await studio.page.evaluate(TESTS_VIEW_CLIPPED)).toEqual([]);
    await studio.screenshot('tests-earlier-session');
    // Its run opens in the conversation, from the suite's own folder.
    await details.getByRole('button', { name: 'Open its run' }).click();
    await studio.page
      .getByRole('log', { name: 'Conversation' })
      .getByText('Hello from the scripted model.')
      .first()
      .waitFor();
    expect(studio.pageErrors).toEqual([]);
  });
});
