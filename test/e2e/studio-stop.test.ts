import { readFile, writeFile } from 'node:fs/promises';
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

  it('runs the unsaved buffer with Ctrl/⌘+Enter; Esc does not stop it, Ctrl/⌘+Shift+. does', async () => {
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
    // A stray Esc in the editor (its way out of the Tab trap) leaves the run alone.
    await studio.page.keyboard.press('Escape');
    await studio.page.keyboard.press('Escape');
    expect(await studio.page.locator('.run-status .status-pill').textContent()).toBe('running');
    expect(studio.calls.some((entry) => entry.method === 'run:stop')).toBe(false);
    await studio.page.keyboard.press('ControlOrMeta+Shift+Period');
    expect(await studio.waitForRunEnd()).toBe('stopped');
    const end = studio.page.getByRole('log', { name: 'Conversation' }).locator('.run-end');
    expect(await end.textContent()).toContain('Run stopped');
    expect(await end.textContent()).toContain('stopped from the studio');
    await studio.page.getByRole('button', { name: '▶ Run' }).waitFor();

    const onDisk = await readFile(path.join(studio.service.workspaceRoot!, 'agents', 'echo-loop.lua'), 'utf8');
    expect(onDisk).toContain('models.chat(messages');
  });

  it('keeps unsaved edits in their tab while another agent is open', async () => {
    await studio.openAgent('weather-report');
    const tabs = studio.page.getByRole('tablist', { name: 'Open agents' });
    await tabs.getByRole('tab', { name: /^echo-loop/ }).click();
    await studio.page.getByRole('region', { name: 'Editor agents/echo-loop.lua' }).waitFor();
    expect(await studio.page.locator('.agent-editor .cm-content').textContent()).toBe('while true do end');
    expect(await studio.page.title()).toBe('● PromptForge Studio');
    await tabs.getByRole('tab', { name: /^weather-report/ }).click();
    await studio.page.getByRole('region', { name: 'Editor agents/weather-report.lua' }).waitFor();
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

  it('the stop shortcut works from the approvals list, where Esc does nothing', async () => {
    const root = studio.service.workspaceRoot!;
    await writeFile(
      path.join(root, 'agents', 'ask-pause.lua'),
      "local ok, err = pcall(tools.call, 'read_page', { name = 'release-notes' })\nlog(ok, err)\n",
    );
    // Started from the window, as every run is (the shortcut stops the runs this window started).
    await studio.openAgent('ask-pause');
    await studio.page.getByRole('button', { name: '▶ Run' }).click();
    // The run opens its conversation when it starts: switch to Approvals once the call waits.
    await studio.page.locator('.conversation-card.state-awaiting-approval').first().waitFor();
    await studio.showRunTab('Approvals');
    await studio.waitForApprovalCards(1);
    const card = studio.page.locator('.approval-card').first();
    await card.and(studio.page.locator('[data-armed="true"]')).waitFor();
    await card.locator('h3').click();
    await studio.page.keyboard.press('Escape');
    await studio.page.getByRole('region', { name: 'Pending approvals' }).focus();
    await studio.page.keyboard.press('Escape');
    expect(studio.service.listApprovals()).toHaveLength(1);
    const runId = studio.service.listApprovals()[0]!.runId;
    expect(studio.calls.filter((entry) => entry.method === 'run:stop')).toHaveLength(2);
    await studio.page.keyboard.press('ControlOrMeta+Shift+Period');
    expect(await studio.waitForRunEnd()).toBe('stopped');
    const events = await studio.waitForTranscriptEvent(runId, 'run-end');
    const decision = events.find((event) => event['type'] === 'approval-decision');
    expect((decision?.['decision'] as Record<string, unknown> | undefined)?.['kind']).toBe('cancelled');
    expect(studio.service.listApprovals()).toHaveLength(0);
    await studio.showRunTab('Conversation');
  });

  it('ran without console errors or CSP violations', () => {
    expect(studio.pageErrors).toEqual([]);
  });
});
