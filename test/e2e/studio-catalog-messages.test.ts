import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StudioHarness } from './bridge.js';

describe('studio: a catalog value written the wrong way shows as typed, with one problem and one fix', () => {
  const studio = new StudioHarness({ viewport: { width: 1024, height: 700 } });

  beforeAll(async () => {
    await studio.open();
    await studio.openExampleWorkspace();
  });
  afterAll(async () => {
    await studio.close();
  });

  const editor = () => studio.page.getByRole('region', { name: 'Catalog editor tools.yaml' });

  it('command: node x.mjs shows "node x.mjs" in the form (not "None."), and one click makes it the list', async () => {
    await studio.page.getByRole('button', { name: /^Tools tools\.yaml/ }).click();
    await editor().getByRole('button', { name: 'Raw' }).click();
    await studio.replaceEditorText(
      '.catalog-editor .cm-content',
      'lint:\n  description: lints\n  kind: command\n  command: node tools/lint.mjs\n',
    );
    await editor().getByRole('button', { name: 'Form' }).click();
    const card = editor().getByRole('region', { name: 'tool lint', exact: true });
    const field = card.getByRole('group', { name: 'lint command (argv)' });
    await field.waitFor();
    expect(await field.getByRole('textbox').inputValue()).toBe('node tools/lint.mjs');
    expect(await field.getByText('None.').count()).toBe(0);
    const problems = card.locator('.field-problem');
    await expect
      .poll(() => problems.allTextContents())
      .toEqual([
        'tool "lint": "command" must be a list Fix: Write it as a list, one item per word: command: [node, tools/lint.mjs]',
      ]);
    await studio.screenshot('catalog-command-as-text');
    await field.getByRole('button', { name: 'Make it a list of 2 items' }).click();
    expect(await card.getByLabel('lint command (argv) item 1', { exact: true }).inputValue()).toBe('node');
    expect(await card.getByLabel('lint command (argv) item 2', { exact: true }).inputValue()).toBe('tools/lint.mjs');
    await expect.poll(() => problems.count()).toBe(0);
  });

  it('ran without console errors or CSP violations', () => {
    expect(studio.pageErrors).toEqual([]);
  });
});
