import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StudioHarness } from './bridge.js';

const askPage = `local ok, page = pcall(tools.call, 'read_page', { name = 'release-notes' })
log(ok and #page or tostring(page))
`;

describe('studio: a pending call shows on every view, politely, without taking focus', () => {
  const studio = new StudioHarness({ viewport: { width: 1440, height: 900 } });
  const indicator = () => studio.page.locator('.pending-indicator');
  const liveRegion = () => studio.page.locator('.header-actions [role="status"]');
  let pending = 0;

  beforeAll(async () => {
    await studio.open();
    studio.page.setDefaultTimeout(15000);
    await studio.openExampleWorkspace();
    await writeFile(path.join(studio.service.workspaceRoot!, 'agents', 'ask-page.lua'), askPage);
    await studio.agentButton('ask-page').waitFor();
  });
  afterAll(async () => {
    await studio.close();
  });

  /** Starts a run that waits on one read_page call; checks the header while focus stays put. */
  const askWhileFocused = async (): Promise<void> => {
    const focused = await studio.focusedElement();
    await studio.recordFocusChanges();
    await studio.service.startRun({ script: 'agents/ask-page.lua' });
    pending += 1;
    const text = `${pending} tool call${pending === 1 ? '' : 's'} waiting for your approval`;
    await indicator().filter({ hasText: text }).waitFor();
    expect(await liveRegion().textContent()).toBe(text);
    expect(await liveRegion().getAttribute('aria-live')).toBe('polite');
    expect(await studio.page.title()).toBe(`(${pending}) PromptForge Studio`);
    expect(await studio.focusedElement()).toBe(focused);
    expect(await studio.focusChanges()).toEqual([]);
  };

  it('before any call waits, the header shows no indicator and the live region is empty', async () => {
    expect(await indicator().count()).toBe(0);
    expect(await liveRegion().textContent()).toBe('');
  });

  it('on the agent editor, while typing', async () => {
    await studio.openAgent('echo-loop');
    await studio.page.locator('.agent-editor .cm-content').click();
    await askWhileFocused();
    await studio.page.keyboard.type('-- still typing here');
    expect(await studio.page.locator('.agent-editor .cm-content').textContent()).toContain('-- still typing here');
    // Saved, so the title below has no unsaved mark (an agent's unsaved edits would stay in its tab).
    await studio.page.keyboard.press('ControlOrMeta+s');
    await studio.page
      .getByRole('tab', { name: /^echo-loop/ })
      .getByLabel('unsaved changes')
      .waitFor({ state: 'detached' });
  });

  it('on the catalog editor', async () => {
    await studio.page.getByRole('button', { name: 'Tools tools.yaml' }).click();
    // The agent's unsaved edits stay in its tab: leaving for the catalog asks nothing.
    await studio.page.locator('.catalog-editor .cm-content').click();
    await askWhileFocused();
  });

  it('on the run history', async () => {
    await studio.page.getByRole('button', { name: 'Runs history' }).click();
    await studio.page.getByRole('button', { name: 'Runs history' }).focus();
    await askWhileFocused();
  });

  it('on Credentials, where the run panel is hidden, while typing a key', async () => {
    await studio.page.getByRole('button', { name: 'Credentials' }).click();
    await studio.page.getByRole('heading', { name: 'Credentials' }).waitFor();
    expect(await studio.page.getByRole('region', { name: 'Run panel' }).count()).toBe(0);
    const field = studio.page.getByLabel('OpenAI API key');
    await field.click();
    await askWhileFocused();
    await studio.page.keyboard.type('abc');
    expect(await field.inputValue()).toBe('abc');
    await field.fill('');
  });

  it('the indicator jumps to the approvals: the run panel opens on them, focus on the panel, not a card', async () => {
    await indicator().click();
    await studio.waitForApprovalCards(pending);
    expect(await studio.page.getByRole('tab', { name: /^Approvals/ }).getAttribute('aria-selected')).toBe('true');
    expect(await studio.focusedElement()).toBe('DIV.approvals-panel[Pending approvals]');
    for (const approval of studio.service.listApprovals())
      studio.service.decide(approval.runId, approval.callId, { kind: 'deny', reason: 'test over' });
    await indicator().waitFor({ state: 'detached' });
    expect(await liveRegion().textContent()).toBe('');
  });

  it('ran without console errors or CSP violations', () => {
    expect(studio.pageErrors).toEqual([]);
  });
});
