import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StudioHarness } from './bridge.js';

describe('studio: run history; open, export and compare two runs', () => {
  // Stands in for the save dialog: answers a file in a folder of this test's own.
  const exportFolder = mkdtempSync(path.join(tmpdir(), 'pf-e2e-export-'));
  const suggestedNames: string[] = [];
  const studio = new StudioHarness({
    viewport: { width: 1440, height: 900 },
    chooseSaveFile: async (name) => {
      suggestedNames.push(name);
      return path.join(exportFolder, name);
    },
  });

  beforeAll(async () => {
    await studio.open();
    studio.page.setDefaultTimeout(10_000);
    await studio.openExampleWorkspace();
    await studio.openAgent('summarize-page');
  });
  afterAll(async () => {
    await studio.close();
  });

  it('replays the recording once as saved, once with an edited log line (after a confirmation)', async () => {
    await studio.page.getByRole('button', { name: 'Run offline (replay)' }).click();
    expect(await studio.waitForRunEnd()).toBe('ok');

    const original = await studio.page.locator('.agent-editor .cm-content').textContent();
    expect(original).toContain("log('model: ' .. result.content)");
    const edited = (await studio.service.files.readFile('agents/summarize-page.lua')).text.replace(
      "log('model: ' .. result.content)",
      "log('answer: ' .. result.content)",
    );
    await studio.replaceEditorText('.agent-editor .cm-content', edited);
    await studio.page.getByRole('button', { name: 'Run offline (replay)' }).click();
    const dialog = studio.page.getByRole('dialog', { name: 'Replay with unsaved edits?' });
    await dialog.getByRole('button', { name: 'Replay with my edits' }).click();
    await studio.page
      .locator('.run-status .status-pill', { hasText: 'running' })
      .or(studio.page.locator('.run-end'))
      .first()
      .waitFor();
    expect(await studio.waitForRunEnd()).toBe('ok');
    await studio.page.getByRole('log', { name: 'Conversation' }).getByText('answer: - Lumen 2.4').waitFor();
  });

  it('lists both runs in the history and compares them, highlighting the differing rows', async () => {
    await studio.page.getByRole('button', { name: 'Runs history' }).click();
    // The edited buffer is unsaved: it stays in its tab (nothing asks, nothing is lost).
    const table = studio.page.getByRole('table', { name: 'Runs' });
    await expect.poll(() => table.locator('tbody tr').count()).toBe(2);
    const runIds = await table
      .locator('tbody tr')
      .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-run-id')!));
    for (const runId of runIds) await table.getByLabel(`Select ${runId} for comparison`).check();
    await studio.page.getByRole('button', { name: 'Compare selected' }).click();
    const comparison = studio.page.getByRole('region', { name: 'Run comparison' });
    await comparison.locator('tbody tr').first().waitFor();
    const differing = comparison.locator('tr.row-differs');
    expect(await differing.count()).toBe(1);
    expect(await differing.first().textContent()).toContain('answer: - Lumen 2.4');
    // It opens at the first difference (below the fold among all rows): scrolled to and focused.
    const first = await studio.page.evaluate(`(() => {
      const row = document.activeElement.closest('tr');
      const pane = document.querySelector('.history-scroll').getBoundingClientRect();
      const box = row.getBoundingClientRect();
      return { differs: row.classList.contains('row-differs'), tag: row.querySelector('.tag')?.textContent, inView: box.top >= pane.top - 1 && box.bottom <= pane.bottom + 1 };
    })()`);
    expect(first).toEqual({ differs: true, tag: 'first difference', inView: true });
    expect(await comparison.locator('tr.row-same').count()).toBeGreaterThan(3);
    expect(await comparison.getByRole('heading').textContent()).toMatch(/^1 differing row of \d+$/);
    // The README's picture shows the differing row, which is below the fold among all rows.
    const onlyDifferences = comparison.getByRole('checkbox', { name: 'Only differences' });
    await onlyDifferences.check();
    await expect.poll(() => comparison.locator('tbody tr').count()).toBe(1);
    await studio.screenshot('history-compare');
    await onlyDifferences.uncheck();
  });

  it('opens a past run from the history in the conversation view', async () => {
    const table = studio.page.getByRole('table', { name: 'Runs' });
    const oldest = await table.locator('tbody tr').last().getAttribute('data-run-id');
    await table.getByRole('button', { name: `Open ${oldest}` }).click();
    const conversation = studio.page.getByRole('log', { name: 'Conversation' });
    await conversation.getByText('model: - Lumen 2.4').waitFor();
    expect(await conversation.getByText('answer: - Lumen 2.4').count()).toBe(0);
  });

  it('exports a run: main asks where to save, copies the transcript, and the view says where', async () => {
    const table = studio.page.getByRole('table', { name: 'Runs' });
    const runId = await table.locator('tbody tr').first().getAttribute('data-run-id');
    await table.getByRole('button', { name: `Export ${runId}` }).click();
    const saved = path.join(exportFolder, `${runId}.jsonl`);
    await studio.page
      .getByRole('status')
      .filter({ hasText: `Saved ${runId} to ${saved}` })
      .waitFor();
    expect(suggestedNames).toEqual([`${runId}.jsonl`]);
    const lines = readFileSync(saved, 'utf8').trim().split('\n');
    expect(JSON.parse(lines[0]!)).toMatchObject({ type: 'run-start', runId });
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ type: 'run-end', status: 'ok' });
    const original = studio.service.readPage(runId!, 0, 5000);
    expect(lines).toHaveLength(original.total);
  });

  it('ran without console errors or CSP violations', () => {
    expect(studio.pageErrors).toEqual([]);
  });
});
