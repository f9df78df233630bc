import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StudioHarness } from './bridge.js';

describe('studio: stop a runaway script from the UI, and the unsaved-changes guard', () => {
  const studio = new StudioHarness();

  beforeAll(async () => {
    await studio.open();
    await studio.openExampleWorkspace();
    await studio.openAgent('echo-loop');
  });
  afterAll(async () => {
    await studio.close();
  });

  it('runs the unsaved buffer with Ctrl/⌘+Enter and stops it with Esc', async () => {
    await studio.replaceEditorText('.agent-editor .cm-content', 'while true do end\n');
    // The title and the editor mark the unsaved edit; the file on disk is untouched.
    await studio.page
      .getByRole('region', { name: 'Editor agents/echo-loop.lua' })
      .getByLabel('unsaved changes')
      .waitFor();
    expect(await studio.page.title()).toBe('● PromptForge Studio');

    await studio.page.keyboard.press('ControlOrMeta+Enter');
    await studio.page.getByRole('button', { name: 'Stop' }).waitFor();
    await studio.page.locator('.run-status .status-pill', { hasText: 'running' }).waitFor();
    await studio.page.keyboard.press('Escape');
    expect(await studio.waitForRunEnd()).toBe('stopped');
    const end = studio.page.getByRole('log', { name: 'Conversation' }).locator('.run-end');
    expect(await end.textContent()).toContain('Run stopped');
    expect(await end.textContent()).toContain('stopped from the studio');
    await studio.page.getByRole('button', { name: '▶ Run' }).waitFor();

    const onDisk = await readFile(path.join(studio.service.workspaceRoot!, 'agents', 'echo-loop.lua'), 'utf8');
    expect(onDisk).toContain('models.chat(messages');
  });

  it('asks before leaving unsaved edits, and Cancel keeps them', async () => {
    await studio.page.getByRole('button', { name: 'Agent weather-report', exact: true }).click();
    const dialog = studio.page.getByRole('dialog', { name: 'Discard unsaved changes?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await studio.page.locator('.agent-editor .cm-content').textContent()).toBe('while true do end');
    await studio.page.getByRole('button', { name: 'Agent weather-report', exact: true }).click();
    await dialog.getByRole('button', { name: 'Discard changes' }).click();
    await studio.page.getByRole('region', { name: 'Editor agents/weather-report.lua' }).waitFor();
    expect(await studio.page.title()).toBe('PromptForge Studio');
  });

  it('flags a Lua syntax error while typing, and the stop button also stops a run', async () => {
    await studio.replaceEditorText('.agent-editor .cm-content', 'for i = 1, 3 do\n  log(i)\n');
    await studio.page.locator('.cm-lintRange-error').first().waitFor();
    // Typed key by key, as a person would.
    await studio.page.keyboard.press('ControlOrMeta+End');
    await studio.page.keyboard.type('end\nwhile true do end');
    await studio.page.locator('.cm-lintRange-error').waitFor({ state: 'detached' });
    await studio.page.getByRole('button', { name: '▶ Run' }).click();
    await studio.page.getByRole('button', { name: 'Stop' }).click();
    expect(await studio.waitForRunEnd()).toBe('stopped');
  });

  it('ran without console errors or CSP violations', () => {
    expect(studio.pageErrors).toEqual([]);
  });
});
