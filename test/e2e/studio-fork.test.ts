import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTranscript } from '../../main/core/transcript/transcript-reader.js';
import { byAssistantCount, startScriptedServer, type ScriptedServer } from '../fixtures/scripted-openai-server.js';
import { expectNoSeriousAxeViolations } from './axe.js';
import { StudioHarness } from './bridge.js';

type Theme = 'dark' | 'light';

/**
 * Audits what `show` puts on screen in the light theme, then in the dark one (the default, which
 * the tests after it see), switching as studio-a11y.test.ts does: `show` runs after the theme
 * changed, `hide` after the audit (a dialog covers the theme button, so it is opened and closed
 * around each switch).
 */
async function auditBothThemes(
  studio: StudioHarness,
  view: string,
  show: () => Promise<void> = async () => undefined,
  hide: () => Promise<void> = async () => undefined,
): Promise<void> {
  for (const theme of ['light', 'dark'] as Theme[]) {
    const other = theme === 'dark' ? 'light' : 'dark';
    const toggle = studio.page.getByRole('button', { name: `Switch to ${theme} theme` });
    if (await toggle.isVisible()) await toggle.click();
    await studio.page.getByRole('button', { name: `Switch to ${other} theme` }).waitFor();
    expect(await studio.page.locator('html').getAttribute('data-theme')).toBe(theme);
    await show();
    await expectNoSeriousAxeViolations(studio.page, `${view} (${theme})`);
    await hide();
  }
}

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

  it('the fork dialog, with its edit fields open, has no serious axe violations in either theme', async () => {
    const conversation = studio.page.getByRole('log', { name: 'Conversation' });
    const dialog = studio.page.getByRole('dialog', { name: /^Fork from step \d+$/ });
    const close = async () => {
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'detached' });
    };
    await auditBothThemes(
      studio,
      'the fork dialog editing a tool output',
      async () => {
        await conversation.getByRole('button', { name: /^Fork from here: step \d+ \(echo call-1\)$/ }).click();
        await dialog.getByLabel('Edit the output at this step').check();
        await dialog.getByLabel('Tool output').fill('HELLO');
      },
      close,
    );
    await auditBothThemes(
      studio,
      'the fork dialog editing a reply and its calls',
      async () => {
        await conversation.getByRole('button', { name: /^Fork from here: step \d+ \(model round 1\)$/ }).click();
        await dialog.getByLabel('Edit the reply at this step').check();
        await dialog.getByLabel('Reply text').fill('Edited.');
        await dialog.getByLabel(/^Requested calls instead/).fill('[{"name": "echo", "arguments": {"text": "hi"}}]');
        await dialog.getByLabel('Then go on with').selectOption({ index: 1 });
      },
      close,
    );
    // Calls that are not JSON: the dialog says so in an alert, and nothing is forked.
    await auditBothThemes(
      studio,
      'the fork dialog with an error',
      async () => {
        await conversation.getByRole('button', { name: /^Fork from here: step \d+ \(model round 1\)$/ }).click();
        await dialog.getByLabel('Edit the reply at this step').check();
        await dialog.getByLabel(/^Requested calls instead/).fill('[not json');
        await dialog.getByRole('button', { name: 'Fork', exact: true }).click();
        await dialog
          .getByRole('alert')
          .getByText(/^The calls are not JSON/)
          .waitFor();
      },
      close,
    );
    expect(studio.service.state()!.runs.filter((run) => run.forkOf)).toEqual([]);
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
    // The studio's own sentence for the refusal: no error code, no CLI flag.
    const warning = dialog.getByRole('alert');
    await warning.getByText(/^The script changed since this run was recorded.*Fork anyway replays this run/).waitFor();
    expect(await warning.textContent()).not.toMatch(/--force|script-changed/);
    await studio.screenshot('fork-script-changed');
    const before = studio.service.state()!.runs.length;
    await dialog.getByRole('button', { name: 'Fork anyway' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => studio.service.state()!.runs.length).toBe(before + 1);
  });

  it('the "script changed" warning and an opened fork\'s run header have no serious axe violations', async () => {
    const conversation = studio.page.getByRole('log', { name: 'Conversation' });
    const dialog = studio.page.getByRole('dialog', { name: /^Fork from step \d+$/ });
    await studio.page.getByRole('button', { name: /Runs\s*history/ }).click();
    const table = studio.page.getByRole('table', { name: 'Runs' });
    await table.getByRole('button', { name: `Open ${parent}` }).click();
    await auditBothThemes(
      studio,
      'the fork dialog warning that the script changed',
      async () => {
        await conversation.getByRole('button', { name: /^Fork from here: step \d+ \(model round 3\)$/ }).click();
        await dialog.getByRole('button', { name: 'Fork', exact: true }).click();
        await dialog.getByRole('button', { name: 'Fork anyway' }).waitFor();
      },
      async () => {
        await dialog.getByRole('button', { name: 'Cancel' }).click();
        await dialog.waitFor({ state: 'detached' });
      },
    );
    await studio.page.getByRole('button', { name: /Runs\s*history/ }).click();
    await table.getByRole('button', { name: `Open ${fork}` }).click();
    const header = studio.page.getByRole('region', { name: 'Run panel' }).getByLabel('Run details');
    await header.getByText(/^step \d+ of/).waitFor();
    await auditBothThemes(studio, "an opened fork's run header");
  });

  it('ran without console errors or CSP violations', () => {
    expect(studio.pageErrors).toEqual([]);
  });
});

