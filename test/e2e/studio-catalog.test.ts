import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StudioHarness } from './bridge.js';

describe('studio: the tools.yaml editor validates live and refuses broken saves', () => {
  const studio = new StudioHarness({ viewport: { width: 1440, height: 900 } });
  let original = '';
  let toolsFile = '';

  beforeAll(async () => {
    await studio.open();
    await studio.openExampleWorkspace();
    toolsFile = path.join(studio.service.workspaceRoot!, 'tools.yaml');
    original = await readFile(toolsFile, 'utf8');
  });
  afterAll(async () => {
    await studio.close();
  });

  const replaceText = (text: string): Promise<void> => studio.replaceEditorText('.catalog-editor .cm-content', text);

  it('opens tools.yaml from the explorer and shows it valid', async () => {
    await studio.page.getByRole('button', { name: 'Tools tools.yaml' }).click();
    const editor = studio.page.getByRole('region', { name: 'Catalog editor tools.yaml' });
    await editor.getByRole('status').filter({ hasText: 'Valid' }).waitFor();
    expect(await editor.locator('.cm-content').textContent()).toContain('read_page:');
  });

  it('shows a broken approval value with file:line:column, message and fix, and moves the cursor there', async () => {
    const broken = original.replace('  approval: ask', '  approval: sometimes');
    const line = broken.split('\n').findIndex((text) => text.includes('approval: sometimes')) + 1;
    await replaceText(broken);
    const problems = studio.page.getByRole('region', { name: 'Catalog editor tools.yaml' }).locator('.problem-item');
    await problems.first().waitFor();
    const location = await problems.first().locator('.problem-location').textContent();
    expect(location).toMatch(new RegExp(`^tools\\.yaml:${line}:\\d+$`));
    expect(await problems.first().locator('.problem-message').textContent()).toMatch(/approval/);
    expect(await problems.first().locator('.problem-fix').textContent()).toMatch(/^Fix: /);
    // The explorer badge is about the saved file, which is still fine.
    await problems.first().click();
    const cursorLine = await studio.page.locator('.catalog-editor .cm-activeLine').textContent();
    expect(cursorLine).toBe('  approval: sometimes');

    await studio.page.getByRole('button', { name: 'Save tools.yaml' }).click();
    await studio.page.getByText('Not saved: fix the 1 error first').waitFor();
    expect(await readFile(toolsFile, 'utf8')).toBe(original);
    await studio.screenshot('catalog-editor');
  });

  it('fixing the file clears the problems, and Save writes it', async () => {
    const fixed = original.replace('  approval: ask', '  approval: auto');
    await replaceText(fixed);
    const editor = studio.page.getByRole('region', { name: 'Catalog editor tools.yaml' });
    await editor.getByRole('status').filter({ hasText: 'Valid' }).waitFor();
    expect(await editor.getByText('No problems.').isVisible()).toBe(true);
    await studio.page.getByRole('button', { name: 'Save tools.yaml' }).click();
    await editor.getByText('Saved', { exact: true }).waitFor();
    expect(await readFile(toolsFile, 'utf8')).toBe(fixed);
    // The explorer follows the saved catalog: read_page no longer asks.
    const tools = studio.page
      .getByRole('navigation', { name: 'Workspace explorer' })
      .getByRole('region', { name: 'Tools' });
    await expect.poll(() => tools.locator('li', { hasText: 'read_page' }).textContent()).toBe('read_pageuntrusted');
  });

  it('edits the approval policy in the form view; the raw text keeps its comments', async () => {
    const editor = studio.page.getByRole('region', { name: 'Catalog editor tools.yaml' });
    await editor.getByRole('button', { name: 'Form' }).click();
    const approval = editor.getByLabel('read_page approval');
    expect(await approval.inputValue()).toBe('auto');
    await approval.selectOption('ask');
    await editor.getByRole('status').filter({ hasText: 'Valid' }).waitFor();
    await studio.page.getByRole('button', { name: 'Save tools.yaml' }).click();
    await editor.getByText('Saved', { exact: true }).waitFor();
    expect(await readFile(toolsFile, 'utf8')).toBe(original);
    await editor.getByRole('button', { name: 'Raw' }).click();
    expect(await editor.locator('.cm-content').textContent()).toContain('# echo, read_file, list_files');
  });

  it('badges the explorer when a catalog file on disk breaks (an external edit)', async () => {
    await writeFile(toolsFile, original.replace('  approval: ask', '  approval: maybe'));
    const badge = studio.page
      .getByRole('navigation', { name: 'Workspace explorer' })
      .getByLabel('1 problems in tools.yaml');
    await badge.waitFor();
    expect(await badge.textContent()).toBe('1');
    await writeFile(toolsFile, original);
    await badge.waitFor({ state: 'detached' });
  });

  it('ran without console errors or CSP violations', () => {
    expect(studio.pageErrors).toEqual([]);
  });
});
