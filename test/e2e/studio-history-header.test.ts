import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StudioHarness } from './bridge.js';

describe('studio: history that says what it shows', () => {
  const studio = new StudioHarness({ viewport: { width: 1440, height: 900 } });

  beforeAll(async () => {
    await studio.open();
    studio.page.setDefaultTimeout(10_000);
    await studio.openExampleWorkspace();
  });
  afterAll(async () => {
    await studio.close();
  });

  it('an opened run has a header: agent, the model that answered, start, duration, status and cost', async () => {
    await studio.openAgent('weather-report');
    await studio.page.getByRole('button', { name: 'Run offline (replay)' }).click();
    expect(await studio.waitForRunEnd()).toBe('ok');
    await studio.openAgent('echo-loop');
    await studio.page.getByRole('button', { name: 'Run offline (replay)' }).click();
    await studio.page.getByRole('log', { name: 'Conversation' }).getByText('echo ran 2 times').waitFor();

    await studio.page.getByRole('button', { name: /Runs\s*history/ }).click();
    const table = studio.page.getByRole('table', { name: 'Runs' });
    await expect.poll(() => table.locator('tbody tr').count()).toBe(2);
    const weather = studio.service.state()!.runs.find((run) => run.agent === 'weather-report')!;
    await table.getByRole('button', { name: `Open ${weather.runId}` }).click();
    const header = studio.page.getByRole('region', { name: 'Run panel' }).getByLabel('Run details');
    await header.getByText('weather-report').waitFor();
    const text = (await header.textContent()) ?? '';
    // The recorded model, the workspace's own `fast` (examples/recordings are recorded with it).
    expect(text).toContain('fast');
    expect(text).toContain('(openai)');
    expect(text).toContain('replayed');
    expect(text).toMatch(/Duration\d/);
    expect(text).toContain('ok');
    // A replay sent nothing: it cost nothing, and says so (not a bare dash).
    expect(text).toMatch(/Cost\$0/);
    expect(await table.locator(`tr[data-run-id="${weather.runId}"]`).textContent()).toContain('weather-report');
    await studio.screenshot('history-run-header');
  });

  it('lists a running run at once, and shows it ended when it ends', async () => {
    const root = studio.service.workspaceRoot!;
    writeFileSync(path.join(root, 'agents/spin.lua'), "log('spinning')\nwhile true do end\n");
    await studio.page.getByRole('button', { name: /spin/ }).first().waitFor();
    const { runId } = await studio.service.startRun({ script: 'agents/spin.lua' });
    const row = studio.page.getByRole('table', { name: 'Runs' }).locator(`tr[data-run-id="${runId}"]`);
    await row.locator('.status-pill', { hasText: 'running' }).waitFor();
    await studio.screenshot('history-running-run');
    expect(studio.service.stopRun(runId)).toEqual({ stopped: true });
    await row.locator('.status-pill', { hasText: 'stopped' }).waitFor();
  });

  it('compare heads its columns with agents and times and warns when the scripts differ', async () => {
    const runs = studio.service.state()!.runs;
    const echo = runs.find((run) => run.agent === 'echo-loop')!;
    const weather = runs.find((run) => run.agent === 'weather-report')!;
    const table = studio.page.getByRole('table', { name: 'Runs' });
    await table.getByLabel(`Select ${echo.runId} for comparison`).check();
    await table.getByLabel(`Select ${weather.runId} for comparison`).check();
    await studio.page.getByRole('button', { name: 'Compare selected' }).click();
    const comparison = studio.page.getByRole('region', { name: 'Run comparison' });
    const warning = comparison.getByRole('alert');
    await warning.waitFor();
    expect(await warning.textContent()).toMatch(/These runs ran different scripts/);
    const headers = await comparison.getByRole('columnheader').allTextContents();
    const agents = headers.slice(2).map((h) => /^(echo-loop|weather-report)/.exec(h)?.[1]);
    expect(agents.sort()).toEqual(['echo-loop', 'weather-report']);
    // The time under each agent name is the run's start, as the runs list shows it.
    expect(headers.slice(2).every((h) => /\d{2}:\d{2}:\d{2}/.test(h))).toBe(true);
    expect(headers.join(' ')).not.toContain('run-20');
    await studio.screenshot('history-compare-header');
  });

  it("a tool trial's header says it used no model", async () => {
    // weather is `approval: auto`: the trial runs to its end with no card to answer.
    const { runId } = await studio.service.tryTool('weather', { city: 'Oslo' });
    expect((await studio.waitForTranscriptEvent(runId, 'run-end')).at(-1)).toMatchObject({ status: 'ok' });
    const table = studio.page.getByRole('table', { name: 'Runs' });
    await table.getByRole('button', { name: `Open ${runId}` }).click();
    const header = studio.page.getByRole('region', { name: 'Run panel' }).getByLabel('Run details');
    await header.getByText('no model (tool trial)').waitFor();
    expect(await header.textContent()).not.toContain('fast');
  });

  it('ran without console errors or CSP violations', () => {
    expect(studio.pageErrors).toEqual([]);
  });
});
