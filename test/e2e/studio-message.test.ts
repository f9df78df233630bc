import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTranscript } from '../../main/core/transcript/transcript-reader.js';
import { expectNoSeriousAxeViolations } from './axe.js';
import { StudioHarness } from './bridge.js';

/** The message to the agent: typed under its toolbar, given to the script as `...`, kept per agent. */
describe('studio: a message to the agent before running it', () => {
  const studio = new StudioHarness({ viewport: { width: 1024, height: 700 } });
  let root = '';

  beforeAll(async () => {
    await studio.open();
    await studio.openExampleWorkspace();
    root = studio.service.workspaceRoot!;
    await writeFile(
      path.join(root, 'agents', 'greet.lua'),
      "local message = ...\nlog('type: ' .. type(message))\nlog('got: ' .. tostring(message))\n",
    );
    await studio.agentButton('greet').waitFor();
    await studio.openAgent('greet');
  });
  afterAll(async () => {
    await studio.close();
  });

  const message = () => studio.page.getByRole('textbox', { name: 'Message' });
  const logLines = async (): Promise<string[]> => {
    await studio.showRunTab('Log');
    return studio.page.getByRole('region', { name: 'Run panel' }).locator('.log-line, li').allTextContents();
  };

  it('runs with what the person typed (Ctrl/⌘+Enter from the field), and the run-start records it', async () => {
    const typed = 'Résumé «this» — مرحبا';
    await message().click();
    await studio.page.keyboard.type(typed);
    expect(await message().inputValue()).toBe(typed);
    await studio.page.keyboard.press('ControlOrMeta+Enter');
    expect(await studio.waitForRunEnd()).toBe('ok');
    const panel = studio.page.getByRole('region', { name: 'Run panel' });
    // The conversation shows the message the script received, inert.
    expect(await panel.locator('.conversation-input').textContent()).toBe(`Message${typed}`);
    await panel.getByText(`got: ${typed}`).first().waitFor();
    const runs = (await readdir(path.join(root, 'runs'))).filter((name) => name.endsWith('.jsonl'));
    const starts = runs.map((name) => readTranscript(path.join(root, 'runs', name))[0]);
    expect(starts.filter((start) => start?.type === 'run-start' && start.input === typed)).toHaveLength(1);
    await studio.screenshot('agent-message');
  });

  it('keeps the message per agent: another agent has its own (none), and coming back shows it again', async () => {
    await studio.openAgent('echo-loop');
    expect(await message().inputValue()).toBe('');
    await studio.openAgent('greet');
    expect(await message().inputValue()).toBe('Résumé «this» — مرحبا');
  });

  it('an empty message gives the script nil', async () => {
    await message().fill('');
    await studio.page.getByRole('button', { name: '▶ Run' }).click();
    expect(await studio.waitForRunEnd()).toBe('ok');
    expect((await logLines()).some((line) => line.includes('type: nil'))).toBe(true);
    await expectNoSeriousAxeViolations(studio.page, 'the message field');
  });

  it('ran without console errors or CSP violations', () => {
    expect(studio.pageErrors).toEqual([]);
  });
});
