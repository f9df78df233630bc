import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StudioHarness } from './bridge.js';

describe('studio: the Lua editor completes the host API and catalog aliases, and follows external edits', () => {
  const studio = new StudioHarness();

  beforeAll(async () => {
    await studio.open();
    await studio.openExampleWorkspace();
    await studio.openAgent('echo-loop');
  });
  afterAll(async () => {
    await studio.close();
  });

  const completions = () => studio.page.locator('.cm-tooltip-autocomplete li .cm-completionLabel').allTextContents();
  /**
   * Waits until the completion list is up to date and shows exactly `labels`. While the query for
   * the latest keystroke is pending (debounced, then run), CodeMirror keeps showing the previous
   * list, marked `cm-tooltip-autocomplete-disabled`: under load an open list may still hold the
   * options for what was typed before (`tools.call` for `tools.c`, when `tools.call('re` is typed).
   */
  const waitForCompletions = async (labels: string[]): Promise<void> => {
    await studio.page.locator('.cm-tooltip-autocomplete:not(.cm-tooltip-autocomplete-disabled)').waitFor();
    await expect.poll(completions, { timeout: 15_000 }).toEqual(labels);
  };

  it('completes the host API', async () => {
    await studio.replaceEditorText('.agent-editor .cm-content', '');
    await studio.page.keyboard.type('tools.c');
    await waitForCompletions(['tools.call', 'tools.calls']);
    await studio.page.keyboard.press('Escape');
  });

  it("completes tool aliases inside tools.call(' and model aliases after model = '", async () => {
    await studio.replaceEditorText('.agent-editor .cm-content', '');
    await studio.page.keyboard.type("tools.call('re");
    await waitForCompletions(['read_file', 'read_page']);
    await studio.page.keyboard.press('Escape');

    await studio.replaceEditorText('.agent-editor .cm-content', "models.chat(messages, { model = '");
    await studio.page.keyboard.press('ControlOrMeta+End');
    await studio.page.keyboard.type('c');
    await waitForCompletions(['claude']);
    // Picked with the mouse: CodeMirror ignores Enter for a moment after the list opens.
    await studio.page.locator('.cm-tooltip-autocomplete li', { hasText: 'claude' }).click();
    expect(await studio.page.locator('.agent-editor .cm-content').textContent()).toBe(
      "models.chat(messages, { model = 'claude",
    );
  });

  it('Tab indents; Esc then Tab leaves the editor, and the hint under the editor says so', async () => {
    await studio.replaceEditorText('.agent-editor .cm-content', 'local x = 1');
    const hint = studio.page.locator('.agent-editor .cm-tab-hint');
    await hint.waitFor();
    expect(await hint.textContent()).toBe('Tab indents · Esc then Tab leaves the editor');
    await studio.page.keyboard.press('Home');
    await studio.page.keyboard.press('Tab');
    expect(await studio.page.locator('.agent-editor .cm-content').textContent()).toMatch(/^\s+local x = 1$/);
    expect(await studio.focusedElement()).toBe('DIV.cm-content[Lua source of agents/echo-loop.lua]');
    // Esc, then any other key (here undo): still editing, Tab indents again.
    await studio.page.keyboard.press('Escape');
    expect(await hint.textContent()).toContain('Tab now leaves the editor');
    await studio.page.keyboard.press('ControlOrMeta+z');
    await studio.page.keyboard.press('Tab');
    expect(await studio.focusedElement()).toBe('DIV.cm-content[Lua source of agents/echo-loop.lua]');
    expect(await hint.textContent()).toBe('Tab indents · Esc then Tab leaves the editor');
    // Esc then Tab: focus moves on (to the run panel), the text is unchanged, nothing was stopped.
    const before = await studio.page.locator('.agent-editor .cm-content').textContent();
    await studio.page.keyboard.press('Escape');
    await studio.page.keyboard.press('Tab');
    expect(await studio.focusedElement()).not.toContain('cm-content');
    expect(await studio.page.locator('.agent-editor .cm-content').textContent()).toBe(before);
    await hint.waitFor({ state: 'hidden' });
    // Shift+Tab comes back in, and the next Tab indents again (the way out is one-shot).
    await studio.page.keyboard.press('Shift+Tab');
    expect(await studio.focusedElement()).toBe('DIV.cm-content[Lua source of agents/echo-loop.lua]');
    await studio.page.keyboard.press('Tab');
    expect(await studio.focusedElement()).toBe('DIV.cm-content[Lua source of agents/echo-loop.lua]');
    // And back out backwards: Esc then Shift+Tab reaches the toolbar.
    await studio.page.keyboard.press('Escape');
    await studio.page.keyboard.press('Shift+Tab');
    expect(await studio.focusedElement()).not.toContain('cm-content');
  });

  it('shows the shortcuts with ?, outside the editor', async () => {
    // The edited echo-loop keeps its unsaved edits in its tab.
    await studio.openAgent('summarize-page');
    await studio.agentButton('summarize-page').focus();
    await studio.page.keyboard.press('?');
    const dialog = studio.page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('Stop the running agent');
    expect(await dialog.textContent()).toContain('Ctrl/⌘ + Shift + .');
    expect(await dialog.textContent()).toContain('Esc, then Tab');
    await studio.page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  it('reloads the open agent when it changes on disk and has no unsaved edits', async () => {
    const file = path.join(studio.service.workspaceRoot!, 'agents', 'summarize-page.lua');
    await writeFile(file, "log('changed outside the studio')\n");
    await expect
      .poll(() => studio.page.locator('.agent-editor .cm-content').textContent(), { timeout: 15_000 })
      .toBe("log('changed outside the studio')");
    // Reloaded, not edited: its tab has no unsaved mark (echo-loop's tab still has its edits).
    expect(
      await studio.page
        .getByRole('tablist', { name: 'Open agents' })
        .getByRole('tab', { name: /^summarize-page/ })
        .getByLabel('unsaved changes')
        .count(),
    ).toBe(0);
  });

  it('saves the agent with Ctrl/⌘+S', async () => {
    const file = path.join(studio.service.workspaceRoot!, 'agents', 'summarize-page.lua');
    await studio.page.locator('.agent-editor .cm-content').click();
    await studio.page.keyboard.press('ControlOrMeta+End');
    await studio.page.keyboard.type("\nlog('saved with the keyboard')");
    await studio.page
      .getByRole('region', { name: 'Editor agents/summarize-page.lua' })
      .getByLabel('unsaved changes')
      .waitFor();
    await studio.page.keyboard.press('ControlOrMeta+s');
    await studio.page
      .getByRole('region', { name: 'Editor agents/summarize-page.lua' })
      .getByLabel('unsaved changes')
      .waitFor({ state: 'detached' });
    expect(await readFile(file, 'utf8')).toBe("log('changed outside the studio')\n\nlog('saved with the keyboard')");
  });

  it('remembers the light theme across a reload', async () => {
    await studio.page.getByRole('button', { name: 'Switch to light theme' }).click();
    await studio.page.reload();
    await studio.waitForAppShell();
    expect(await studio.page.locator('html').getAttribute('data-theme')).toBe('light');
    await studio.page.getByRole('button', { name: 'Switch to dark theme' }).click();
  });

  it('ran without console errors or CSP violations', () => {
    expect(studio.pageErrors).toEqual([]);
  });
});
