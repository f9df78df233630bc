import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StudioHarness } from './bridge.js';

// Two workspaces with the same agent path and different models: a choice made in one must never
// reach a run in the other (issue: the select showed "default" while ▶ Run sent the old choice).
const MODELS_A = `scripted:
  provider: ollama
  model: scripted-model
  baseUrl: http://127.0.0.1:9/v1
`;
const MODELS_B = `local:
  provider: ollama
  model: llama
  baseUrl: http://127.0.0.1:9/v1
`;

async function folderWith(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'promptforge-model-choice-'));
  for (const [relative, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, relative)), { recursive: true });
    await writeFile(path.join(root, relative), text);
  }
  return root;
}

describe('studio: the model list is per agent and per workspace', () => {
  let a = '';
  let b = '';
  const answers: string[] = [];
  let studio: StudioHarness;

  beforeAll(async () => {
    a = await folderWith({ 'models.yaml': MODELS_A, 'agents/agent.lua': "log('in a')" });
    b = await folderWith({ 'models.yaml': MODELS_B, 'agents/agent.lua': "log('in b')" });
    studio = new StudioHarness({ chooseFolder: async () => answers.shift() ?? null });
    await studio.open();
  });
  afterAll(async () => {
    await studio.close();
    await rm(a, { recursive: true, force: true });
    await rm(b, { recursive: true, force: true });
  });

  const modelList = () => studio.page.getByRole('combobox', { name: 'Model for live runs of this agent' });

  async function openFolder(folder: string): Promise<void> {
    answers.push(folder);
    await studio.page.keyboard.press('ControlOrMeta+Shift+P');
    await studio.page.getByRole('combobox', { name: 'Type to filter the actions' }).fill('folder');
    await studio.page.getByRole('option', { name: /^Open a folder…/ }).click();
    await studio.page
      .getByRole('navigation', { name: 'Workspace explorer' })
      .locator('.workspace-name', { hasText: path.basename(folder) })
      .waitFor();
    await studio.page.getByRole('region', { name: 'Editor agents/agent.lua' }).waitFor();
  }

  it('a choice made in one workspace is not carried into another; ▶ Run uses what the list shows', async () => {
    answers.push(a);
    await studio.page.getByRole('button', { name: 'Open a folder…' }).click();
    await studio.page.getByRole('region', { name: 'Editor agents/agent.lua' }).waitFor();
    await modelList().selectOption('scripted');
    await expect.poll(() => modelList().inputValue()).toBe('scripted');
    // Make default appears for a choice.
    await studio.page.getByRole('button', { name: 'Make default' }).waitFor();

    await openFolder(b);
    expect(await modelList().inputValue()).toBe('');
    expect(await modelList().locator('option:checked').textContent()).toBe('default (none)');
    await studio.page.getByRole('button', { name: '▶ Run' }).click();
    expect(await studio.waitForRunEnd()).toBe('ok');
    expect(await studio.page.getByText(/Could not start the run/).count()).toBe(0);
    expect(await studio.page.getByText(/--model/).count()).toBe(0);

    // Back in the first workspace, the agent's choice is still there, and the run panel no longer
    // shows the other workspace's run.
    await openFolder(a);
    await studio.page
      .getByRole('region', { name: 'Run panel' })
      .getByText(/^No run selected/)
      .waitFor();
    await expect.poll(() => modelList().inputValue()).toBe('scripted');
  });

  it('a broken models.yaml under a remembered choice: the list says why, and ▶ Run still runs', async () => {
    await writeFile(path.join(a, 'models.yaml'), 'scripted:\n  provider: ollama\n  model: [unclosed\n');
    const note = studio.page.getByRole('status').filter({ hasText: 'you chose for this agent is not in' });
    await note.waitFor();
    expect(await note.textContent()).toMatch(/models\.yaml has an error at line \d+/);
    expect(await modelList().inputValue()).toBe('');
    await studio.page.getByRole('button', { name: '▶ Run' }).click();
    expect(await studio.waitForRunEnd()).toBe('ok');
    await studio.screenshot('model-choice-unavailable');
    await writeFile(path.join(a, 'models.yaml'), MODELS_A);
    await note.waitFor({ state: 'detached' });
    await expect.poll(() => modelList().inputValue()).toBe('scripted');
  });

  it("Make default writes the agent's model to promptforge.yaml, and the list then shows it as the default", async () => {
    await studio.page.getByRole('button', { name: 'Make default' }).click();
    await expect.poll(() => modelList().locator('option:checked').textContent()).toBe('default (scripted)');
    expect(await readFile(path.join(a, 'promptforge.yaml'), 'utf8')).toMatch(
      /agents:\n\s+agents\/agent\.lua:\n\s+model: scripted/,
    );
    expect(await studio.page.getByRole('button', { name: 'Make default' }).count()).toBe(0);
  });

  it('File ▾ → Open recent lists the other workspaces opened lately, and opens one with a click', async () => {
    await studio.page.getByRole('button', { name: /^File/ }).click();
    const recent = studio.page.getByRole('group', { name: 'Open recent' });
    await recent.waitFor();
    // The open workspace is not offered again.
    expect(await recent.getByRole('button').allTextContents()).toEqual([`${path.basename(b)}${b}`]);
    await recent.getByRole('button', { name: new RegExp(`^${path.basename(b)}`) }).click();
    await studio.page
      .getByRole('navigation', { name: 'Workspace explorer' })
      .locator('.workspace-name', { hasText: path.basename(b) })
      .waitFor();
  });

  it('ran without console errors or CSP violations', () => {
    expect(studio.pageErrors).toEqual([]);
  });
});