describe('studio: fork a run that is still waiting for an approval', () => {
  const studio = new StudioHarness({ viewport: { width: 1440, height: 900 } });
  let server: ScriptedServer;

  beforeAll(async () => {
    server = await startScriptedServer(
      byAssistantCount([
        { toolCalls: [{ id: 'call_page', name: 'read_page', arguments: '{"name":"release-notes"}' }] },
        { content: 'Two bullets.' },
      ]),
    );
    await studio.open();
    studio.page.setDefaultTimeout(10_000);
    await studio.openExampleWorkspace();
    appendFileSync(
      path.join(studio.service.workspaceRoot!, 'models.yaml'),
      `\nscripted:\n  provider: openai-compatible\n  model: gpt-live\n  baseUrl: ${server.url}\n`,
    );
    await studio.openAgent('summarize-page');
    // The workspace watcher reports the new model to the editor's model picker.
    await studio.page
      .getByLabel('Model for live runs')
      .locator('option[value="scripted"]')
      .waitFor({ state: 'attached' });
    // A model sending requests to a new origin makes the example restricted, where read_page (a
    // command tool) is refused before any card: the person trusts the workspace as it is now.
    await studio.trustWorkspace();
  });
  afterAll(async () => {
    await studio.close();
    await server.close();
  });

  it('"Fork from here" on the live run\'s model round forks at once; the parent keeps waiting', async () => {
    await studio.page.getByLabel('Model for live runs').selectOption('scripted');
    // The choice is main's (kept in the config folder): Run uses it once the workspace state says so.
    await studio.page.getByRole('button', { name: 'Make default' }).waitFor();
    await studio.page.getByRole('button', { name: '▶ Run' }).click();
    const panel = studio.page.getByRole('region', { name: 'Run panel' });
    await panel.locator('.run-status .status-pill', { hasText: 'waiting for approval' }).waitFor();
    const [pending] = studio.service.listApprovals();
    const parent = pending!.runId;

    const conversation = studio.page.getByRole('log', { name: 'Conversation' });
    const forkButton = conversation.getByRole('button', { name: /^Fork from here: step \d+ \(model round 1\)$/ });
    const step = Number(/step (\d+)/.exec((await forkButton.getAttribute('aria-label')) ?? '')![1]);
    await forkButton.click();
    const dialog = studio.page.getByRole('dialog', { name: `Fork from step ${step}` });
    await dialog.getByLabel('Edit the reply at this step').check();
    await dialog.getByLabel('Reply text').fill('No page needed.');
    await dialog.getByLabel(/^Requested calls instead/).fill('[]');
    await dialog.getByRole('button', { name: 'Fork', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    await conversation.getByText('model: No page needed.').waitFor();
    expect(await studio.waitForRunEnd()).toBe('ok');
    await studio.screenshot('fork-live-run');

    // The fork records its parent and step; the parent still waits on its call, unaffected.
    const child = studio.service.state()!.runs.find((run) => run.forkOf?.runId === parent);
    expect(child).toMatchObject({ agent: 'summarize-page', status: 'ok', forkOf: { step, edited: true } });
    expect(readTranscript(path.join(studio.service.workspaceRoot!, 'runs', `${child!.runId}.jsonl`))[0]).toMatchObject({
      forkOf: { runId: parent, step, kind: 'model', then: 'replay' },
    });
    expect(studio.service.listApprovals()).toEqual([pending]);
    expect(studio.service.state()!.runs.find((run) => run.runId === parent)?.status).toBe('running');
    expect(await panel.getByLabel('Run details').textContent()).toContain(`step ${step} of`);
    // Its badge says fork (at its step, on replay after it), not replayed; the edited round says so.
    expect(await panel.getByLabel('Run details').locator('.tag').allTextContents()).toEqual([
      `fork @ ${step} · replay`,
    ]);
    expect(
      await conversation.getByRole('article', { name: 'Assistant, round 1' }).locator('.fork-edited-tag').textContent(),
    ).toBe('edited in fork');

    // Unedited, the fork replays on past its step to the call the parent still waits on, whose
    // outcome is not recorded yet: it stops there, saying so, and the parent still waits.
    await studio.page.getByRole('button', { name: /Runs\s*history/ }).click();
    const table = studio.page.getByRole('table', { name: 'Runs' });
    await table.getByRole('button', { name: `Open ${parent}` }).click();
    await forkButton.click();
    await dialog.getByRole('button', { name: 'Fork', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await studio.waitForRunEnd()).toBe('error');
    const second = studio.service.state()!.runs.find((run) => run.forkOf?.runId === parent && run.status === 'error');
    const end = readTranscript(path.join(studio.service.workspaceRoot!, 'runs', `${second!.runId}.jsonl`)).at(-1);
    expect(end).toMatchObject({
      type: 'run-end',
      error: { message: expect.stringMatching(/^replay reached tool call 1 .* but the recording holds no outcome/) },
    });
    expect(studio.service.listApprovals()).toEqual([pending]);

    // Approved, the parent goes on and ends as it would have.
    studio.service.decide(parent, pending!.callId, { kind: 'approve' });
    await studio.page.getByRole('button', { name: /Runs\s*history/ }).click();
    await table.locator(`tr[data-run-id="${parent}"]`).locator('.status-pill', { hasText: 'ok' }).waitFor();
  });

  it('ran without console errors or CSP violations', () => {
    expect(studio.pageErrors).toEqual([]);
  });
});
