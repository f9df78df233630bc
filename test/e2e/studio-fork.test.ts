import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StudioHarness } from './bridge.js';

describe('studio: fork a run from any step', () => {
  const studio = new StudioHarness({ viewport: { width: 1440, height: 900 } });
  let parent = '';
  let fork = '';

  beforeAll(async () => {
    await studio.open();
    studio.page.setDefaultTimeout(10_000);
    await studio.openExampleWorkspace();
    await studio.openAgent('echo-loop');
  });
  afterAll(async () => {
    await studio.close();
  });

  it('shows each model round and tool output with its step and "Fork from here"', async () => {
    await studio.page.getByRole('button', { name: 'Run offline (replay)' }).click();
    expect(await studio.waitForRunEnd()).toBe('ok');
    parent = studio.service.state()!.runs[0]!.runId;
    const conversation = studio.page.getByRole('log', { name: 'Conversation' });
    // Three model rounds and two tool outputs: five steps.
    await expect.poll(() => conversation.getByRole('button', { name: /^Fork from here: step \d+/ }).count()).toBe(5);
    await conversation.getByRole('button', { name: /^Fork from here: step \d+ \(echo call-1\)$/ }).waitFor();
  });

  it('forks the last model round with an edited reply: a new run, answered from the recording', async () => {
    const conversation = studio.page.getByRole('log', { name: 'Conversation' });
    await conversation.getByRole('button', { name: /^Fork from here: step \d+ \(model round 3\)$/ }).click();
    const dialog = studio.page.getByRole('dialog', { name: /^Fork from step \d+$/ });
    await dialog.getByLabel('Edit the reply at this step').check();
    await dialog.getByLabel('Reply text').fill('I echoed it all, in a fork.');
    await studio.screenshot('fork-dialog');
    await dialog.getByRole('button', { name: 'Fork', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    await studio.page
      .getByRole('log', { name: 'Conversation' })
      .getByText('model: I echoed it all, in a fork.')
      .waitFor();
    expect(await studio.waitForRunEnd()).toBe('ok');
    const runs = studio.service.state()!.runs;
    const child = runs.find((run) => run.forkOf?.runId === parent);
    expect(child).toMatchObject({ agent: 'echo-loop', forkOf: { edited: true }, status: 'ok' });
    fork = child!.runId;
    const header = studio.page.getByRole('region', { name: 'Run panel' }).getByLabel('Run details');
    expect(await header.textContent()).toContain(`step ${child!.forkOf!.step} of`);
    await studio.screenshot('fork-run');
  });

  it('shows the fork under its parent in History, and compare marks the fork point and the changed words', async () => {
    await studio.page.getByRole('button', { name: /Runs\s*history/ }).click();
    const table = studio.page.getByRole('table', { name: 'Runs' });
    await table.locator(`tr[data-run-id="${fork}"]`).waitFor();
    const order = await table
      .locator('tbody tr')
      .evaluateAll((rows) => rows.map((row) => [row.getAttribute('data-run-id'), row.getAttribute('data-fork-depth')]));
    const parentAt = order.findIndex(([id]) => id === parent);
    expect(order[parentAt + 1]).toEqual([fork, '1']);
    expect(await table.locator(`tr[data-run-id="${fork}"]`).textContent()).toMatch(/fork @ \d+, edited/);

    await table.getByLabel(`Select ${parent} for comparison`).check();
    await table.getByLabel(`Select ${fork} for comparison`).check();
    await studio.page.getByRole('button', { name: 'Compare selected' }).click();
    const comparison = studio.page.getByRole('region', { name: 'Run comparison' });
    await comparison.locator('tr.fork-point').waitFor();
    expect(await comparison.locator('tr.fork-point').textContent()).toContain('fork point');
    // In-row diff: only the changed part is marked, not the whole row.
    const marks = await comparison.locator('tr.row-differs mark').allTextContents();
    expect(marks.some((text) => text.includes('it all, in a fork'))).toBe(true);
    expect(marks.every((text) => !text.startsWith('"I echoed'))).toBe(true);
    expect(await comparison.getByRole('columnheader').allTextContents()).toEqual(
      expect.arrayContaining([expect.stringMatching(/^echo-loop/), expect.stringMatching(/^echo-loop/)]),
    );
    expect(await comparison.getByRole('alert').count()).toBe(0);
    await studio.screenshot('fork-compare');
  });

  it('a fork of a run whose script changed since says so, and forks anyway when asked', async () => {
    const table = studio.page.getByRole('table', { name: 'Runs' });
    await table.getByRole('button', { name: `Open ${parent}` }).click();
    const file = path.join(studio.service.workspaceRoot!, 'agents/echo-loop.lua');
    writeFileSync(file, `${readFileSync(file, 'utf8')}-- edited after the run\n`);
    const conversation = studio.page.getByRole('log', { name: 'Conversation' });
    await conversation.getByRole('button', { name: /^Fork from here: step \d+ \(model round 3\)$/ }).click();
    const dialog = studio.page.getByRole('dialog', { name: /^Fork from step \d+$/ });
    await dialog.getByRole('button', { name: 'Fork', exact: true }).click();
    await dialog
      .getByRole('alert')
      .getByText(/The script changed since this run: .*agents\/echo-loop\.lua changed since run/)
      .waitFor();
    await studio.screenshot('fork-script-changed');
    const before = studio.service.state()!.runs.length;
    await dialog.getByRole('button', { name: 'Fork anyway' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => studio.service.state()!.runs.length).toBe(before + 1);
  });

  it('ran without console errors or CSP violations', () => {
    expect(studio.pageErrors).toEqual([]);
  });
});
