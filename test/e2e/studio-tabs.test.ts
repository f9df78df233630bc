import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoSeriousAxeViolations } from './axe.js';
import { StudioHarness } from './bridge.js';

/**
 * The agent editor's tabs: each tab keeps its own undo history (and selection) across tab
 * switches and saves, and a tab closes from the keyboard alone (Delete on the focused tab), with
 * the unsaved-edits question answered by keyboard too.
 */
describe('studio: agent tabs keep their undo history and close from the keyboard', () => {
  let folder = '';
  let studio: StudioHarness;
  const original: Record<string, string> = {
    alpha: "log('alpha')",
    beta: "log('beta')",
    gamma: "log('gamma')",
    delta: "log('delta')",
  };

  beforeAll(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), 'promptforge-tabs-'));
    await mkdir(path.join(folder, 'agents'));
    for (const [name, text] of Object.entries(original)) {
      await writeFile(path.join(folder, 'agents', `${name}.lua`), `${text}\n`);
    }
    studio = new StudioHarness({ chooseFolder: async () => folder });
    await studio.open();
    studio.page.setDefaultTimeout(15_000);
    await studio.page.getByRole('button', { name: 'Open a folder…' }).click();
    await studio.agentButton('alpha').waitFor();
    for (const name of ['alpha', 'beta', 'gamma', 'delta']) await studio.openAgent(name);
  });
  afterAll(async () => {
    await studio.close();
    await rm(folder, { recursive: true, force: true });
  });

  const page = () => studio.page;
  const tablist = () => page().getByRole('tablist', { name: 'Open agents' });
  const tab = (name: string) => tablist().getByRole('tab', { name: new RegExp(`^${name}\\b`) });
  const content = () => page().locator('.agent-editor .cm-content');
  const editorText = () => content().textContent();
  /** The text of the focused element (in the light DOM). */
  const focusedText = () => page().evaluate<string>("document.activeElement?.textContent ?? ''");

  /** Shows agent `name` by a click on its tab, and waits for its editor. */
  const showTab = async (name: string): Promise<void> => {
    await tab(name).click();
    await page()
      .getByRole('region', { name: `Editor agents/${name}.lua` })
      .waitFor();
  };
  /** Types `text` at the end of the shown agent's first line, as one undo step. */
  const typeAtEnd = async (text: string): Promise<void> => {
    await content().click();
    await page().keyboard.press('ControlOrMeta+Home');
    await page().keyboard.press('End');
    await page().keyboard.type(text);
  };
  /** Focuses the editor without a click (a click would move the cursor) and presses Ctrl/⌘+Z. */
  const undoInEditor = async (): Promise<void> => {
    await content().focus();
    await page().keyboard.press('ControlOrMeta+z');
  };

  it('Ctrl+Z after switching tabs and back undoes the edit made before the switch, also after a save', async () => {
    await showTab('alpha');
    await typeAtEnd(' -- edited');
    await expect.poll(editorText).toBe(`${original.alpha} -- edited`);
    // Saving keeps the undo history.
    await page().keyboard.press('ControlOrMeta+s');
    await tab('alpha').getByLabel('unsaved changes').waitFor({ state: 'detached' });
    await expect
      .poll(() => readFile(path.join(folder, 'agents', 'alpha.lua'), 'utf8'))
      .toBe(`${original.alpha} -- edited\n`);

    await showTab('beta');
    await expect.poll(editorText).toBe(original.beta);
    await showTab('alpha');
    await expect.poll(editorText).toBe(`${original.alpha} -- edited`);
    await undoInEditor();
    await expect.poll(editorText).toBe(original.alpha);
    // The selection came back too: what is typed now lands where the cursor was left.
    await page().keyboard.type('!');
    await expect.poll(editorText).toBe(`${original.alpha}!`);
    await page().keyboard.press('ControlOrMeta+z');
    await expect.poll(editorText).toBe(original.alpha);
    // Redo also survives a switch.
    await showTab('beta');
    await showTab('alpha');
    await content().focus();
    await page().keyboard.press('ControlOrMeta+Shift+z');
    await expect.poll(editorText).toBe(`${original.alpha}!`);
    await page().keyboard.press('ControlOrMeta+z');
    await expect.poll(editorText).toBe(original.alpha);
    // The undone text differs from the saved one; saving it leaves alpha clean for the tests below.
    await page().keyboard.press('ControlOrMeta+s');
    await tab('alpha').getByLabel('unsaved changes').waitFor({ state: 'detached' });
  });

  it('each tab has its own history: undo in one never undoes an edit of another', async () => {
    await showTab('beta');
    await typeAtEnd(' -- beta edit');
    await showTab('gamma');
    await typeAtEnd(' -- gamma edit');
    await showTab('beta');
    await expect.poll(editorText).toBe(`${original.beta} -- beta edit`);
    await undoInEditor();
    await expect.poll(editorText).toBe(original.beta);
    // Nothing more to undo in beta: gamma's edit is not in beta's history.
    await page().keyboard.press('ControlOrMeta+z');
    expect(await editorText()).toBe(original.beta);

    await showTab('gamma');
    await expect.poll(editorText).toBe(`${original.gamma} -- gamma edit`);
    await undoInEditor();
    await expect.poll(editorText).toBe(original.gamma);
    await page().keyboard.press('ControlOrMeta+z');
    expect(await editorText()).toBe(original.gamma);
    for (const name of ['beta', 'gamma']) {
      expect(await tab(name).getByLabel('unsaved changes').count()).toBe(0);
    }
  });

  it('the tab strip with several tabs, one with unsaved edits and one focused, passes axe', async () => {
    await showTab('delta');
    await typeAtEnd(' -- unsaved');
    await tab('delta').getByLabel('unsaved changes').waitFor();
    await tab('gamma').focus();
    expect(await tablist().getByRole('tab').count()).toBe(4);
    await expectNoSeriousAxeViolations(page(), 'four agent tabs, one with unsaved edits');
    // axe's experimental rule (off by default): a control's accessible name holds its visible label.
    // The audit above installed axe in the page.
    const mismatches = await page().evaluate(`(async () => {
      const result = await globalThis.axe.run(document.querySelector('.agent-tab-strip'), {
        runOnly: { type: 'rule', values: ['label-content-name-mismatch'] },
        resultTypes: ['violations'],
      });
      return result.violations.flatMap((violation) => violation.nodes.map((node) => node.html));
    })()`);
    expect(mismatches).toEqual([]);
  });

  it('Delete in the editor edits the text and never closes the tab', async () => {
    await showTab('gamma');
    await content().click();
    await page().keyboard.press('ControlOrMeta+End');
    await page().keyboard.press('Delete');
    expect(await tablist().getByRole('tab').count()).toBe(4);
    expect(await tab('gamma').getAttribute('aria-selected')).toBe('true');
  });

  it('closes a tab by keyboard only: Delete on the focused tab, and the unsaved-edits question answered by keys', async () => {
    // Keyboard only from here: Esc then Tab leaves the editor; Shift+Tab goes back to the tab strip.
    await page().keyboard.press('Escape');
    for (let step = 0; step < 12 && !(await focusedText()).startsWith('gamma'); step++) {
      await page().keyboard.press('Shift+Tab');
    }
    expect(await focusedText()).toMatch(/^gamma/);
    await page().keyboard.press('ArrowRight');
    expect(await focusedText()).toMatch(/^delta/);
    expect(await tab('delta').getAttribute('aria-selected')).toBe('true');

    // delta has unsaved edits: Delete asks; Esc keeps the tab, and focus goes back to it.
    await page().keyboard.press('Delete');
    const dialog = page().getByRole('dialog', { name: 'Close delta with unsaved edits?' });
    await dialog.waitFor();
    expect(await studio.focusedElement()).toBe('BUTTON.button');
    expect(await focusedText()).toBe('Cancel');
    await page().keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await tablist().getByRole('tab').count()).toBe(4);
    await expect.poll(focusedText).toMatch(/^delta/);

    // Enter on Cancel keeps it too.
    await page().keyboard.press('Delete');
    await dialog.waitFor();
    await page().keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });
    expect(await tablist().getByRole('tab').count()).toBe(4);
    await expect.poll(focusedText).toMatch(/^delta/);

    // Tab to "Discard edits and close", then Enter: the tab closes and focus stays in the strip.
    await page().keyboard.press('Delete');
    await dialog.waitFor();
    await page().keyboard.press('Tab');
    expect(await focusedText()).toBe('Discard edits and close');
    await page().keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });
    await tab('delta').waitFor({ state: 'detached' });
    expect(await tablist().getByRole('tab').count()).toBe(3);
    await expect.poll(focusedText).toMatch(/^gamma/);
    expect(await tab('gamma').getAttribute('aria-selected')).toBe('true');
    expect(await readFile(path.join(folder, 'agents', 'delta.lua'), 'utf8')).toBe(`${original.delta}\n`);

    // A clean tab closes at once; focus moves to the tab that took its place.
    await page().keyboard.press('Home');
    expect(await focusedText()).toMatch(/^alpha/);
    await page().keyboard.press('Delete');
    await tab('alpha').waitFor({ state: 'detached' });
    expect(await tablist().getByRole('tab').count()).toBe(2);
    await expect.poll(focusedText).toMatch(/^beta/);
    expect(await tab('beta').getAttribute('aria-selected')).toBe('true');
  });

  it('a closed and reopened agent starts with a fresh history', async () => {
    await studio.openAgent('alpha');
    await expect.poll(editorText).toBe(original.alpha);
    await undoInEditor();
    expect(await editorText()).toBe(original.alpha);
  });

  it('a renamed agent keeps its undo history under the new name', async () => {
    await typeAtEnd(' -- before the rename');
    await tab('alpha').getByLabel('unsaved changes').waitFor();
    await page().getByRole('button', { name: 'File', exact: true }).click();
    await page().getByRole('button', { name: 'Rename…' }).click();
    const dialog = page().getByRole('dialog', { name: 'Rename alpha' });
    await dialog.getByLabel('Agent name').fill('omega');
    await dialog.getByRole('button', { name: 'Rename', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    await page().getByRole('region', { name: 'Editor agents/omega.lua' }).waitFor();
    expect(await tab('omega').getAttribute('aria-selected')).toBe('true');
    await expect.poll(editorText).toBe(`${original.alpha} -- before the rename`);
    await undoInEditor();
    await expect.poll(editorText).toBe(original.alpha);
    await tab('omega').getByLabel('unsaved changes').waitFor({ state: 'detached' });
  });

  it('closing the last tab by keyboard leaves focus on the empty editor, not on the page', async () => {
    await tablist().getByRole('tab').first().focus();
    for (let left = await tablist().getByRole('tab').count(); left > 0; left--) {
      // Focus is on the first tab (closing one focuses the tab that took its place).
      const dirty = (await tablist().getByRole('tab').first().getByLabel('unsaved changes').count()) > 0;
      await page().keyboard.press('Delete');
      if (dirty) {
        // A tab with unsaved edits asks first: Tab to "Discard edits and close", then Enter.
        const question = page().getByRole('dialog', { name: /with unsaved edits\?$/ });
        await question.waitFor();
        await page().keyboard.press('Tab');
        await page().keyboard.press('Enter');
        await question.waitFor({ state: 'detached' });
      }
      await expect.poll(() => tablist().getByRole('tab').count()).toBe(left - 1);
    }
    await expect.poll(focusedText).toBe('New agent…');
  });

  it('ran without console errors or CSP violations', () => {
    expect(studio.pageErrors).toEqual([]);
  });
});
