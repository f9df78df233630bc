import { mkdtemp, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoSeriousAxeViolations } from './axe.js';
import { StudioHarness } from './bridge.js';

describe('studio: quick open (Ctrl/⌘+P) and the file tree', () => {
  const studio = new StudioHarness({ viewport: { width: 1024, height: 700 } });

  beforeAll(async () => {
    await studio.open();
    await studio.openExampleWorkspace();
    const root = studio.service.workspaceRoot!;
    const outside = await mkdtemp(path.join(os.tmpdir(), 'promptforge-outside-'));
    await writeFile(path.join(outside, 'secret.txt'), 'not yours');
    await symlink(path.join(outside, 'secret.txt'), path.join(root, 'linked-secret.txt'));
    await writeFile(path.join(root, 'logo.bin'), Buffer.from([0, 1, 2, 3, 0xff]));
    await studio.openAgent('summarize-page');
  });
  afterAll(async () => {
    await studio.close();
  });

  const dialog = () => studio.page.getByRole('dialog', { name: 'Quick open' });
  const input = () => dialog().getByRole('combobox');

  it('opens with Ctrl/⌘+P from inside the editor, types nothing there, and Esc gives focus back', async () => {
    const editor = studio.page.locator('.agent-editor .cm-content');
    await editor.click();
    const before = await editor.textContent();
    await studio.page.keyboard.press('ControlOrMeta+p');
    await dialog().waitFor();
    expect(await studio.page.evaluate('document.activeElement.getAttribute("role")')).toBe('combobox');
    await expectNoSeriousAxeViolations(studio.page, 'quick open');
    await studio.page.keyboard.press('Escape');
    await dialog().waitFor({ state: 'detached' });
    expect(await studio.focusedElement()).toContain('cm-content');
    expect(await editor.textContent()).toBe(before);
  });

  it('finds an agent by the letters of its name and opens it with Enter', async () => {
    await studio.page.keyboard.press('ControlOrMeta+p');
    await input().fill('wrep');
    const first = dialog().getByRole('option').first();
    expect(await first.textContent()).toContain('weather-report');
    await studio.page.keyboard.press('Enter');
    await studio.page.getByRole('region', { name: 'Editor agents/weather-report.lua' }).waitFor();
  });

  it('"weather" offers the tool before the agent; picking it opens the tool trial', async () => {
    await studio.page.keyboard.press('ControlOrMeta+p');
    await input().fill('weather');
    const options = dialog().getByRole('option');
    expect(await options.first().textContent()).toMatch(/^weathertool/);
    await studio.page.keyboard.press('Enter');
    await studio.page.getByRole('region', { name: 'Try tool weather' }).waitFor();
  });

  it('opens a text file of the workspace read-only; a binary file says so; an agent file opens its editor', async () => {
    await studio.page.keyboard.press('ControlOrMeta+p');
    await input().fill('release-notes');
    // The files are listed once the dialog has read them: pick when the file is offered.
    await dialog().getByRole('option').first().filter({ hasText: 'release-notes.txt' }).waitFor();
    await studio.page.keyboard.press('Enter');
    const viewer = studio.page.getByRole('region', { name: 'File pages/release-notes.txt' });
    await viewer.waitFor();
    await viewer
      .locator('.cm-content')
      .getByText(/Lumen 2\.4/)
      .first()
      .waitFor();
    // Read-only: typing changes nothing.
    await viewer.locator('.cm-content').click();
    const text = await viewer.locator('.cm-content').textContent();
    await studio.page.keyboard.type('xyz');
    expect(await viewer.locator('.cm-content').textContent()).toBe(text);
    await studio.screenshot('file-viewer');

    await studio.page.keyboard.press('ControlOrMeta+p');
    await input().fill('logo.bin');
    await dialog().getByRole('option').first().filter({ hasText: 'logo.bin' }).waitFor();
    await studio.page.keyboard.press('Enter');
    await studio.page
      .getByRole('region', { name: 'File logo.bin' })
      .getByText(/^logo\.bin is not text/)
      .waitFor();
  });

  it('the file tree: one Tab stop, arrows open folders, Enter opens a file, a link out is listed and refused', async () => {
    const tree = studio.page.getByRole('tree', { name: 'Files' });
    await tree.scrollIntoViewIfNeeded();
    expect(await tree.locator('[tabindex="0"]').count()).toBe(1);
    await tree.locator('[tabindex="0"]').focus();
    await studio.page.keyboard.press('Home');
    const focusedName = () =>
      studio.page.evaluate(
        `document.activeElement.querySelector('.item-label')?.textContent ?? document.activeElement.outerHTML.slice(0, 120)`,
      );
    expect(await focusedName()).toBe('agentdojo');
    await studio.page.keyboard.press('ArrowDown');
    expect(await focusedName()).toBe('agents');
    await studio.page.keyboard.press('ArrowRight');
    expect(await tree.getByRole('treeitem', { name: /^agents$/ }).getAttribute('aria-expanded')).toBe('true');
    await studio.page.keyboard.press('ArrowRight');
    expect(await focusedName()).toBe('echo-loop.lua');
    await studio.page.keyboard.press('Enter');
    await studio.page.getByRole('region', { name: 'Editor agents/echo-loop.lua' }).waitFor();
    await tree.locator('[tabindex="0"]').focus();
    await studio.page.keyboard.press('ArrowLeft');
    expect(await focusedName()).toBe('agents');
    await studio.page.keyboard.press('ArrowLeft');
    expect(await tree.getByRole('treeitem', { name: /^agents$/ }).getAttribute('aria-expanded')).toBe('false');
    const link = tree.getByRole('treeitem', { name: /^linked-secret\.txt/ });
    expect(await link.getAttribute('aria-disabled')).toBe('true');
    // A person may still click it (Playwright waits for an enabled element unless forced).
    await link.click({ force: true });
    expect(await studio.page.getByRole('region', { name: 'File linked-secret.txt' }).count()).toBe(0);
    await expectNoSeriousAxeViolations(studio.page, 'the file tree');
  });

  it('ran without console errors or CSP violations', () => {
    expect(studio.pageErrors).toEqual([]);
  });
});
