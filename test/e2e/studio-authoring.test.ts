import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoSeriousAxeViolations } from './axe.js';
import { pressStandIn } from '../node/studio/press-stand-in.js';
import { StudioHarness, repositoryRoot } from './bridge.js';

/**
 * A new user's first session, in Chromium against the real core: an empty folder, the empty
 * state, New agent (and every bad name), edit, run, Save as, tabs, external edits, rename, delete
 * (also of a running agent), and the first live run of a model with no key (set it in place, or
 * run the recording offline).
 */
describe('studio: authoring agents as a new user (files, tabs, first run)', () => {
  let folder = '';
  let studio: StudioHarness;
  // The provider the no-key flow uses: its key lives in the test keychain only for this file.
  const provider = 'groq';
  const secret = `gsk-e2e-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
  // A loopback stand-in for the provider: it records the Authorization header of each request.
  const authorizations: string[] = [];
  let server: Server;

  beforeAll(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), 'promptforge-authoring-'));
    server = createServer((request, response) => {
      authorizations.push(request.headers.authorization ?? '');
      request.resume();
      response.writeHead(401, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: 'the loopback test server refuses every key' } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    studio = new StudioHarness({ chooseFolder: async () => folder });
    await studio.open();
    studio.page.setDefaultTimeout(15_000);
    await studio.service.deleteKey(provider, pressStandIn());
  });
  afterAll(async () => {
    await studio.service.deleteKey(provider, pressStandIn());
    await studio.close();
    await new Promise((resolve) => server.close(resolve));
    await rm(folder, { recursive: true, force: true });
  });

  const page = () => studio.page;
  const agentFile = (name: string) => path.join(folder, 'agents', `${name}.lua`);
  const tablist = () => page().getByRole('tablist', { name: 'Open agents' });
  const tab = (name: string) => tablist().getByRole('tab', { name: new RegExp(`^${name}\\b`) });
  const editorText = () => page().locator('.agent-editor .cm-content').textContent();
  const nameDialog = (title: string | RegExp) => page().getByRole('dialog', { name: title });
  /** The text of the focused element (in the light DOM). */
  const focusedText = () => page().evaluate<string>("document.activeElement?.textContent ?? ''");

  /** Audits a dialog in both themes. The theme button is under the modal, so the attribute is set directly. */
  const auditDialogBothThemes = async (view: string): Promise<void> => {
    for (const theme of ['dark', 'light']) {
      await page().evaluate(`document.documentElement.dataset.theme = '${theme}'`);
      await expectNoSeriousAxeViolations(page(), `${view} (${theme})`);
    }
    await page().evaluate("document.documentElement.dataset.theme = 'dark'");
  };

  /** Audits the window in both themes with the header's theme button. */
  const auditBothThemes = async (view: string): Promise<void> => {
    await expectNoSeriousAxeViolations(page(), `${view} (dark)`);
    await page().getByRole('button', { name: 'Switch to light theme' }).click();
    await expectNoSeriousAxeViolations(page(), `${view} (light)`);
    await page().getByRole('button', { name: 'Switch to dark theme' }).click();
  };

  /** Types `name` into the open name dialog and submits it. */
  const submitName = async (title: string | RegExp, name: string, button: string): Promise<void> => {
    const dialog = nameDialog(title);
    await dialog.getByLabel('Agent name').fill(name);
    await dialog.getByRole('button', { name: button, exact: true }).click();
  };

  /** The error shown next to the name field (also its accessible description). */
  const fieldError = async (title: string | RegExp): Promise<string> => {
    const dialog = nameDialog(title);
    const error = dialog.locator('.field-error');
    await error.waitFor();
    expect(await dialog.getByLabel('Agent name').getAttribute('aria-invalid')).toBe('true');
    return (await error.textContent()) ?? '';
  };

  it('an empty folder shows how to get a first agent: New agent, or the example', async () => {
    await page().getByRole('button', { name: 'Open a folder…' }).click();
    const empty = page().getByRole('region', { name: `No agents in ${path.basename(folder)} yet` });
    await empty.waitFor();
    await empty.getByRole('button', { name: 'New agent…' }).waitFor();
    await empty.getByRole('button', { name: 'Open the example workspace' }).waitFor();
    await studio.screenshot('no-agents');
    await auditBothThemes('a workspace with no agents');
  });

  it('New agent refuses an empty name, a slash and a reserved name, with the core’s message by the field', async () => {
    await page()
      .getByRole('region', { name: /^No agents in/ })
      .getByRole('button', { name: 'New agent…' })
      .click();
    const dialog = nameDialog('New agent');
    await dialog.waitFor();
    // The field has focus: a person types at once.
    expect(await studio.focusedElement()).toContain('INPUT');

    await submitName('New agent', '', 'Create');
    expect(await fieldError('New agent')).toContain('is empty');
    await submitName('New agent', 'team/agent', 'Create');
    expect(await fieldError('New agent')).toContain('slash');
    await submitName('New agent', 'con', 'Create');
    expect(await fieldError('New agent')).toContain('reserved');
    await studio.screenshot('new-agent');
    await auditDialogBothThemes('the New agent dialog with an error');
    // Nothing was written.
    await expect(readFile(agentFile('con'), 'utf8')).rejects.toThrow();
  });

  it('creates the agent from the template and opens it in a tab', async () => {
    await submitName('New agent', 'first-agent', 'Create');
    await nameDialog('New agent').waitFor({ state: 'detached' });
    await tab('first-agent').waitFor();
    expect(await tab('first-agent').getAttribute('aria-selected')).toBe('true');
    await expect.poll(editorText).toContain("log('hello from first-agent')");
    expect(await readFile(agentFile('first-agent'), 'utf8')).toContain('first-agent: a new agent');
    await studio.agentButton('first-agent').waitFor();
  });

  it('refuses a name that exists, and Esc closes the dialog and gives focus back', async () => {
    const newButton = tablist().locator('xpath=..').getByRole('button', { name: 'New agent' });
    await newButton.click();
    await submitName('New agent', 'First-Agent', 'Create');
    expect(await fieldError('New agent')).toContain('already exists');
    await page().keyboard.press('Escape');
    await nameDialog('New agent').waitFor({ state: 'detached' });
    expect(await focusedText()).toBe('+ New agent');
  });

  it('edits and runs the unsaved buffer; the tab marks the unsaved edit', async () => {
    await studio.replaceEditorText('.agent-editor .cm-content', "log('edited before saving')\n");
    await tab('first-agent').getByLabel('unsaved changes').waitFor();
    expect(await page().title()).toBe('● PromptForge Studio');
    // No model in this workspace: the run starts at once (no key is missing), offline.
    await page().getByRole('button', { name: '▶ Run' }).click();
    expect(await studio.waitForRunEnd()).toBe('ok');
    await studio.showRunTab('Log');
    await page().getByText('edited before saving').first().waitFor();
    expect(await readFile(agentFile('first-agent'), 'utf8')).toContain('hello from first-agent');
  });

  it('Save as writes the buffer as a new agent; the tab moves there and the original stays as saved', async () => {
    await page().getByRole('button', { name: 'File', exact: true }).click();
    await page().getByRole('button', { name: 'Save as…' }).click();
    const dialog = nameDialog('Save as a new agent');
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('without the unsaved edits');
    await submitName('Save as a new agent', 'second-agent', 'Save as');
    await dialog.waitFor({ state: 'detached' });
    await tab('second-agent').waitFor();
    expect(await tab('second-agent').getAttribute('aria-selected')).toBe('true');
    expect(await tab('second-agent').getByLabel('unsaved changes').count()).toBe(0);
    expect(await tablist().getByRole('tab').count()).toBe(1);
    expect(await readFile(agentFile('second-agent'), 'utf8')).toBe("log('edited before saving')\n");
    expect(await readFile(agentFile('first-agent'), 'utf8')).toContain('hello from first-agent');
  });

  it('several agents open as tabs: unsaved edits stay in their tab, the arrow keys move between tabs', async () => {
    await studio.openAgent('first-agent');
    expect(await tablist().getByRole('tab').count()).toBe(2);
    await studio.replaceEditorText('.agent-editor .cm-content', "log('first, unsaved')\n");
    await tab('first-agent').getByLabel('unsaved changes').waitFor();
    // Switching away keeps the edits (no question asked, nothing lost).
    await tab('second-agent').click();
    await expect.poll(editorText).toBe("log('edited before saving')");
    await tab('second-agent').focus();
    await page().keyboard.press('ArrowRight');
    expect(await tab('first-agent').getAttribute('aria-selected')).toBe('true');
    expect(await focusedText()).toMatch(/^first-agent/);
    await expect.poll(editorText).toBe("log('first, unsaved')");
    await page().keyboard.press('Home');
    expect(await tab('second-agent').getAttribute('aria-selected')).toBe('true');
    await page().keyboard.press('End');
    expect(await tab('first-agent').getAttribute('aria-selected')).toBe('true');
    // The explorer marks the agent with unsaved edits too.
    expect(await studio.agentButton('first-agent').textContent()).toContain('●');
    await studio.screenshot('tabs');
    await auditBothThemes('two agent tabs, one with unsaved edits');
  });

  it('an external edit reloads a clean tab, and is announced (not applied) on a dirty one', async () => {
    await writeFile(agentFile('second-agent'), "log('second, edited outside')\n");
    await tab('second-agent').click();
    await expect.poll(editorText).toBe("log('second, edited outside')");

    await writeFile(agentFile('first-agent'), "log('first, edited outside')\n");
    await tab('first-agent').click();
    const notice = page().locator('.disk-notice');
    await notice.waitFor();
    expect(await notice.textContent()).toContain('changed on disk. Your unsaved edits are kept.');
    expect(await editorText()).toBe("log('first, unsaved')");
    await studio.screenshot('disk-changed');
    await notice.getByRole('button', { name: 'Keep my edits' }).click();
    await notice.waitFor({ state: 'detached' });
    await tab('first-agent').getByLabel('unsaved changes').waitFor();
  });

  it('closing a tab with unsaved edits asks first: Cancel keeps it, Save and close writes it', async () => {
    await tab('first-agent').focus();
    await page().keyboard.press('Delete');
    const dialog = page().getByRole('dialog', { name: 'Close first-agent with unsaved edits?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await tablist().getByRole('tab').count()).toBe(2);
    expect(await editorText()).toBe("log('first, unsaved')");
    // A middle click also closes (and asks).
    await tab('first-agent').click({ button: 'middle' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Save and close' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await tablist().getByRole('tab').count()).toBe(1);
    expect(await readFile(agentFile('first-agent'), 'utf8')).toBe("log('first, unsaved')\n");
    expect(await tab('second-agent').getAttribute('aria-selected')).toBe('true');
  });

  it('rename over an agent open with unsaved edits is refused, and those edits are untouched', async () => {
    await studio.openAgent('first-agent');
    await studio.replaceEditorText('.agent-editor .cm-content', "log('first, unsaved again')\n");
    await tab('second-agent').click();
    await page().getByRole('button', { name: 'File', exact: true }).click();
    await page().getByRole('button', { name: 'Rename…' }).click();
    const title = 'Rename second-agent';
    await nameDialog(title).waitFor();
    await submitName(title, 'first-agent', 'Rename');
    expect(await fieldError(title)).toContain('agents/first-agent.lua is open with unsaved edits');
    await page().keyboard.press('Escape');
    await tab('first-agent').click();
    await expect.poll(editorText).toBe("log('first, unsaved again')");
    await tab('first-agent').getByLabel('unsaved changes').waitFor();
    expect(await readFile(agentFile('second-agent'), 'utf8')).toBe("log('second, edited outside')\n");
  });

  it('renaming an agent with unsaved edits keeps them in its tab, under the new name', async () => {
    await page().getByRole('button', { name: 'File', exact: true }).click();
    await page().getByRole('button', { name: 'Rename…' }).click();
    const dialog = nameDialog('Rename first-agent');
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('they stay in the editor under the new name, still unsaved');
    await studio.screenshot('rename');
    await submitName('Rename first-agent', 'renamed-agent', 'Rename');
    await dialog.waitFor({ state: 'detached' });
    await tab('renamed-agent').getByLabel('unsaved changes').waitFor();
    expect(await tab('renamed-agent').getAttribute('aria-selected')).toBe('true');
    expect(await editorText()).toBe("log('first, unsaved again')");
    // On disk: the file moved as last saved; the edits are still only in the editor.
    expect(await readFile(agentFile('renamed-agent'), 'utf8')).toBe("log('first, unsaved')\n");
    await expect(readFile(agentFile('first-agent'), 'utf8')).rejects.toThrow();
    await page().keyboard.press('ControlOrMeta+s');
    await tab('renamed-agent').getByLabel('unsaved changes').waitFor({ state: 'detached' });
    expect(await readFile(agentFile('renamed-agent'), 'utf8')).toBe("log('first, unsaved again')\n");
  });

  it('a save pressed while the agent is being renamed never writes the old name again', async () => {
    await studio.replaceEditorText('.agent-editor .cm-content', "log('saved after the rename')");
    await tab('renamed-agent').getByLabel('unsaved changes').waitFor();
    // The core holds the rename until the save shortcut has been pressed. The rename dialog is modal
    // until the rename returns, so the shortcut must do nothing: a save sent now would write the old
    // name again, leaving a stale copy beside the renamed agent.
    const service = studio.service;
    const renameAgent = service.files.renameAgent.bind(service.files);
    let entered!: () => void;
    const renameReachedCore = new Promise<void>((resolve) => (entered = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    service.files.renameAgent = async (...args: Parameters<typeof renameAgent>) => {
      entered();
      await released;
      return renameAgent(...args);
    };
    const saves = () => studio.calls.filter((call) => call.method === 'file:write').length;
    const savesBefore = saves();
    try {
      await page().getByRole('button', { name: 'File', exact: true }).click();
      await page().getByRole('button', { name: 'Rename…' }).click();
      await submitName('Rename renamed-agent', 'gated-agent', 'Rename');
      await renameReachedCore;
      await page().keyboard.press('ControlOrMeta+s');
      release();
      await nameDialog('Rename renamed-agent').waitFor({ state: 'detached' });
    } finally {
      release();
      service.files.renameAgent = renameAgent;
    }
    await tab('gated-agent').getByLabel('unsaved changes').waitFor();
    expect(saves()).toBe(savesBefore);
    await expect(readFile(agentFile('renamed-agent'), 'utf8')).rejects.toThrow();
    // The next save writes the new name.
    await page().keyboard.press('ControlOrMeta+s');
    await tab('gated-agent').getByLabel('unsaved changes').waitFor({ state: 'detached' });
    expect(await readFile(agentFile('gated-agent'), 'utf8')).toBe("log('saved after the rename')");
    await expect(readFile(agentFile('renamed-agent'), 'utf8')).rejects.toThrow();
  });

  it('deleting the agent that is running says so and offers to stop the run first; main then asks', async () => {
    await studio.replaceEditorText('.agent-editor .cm-content', 'while true do end\n');
    await page().getByRole('button', { name: '▶ Run' }).click();
    await page().locator('.run-status .status-pill', { hasText: 'running' }).waitFor();
    const asked = studio.person.asked.length;
    await page().getByRole('button', { name: 'File', exact: true }).click();
    await page().getByRole('button', { name: 'Delete…' }).click();
    const dialog = page().getByRole('dialog', { name: 'Delete the agent' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('is running now, and a running agent is not deleted');
    await studio.screenshot('delete-running');
    await auditDialogBothThemes('the Delete dialog of a running agent');
    await dialog.getByRole('button', { name: 'Stop the run' }).click();
    expect(await studio.waitForRunEnd()).toBe('stopped');
    // Stopped: nothing was deleted yet, and the page asked nothing itself.
    await dialog.getByRole('button', { name: 'Delete…' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(studio.person.asked.slice(asked).map((question) => question.title)).toEqual([
      'Delete the agent gated-agent?',
    ]);
    await expect(readFile(agentFile('gated-agent'), 'utf8')).rejects.toThrow();
    await tab('gated-agent').waitFor({ state: 'detached' });
    expect(await tab('second-agent').getAttribute('aria-selected')).toBe('true');
  });

  it('Delete asks once, in main’s own dialog that names the file: a no keeps it, a yes deletes it; its runs stay', async () => {
    const asked = studio.person.asked.length;
    studio.person.answers.push(false);
    await page().getByRole('button', { name: 'File', exact: true }).click();
    await page().getByRole('button', { name: 'Delete…' }).click();
    await expect.poll(() => studio.person.asked.length).toBe(asked + 1);
    const question = studio.person.asked[asked]!;
    expect(question).toMatchObject({ title: 'Delete the agent second-agent?', confirm: 'Delete' });
    expect(question.message).toContain('agents/second-agent.lua');
    expect(question.detail).toContain('Its past runs stay in History (runs/).');
    // The page drew no question of its own, and a no kept the file.
    expect(await page().getByRole('dialog').count()).toBe(0);
    expect(await readFile(agentFile('second-agent'), 'utf8')).toBeTruthy();

    await page().getByRole('button', { name: 'File', exact: true }).click();
    await page().getByRole('button', { name: 'Delete…' }).click();
    await expect.poll(() => studio.person.asked.length).toBe(asked + 2);
    await expect.poll(() => readFile(agentFile('second-agent'), 'utf8').catch(() => 'gone')).toBe('gone');
    // No agent is left: the empty state teaches again.
    await page()
      .getByRole('region', { name: /^No agents in/ })
      .waitFor();
    expect(studio.service.state()?.runs.length).toBeGreaterThanOrEqual(2);
  });

  it('a live run stopped by a missing key offers the key form and the recording offline, in place', async () => {
    // A copy of the example agent and its recording, and a model whose provider needs a key.
    await mkdir(path.join(folder, 'recordings'), { recursive: true });
    await copyFile(path.join(repositoryRoot, 'examples', 'agents', 'echo-loop.lua'), agentFile('echo-loop'));
    await copyFile(
      path.join(repositoryRoot, 'examples', 'recordings', 'echo-loop.jsonl'),
      path.join(folder, 'recordings', 'echo-loop.jsonl'),
    );
    const { port } = server.address() as AddressInfo;
    await writeFile(
      path.join(folder, 'models.yaml'),
      `fast:\n  provider: ${provider}\n  model: llama-test\n  baseUrl: http://127.0.0.1:${port}/v1\n`,
    );
    await writeFile(path.join(folder, 'promptforge.yaml'), 'defaultModel: fast\n');
    await studio.openAgent('echo-loop');
    await page().getByRole('button', { name: 'Run offline (replay)' }).waitFor();

    const failedRuns = () => studio.service.state()?.runs.filter((run) => run.status === 'error').length ?? 0;
    await page().getByRole('button', { name: '▶ Run' }).click();
    const dialog = page().getByRole('dialog', { name: 'No Groq key' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('runs with the model fast');
    const field = dialog.getByLabel('Groq API key');
    expect(await field.getAttribute('type')).toBe('password');
    expect(await studio.focusedElement()).toContain('INPUT');
    await studio.screenshot('no-key');
    await auditDialogBothThemes('the no-key offer');
    // The run stopped at its first models.chat: nothing reached the provider.
    await expect.poll(failedRuns).toBe(1);
    expect(authorizations).toEqual([]);

    await dialog.getByRole('button', { name: 'Run the recording offline' }).click();
    await dialog.waitFor({ state: 'detached' });
    // A replay of the recording (the panel still shows the stopped run until it starts).
    await expect
      .poll(() =>
        studio.service
          .state()
          ?.runs.filter((run) => run.replayOf !== undefined)
          .map((run) => run.status),
      )
      .toEqual(['ok']);
    expect(await studio.waitForRunEnd()).toBe('ok');
    await studio.showRunTab('Log');
    await page().getByText('echo ran 2 times').first().waitFor();
    expect(authorizations).toEqual([]);
  });

  it('a key set in the offer goes to the keychain (never back to the page), and the live run starts with it', async () => {
    const failedRuns = () => studio.service.state()?.runs.filter((run) => run.status === 'error').length ?? 0;
    await page().getByRole('button', { name: '▶ Run' }).click();
    const dialog = page().getByRole('dialog', { name: 'No Groq key' });
    await dialog.waitFor();
    await expect.poll(failedRuns).toBe(2);
    const failedBefore = 2;
    await dialog.getByLabel('Groq API key').fill(secret);
    await dialog.getByRole('button', { name: 'Set key and run again' }).click();
    await dialog.waitFor({ state: 'detached' });
    // The loopback provider refuses the key, so the run ends in an error, after sending it.
    await expect.poll(failedRuns).toBe(failedBefore + 1);
    expect(await studio.waitForRunEnd()).toBe('error');
    expect(authorizations).toEqual([`Bearer ${secret}`]);
    expect((await studio.service.keyStatus()).keys.find((key) => key.provider === provider)?.set).toBe(true);
    expect(await page().content()).not.toContain(secret);
    expect(JSON.stringify(studio.results)).not.toContain(secret);
    // With the key set, Run starts at once.
    await page().getByRole('button', { name: '▶ Run' }).click();
    await expect.poll(failedRuns).toBe(failedBefore + 2);
    expect(authorizations).toEqual([`Bearer ${secret}`, `Bearer ${secret}`]);
  });

  it('ran without console errors or CSP violations', () => {
    expect(studio.pageErrors).toEqual([]);
  });
});
