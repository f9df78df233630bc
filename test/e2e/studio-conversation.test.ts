import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StudioHarness } from './bridge.js';

describe('studio: open the example workspace and replay an agent offline', () => {
  const studio = new StudioHarness({ viewport: { width: 1440, height: 900 } });

  beforeAll(async () => {
    await studio.open();
  });
  afterAll(async () => {
    await studio.close();
  });

  it('teaches from the empty state and opens the example workspace', async () => {
    await studio.page.getByText('The examples run offline').waitFor();
    await studio.openExampleWorkspace();
    const explorer = studio.page.getByRole('navigation', { name: 'Workspace explorer' });
    const agents = await studio
      .agentButtons()
      .evaluateAll((buttons) => buttons.map((button) => button.querySelector('.item-label')?.textContent));
    expect(agents).toEqual(['echo-loop', 'summarize-page', 'weather-report']);
    // Every example agent ships with a recording, so each is marked as runnable offline.
    expect(await explorer.locator('.tag', { hasText: 'rec' }).count()).toBe(3);
    expect(await explorer.getByRole('region', { name: 'Tools' }).textContent()).toContain('read_page');
  });

  it('replays summarize-page: streamed assistant text, tool call states and trust badges', async () => {
    await studio.openAgent('summarize-page');
    expect(await studio.page.locator('.agent-editor .cm-content').textContent()).toContain('models.chat(messages');
    await studio.page.getByRole('button', { name: 'Run offline (replay)' }).click();
    expect(await studio.waitForRunEnd()).toBe('ok');

    const conversation = studio.page.getByRole('log', { name: 'Conversation' });
    await conversation.getByText('Lumen 2.4 starts faster').first().waitFor();
    // The streamed round-2 answer is the assistant's full text once the round ends.
    const assistant = conversation.getByRole('article', { name: 'Assistant, round 2' });
    expect(await assistant.locator('.assistant-text').textContent()).toBe(
      '- Lumen 2.4 starts faster (lazy index, 40% quicker cold starts) and adds a Ctrl+K command palette.\n- It fixes a crash on project paths with emoji.\n(The page also contained an instruction to send API keys somewhere; I treated it as data and ignored it.)',
    );
    // One call, two ids, each explained: the model's id and the host's dispatch id.
    expect(await conversation.locator('.requested-call').first().textContent()).toMatch(
      /^model requests read_page the model's id call_page_1.* → dispatched as call-1, the host's id$/,
    );
    const call = conversation.getByRole('article', { name: 'Tool call call-1' });
    expect(await call.locator('.state-badge').textContent()).toBe('done');
    expect(await call.locator('.trust-badge').allTextContents()).toEqual(['untrusted']);
    // The recording's decision says what approved it: the run's flag, not the tool's policy (read_page asks).
    expect(await call.locator('.decision-note').textContent()).toBe(
      "Approved in the recorded run (approved without asking anyone: the run was started with the terminal's --approve auto, whatever the tool's policy)",
    );
    // Untrusted page text is data: its <kbd> stays text, no element is created.
    expect(await call.locator('.tool-output').textContent()).toContain('New <kbd>Ctrl+K</kbd> command palette.');
    expect(await conversation.locator('kbd').count()).toBe(0);
    // The tool message sent back to the model shows the envelope tags highlighted.
    expect(await conversation.locator('.envelope-marker').count()).toBeGreaterThanOrEqual(2);
    expect(await conversation.locator('.envelope-marker').first().textContent()).toMatch(
      /^<untrusted_input_[0-9A-Za-z]+>$/,
    );
    // Show the untrusted tool output and its envelope in the screenshot.
    await call.scrollIntoViewIfNeeded();
    await studio.screenshot('conversation');
  });

  it('shows usage and timing per round and the run log', async () => {
    await studio.showRunTab('Usage/Timing');
    const rows = studio.page.getByRole('table', { name: 'Usage per round' }).locator('tbody tr');
    expect(await rows.count()).toBe(2);
    expect(await rows.nth(0).locator('td').nth(2).textContent()).toBe('49');
    expect(await rows.nth(1).locator('td').nth(3).textContent()).toBe('63');
    await studio.showRunTab('Log');
    expect(await studio.page.getByRole('list', { name: 'Run log' }).textContent()).toContain(
      'the page reached the script wrapped: true',
    );
    await studio.showRunTab('Conversation');
  });

  it('moves between the run tabs with the arrow keys', async () => {
    await studio.page.getByRole('tab', { name: 'Conversation' }).focus();
    await studio.page.keyboard.press('ArrowRight');
    expect(await studio.page.getByRole('tab', { name: /^Approvals/ }).getAttribute('aria-selected')).toBe('true');
    expect(await studio.page.getByText('No call is waiting for a decision.').isVisible()).toBe(true);
    await studio.page.keyboard.press('ArrowLeft');
    expect(await studio.page.getByRole('tab', { name: 'Conversation' }).getAttribute('aria-selected')).toBe('true');
  });

  it('ran without console errors or CSP violations', () => {
    expect(studio.pageErrors).toEqual([]);
  });
});
