import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StudioHarness, repositoryRoot } from './bridge.js';
import { pressWhenArmed } from './card-press.js';

// Real servers, started with this Node (no npx, no network): the official filesystem server
// confined to ./data, one that writes to stderr and exits, and one whose command does not exist.
const FILESYSTEM = path.join(repositoryRoot, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const node = JSON.stringify(process.execPath);
const SECRET_LINE = 'the quarterly numbers are in the drawer';

const mcpEntries = `
fs:
  kind: mcp
  description: Files in the data folder
  command: ${node}
  args: [${JSON.stringify(FILESYSTEM)}, ./data]
  include: [read_text_file, list_directory]

broken:
  kind: mcp
  description: exits at start
  command: ${node}
  args: [-e, "console.error('h11 broken server: refusing to start'); process.exit(3)"]

ghost:
  kind: mcp
  description: not installed
  command: no-such-mcp-server-binary-h11
`;

describe('studio: an MCP server added in the catalog editor, its tools, a call, its approval', () => {
  let folder = '';
  let runId = '';
  let studio: StudioHarness;
  const explorer = () => studio.page.getByRole('navigation', { name: 'Workspace explorer' });
  const server = (name: string) => explorer().getByRole('listitem', { name: `MCP server ${name}` });

  beforeAll(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), 'promptforge-mcp-'));
    await cp(path.join(repositoryRoot, 'test', 'fixtures', 'catalogs', 'valid'), folder, { recursive: true });
    await mkdir(path.join(folder, 'data'));
    await writeFile(path.join(folder, 'data', 'notes.txt'), `${SECRET_LINE}\n`);
    studio = new StudioHarness({ chooseFolder: async () => folder, viewport: { width: 1440, height: 900 } });
    await studio.open();
    studio.page.setDefaultTimeout(20_000);
    await studio.page.getByRole('button', { name: 'Open a folder…' }).click();
    await studio.page.getByRole('region', { name: 'Editor agents/hello.lua' }).waitFor();
  });
  afterAll(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- undefined when beforeAll failed
    await studio?.close();
    await rm(folder, { recursive: true, force: true });
  });

  it('adds three servers in the raw tools.yaml editor and saves', async () => {
    const toolsFile = path.join(folder, 'tools.yaml');
    const original = await readFile(toolsFile, 'utf8');
    expect(
      await explorer()
        .getByRole('listitem', { name: /^MCP server / })
        .count(),
    ).toBe(0);
    await explorer().getByRole('button', { name: 'Tools tools.yaml' }).click();
    const editor = studio.page.getByRole('region', { name: 'Catalog editor tools.yaml' });
    await editor.getByRole('status').filter({ hasText: 'Valid' }).waitFor();
    await studio.replaceEditorText('.catalog-editor .cm-content', original + mcpEntries);
    await editor.getByRole('status').filter({ hasText: 'Valid' }).waitFor();
    await studio.page.getByRole('button', { name: 'Save tools.yaml' }).click();
    await editor.getByText('Saved', { exact: true }).waitFor();
    expect(await readFile(toolsFile, 'utf8')).toBe(original + mcpEntries);
  });

  it("starts nothing until the workspace is trusted, and then only on the person's click", async () => {
    // The folder is restricted (never trusted): its servers are named, and none starts.
    const banner = studio.page.getByRole('region', { name: 'Restricted mode', exact: true });
    await banner.waitFor();
    await explorer().getByText('Not started in Restricted mode:', { exact: false }).waitFor();
    expect(studio.calls.filter((entry) => entry.method === 'mcp:list')).toEqual([]);
    // Trusting it (the person's stand-in says yes) lists the servers stopped.
    await banner.getByRole('button', { name: 'Review and trust…' }).click();
    const review = studio.page.getByRole('dialog', { name: 'Review this workspace' });
    await review.getByRole('button', { name: 'Trust this workspace…' }).click();
    await review.getByText(/^Trusted\./).waitFor();
    await review.getByRole('button', { name: 'Close' }).click();
    await banner.waitFor({ state: 'detached' });
    await server('fs').getByLabel('status stopped').waitFor();
    expect(studio.calls.filter((entry) => entry.method === 'mcp:list')).toEqual([]);
    await explorer().getByRole('button', { name: 'Start servers and list their tools' }).click();
  });

  it('shows the filesystem server ready with its tools; a tool opens its schema', async () => {
    await server('fs').getByLabel('status ready').waitFor();
    const tool = server('fs').getByRole('button', { name: 'fs.read_text_file', exact: true });
    await tool.waitFor();
    expect(await server('fs').getByRole('button', { name: /^fs\./ }).allTextContents()).toEqual(
      expect.arrayContaining(['fs.read_text_file', 'fs.list_directory']),
    );
    // include: only the two named tools are exposed.
    expect(await server('fs').getByRole('button', { name: /^fs\./ }).count()).toBe(2);
    expect(await tool.getAttribute('aria-expanded')).toBe('false');
    await tool.click();
    expect(await tool.getAttribute('aria-expanded')).toBe('true');
    const schema = JSON.parse(
      (await server('fs').getByLabel('Input schema of fs.read_text_file').textContent()) ?? '',
    ) as { type: string; properties: Record<string, unknown>; required: string[] };
    expect(schema.type).toBe('object');
    expect(Object.keys(schema.properties)).toContain('path');
    expect(schema.required).toContain('path');
    await studio.screenshot('mcp-explorer');
  });

  it("lists each of the server's tools once, under the server, with their approval and trust tags and Try", async () => {
    const tools = explorer().getByRole('region', { name: 'Tools' });
    const entry = (alias: string) => server('fs').locator('li', { hasText: alias });
    await entry('fs.read_text_file').locator('.tag').first().waitFor();
    expect(await entry('fs.read_text_file').locator('.tag').allTextContents()).toEqual(['ask', 'untrusted']);
    expect(await entry('fs.list_directory').locator('.tag').allTextContents()).toEqual(['ask', 'untrusted']);
    // Once in the explorer: the workspace's own tools list holds word_count, not the server's tools.
    expect(await explorer().getByText('fs.read_text_file', { exact: true }).count()).toBe(1);
    expect(await tools.locator('li.explorer-entry', { hasText: 'word_count' }).count()).toBe(1);
    await entry('fs.read_text_file').getByRole('button', { name: 'Try fs.read_text_file' }).click();
    await studio.page.getByRole('region', { name: 'Try tool fs.read_text_file' }).waitFor();
  });

  it('shows a server that exits at start in error, with its stderr tail, and a missing command by name', async () => {
    await server('broken').getByLabel('status error').waitFor();
    await server('broken').getByText('stderr').click();
    expect(await server('broken').locator('pre').textContent()).toContain('h11 broken server: refusing to start');
    await server('ghost').getByLabel('status error').waitFor();
    expect(await server('ghost').locator('.error-text').textContent()).toMatch(
      /the command "no-such-mcp-server-binary-h11" was not found/,
    );
    // A broken server does not hide the others' tools.
    expect(await server('fs').getByLabel('status ready').count()).toBe(1);
  });

  it('stops and restarts a server from the explorer', async () => {
    await server('fs').getByRole('button', { name: 'Stop MCP server fs' }).click();
    await server('fs').getByLabel('status stopped').waitFor();
    expect(await server('fs').getByRole('button', { name: 'Stop MCP server fs' }).isDisabled()).toBe(true);
    await server('fs').getByRole('button', { name: 'Restart MCP server fs' }).click();
    await server('fs').getByLabel('status ready').waitFor();
    await server('fs').getByRole('button', { name: 'fs.read_text_file', exact: true }).waitFor();
    // Restarting a broken server runs it again: it fails again, with its stderr.
    await server('broken').getByRole('button', { name: 'Restart MCP server broken' }).click();
    await expect.poll(() => studio.calls.filter((entry) => entry.method === 'mcp:restart' && entry.ok).length).toBe(2);
    await server('broken').getByLabel('status error').waitFor();
    expect(await server('broken').locator('pre').textContent()).toContain('h11 broken server: refusing to start');
    expect(studio.calls.filter((entry) => entry.method === 'mcp:stop' && entry.ok)).toHaveLength(1);
  });

  it('runs a script that calls an MCP tool: the approval card looks like any other, approved deliberately', async () => {
    const notes = JSON.stringify(path.join(folder, 'data', 'notes.txt'));
    await writeFile(
      path.join(folder, 'agents', 'read-notes.lua'),
      // read_text_file declares an outputSchema: the script receives a table.
      `local file = tools.call('fs.read_text_file', { path = ${notes} })\nlog('read: ' .. file.content)\n`,
    );
    await studio.agentButton('read-notes').waitFor();
    await studio.openAgent('read-notes');
    await studio.page.getByRole('button', { name: '▶ Run' }).click();
    await studio.page
      .getByRole('tab', { name: /^Approvals/ })
      .getByLabel('1 pending')
      .waitFor();
    await studio.showRunTab('Approvals');
    await studio.waitForApprovalCards(1);
    const card = studio.page.locator('.approval-card[data-call-id="call-1"]');
    expect(await card.getByRole('heading').textContent()).toBe('fs.read_text_file call-1');
    expect(await card.locator('.approval-description').textContent()).toMatch(/^\[from MCP server "fs", untrusted\] /);
    expect(JSON.parse((await card.locator('pre').textContent()) ?? '')).toEqual({
      path: path.join(folder, 'data', 'notes.txt'),
    });
    expect(await card.locator('.reason-badge').textContent()).toBe('policy: ask');
    // The same buttons as every tool's card.
    for (const name of ['A Approve', 'E Edit then approve', 'D Deny…'])
      expect(await card.getByRole('button', { name }).count()).toBe(1);
    const decideCalls = () => studio.calls.filter((entry) => entry.method === 'approval:decide').length;
    runId = (await studio.service.listApprovals())[0]!.runId;
    await card.and(studio.page.locator('[data-armed="true"]')).waitFor();
    // A key on a card focused by a program, not by the person, decides nothing.
    await card.focus();
    await studio.page.keyboard.press('a');
    // Said so, and for that reason (focus is asked about before arming: a card that moved meanwhile says the same).
    await card
      .locator('.arming-notice', { hasText: 'Ignored: keys decide only after you click or Tab into this card.' })
      .waitFor();
    expect(decideCalls()).toBe(0);
    await pressWhenArmed({ card, button: card.getByRole('button', { name: 'A Approve' }), done: 'card-gone' });
    expect(await studio.waitForRunEnd()).toBe('ok');
    expect(decideCalls()).toBe(1);
  });

  it('shows the untrusted badge and the envelope in the conversation', async () => {
    await studio.showRunTab('Conversation');
    const conversation = studio.page.getByRole('log', { name: 'Conversation' });
    const call = conversation.getByRole('article', { name: 'Tool call call-1' });
    await call.waitFor();
    expect(await call.locator('.state-badge').textContent()).toBe('done');
    expect(await call.locator('.decision-note').textContent()).toBe('Approved by you');
    expect(await call.locator('.trust-badge').textContent()).toBe('untrusted');
    expect(await call.locator('.tool-output').textContent()).toContain(SECRET_LINE);
    // What the script received is wrapped in the run's envelope: the log line shows its tags.
    const events = await studio.waitForTranscriptEvent(runId, 'run-end');
    const logs = events.filter((event) => event['type'] === 'log').map((event) => String(event['text']));
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(
      new RegExp(`^read: <untrusted_input_([0-9a-f]+)>\\n[^\\n]+\\n${SECRET_LINE}\\n\\n</untrusted_input_\\1>$`),
    );
    await studio.showRunTab('Log');
    const markers = studio.page.getByRole('region', { name: 'Run panel' }).locator('.envelope-marker');
    await markers.first().waitFor();
    expect(await markers.first().textContent()).toMatch(/^<untrusted_input_[0-9A-Za-z]+>$/);
    await studio.screenshot('mcp-conversation');
  });

  it("offers the server's tools in the editor's completion inside tools.call('", async () => {
    await studio.showRunTab('Log');
    await studio.replaceEditorText('.agent-editor .cm-content', '');
    await studio.page.keyboard.type("tools.call('fs.");
    const labels = () => studio.page.locator('.cm-tooltip-autocomplete li .cm-completionLabel').allTextContents();
    await studio.page.locator('.cm-tooltip-autocomplete:not(.cm-tooltip-autocomplete-disabled)').waitFor();
    await expect.poll(async () => (await labels()).sort()).toEqual(['fs.list_directory', 'fs.read_text_file']);
    await studio.page.keyboard.press('Escape');
  });

  it('drops the servers and their tools when tools.yaml loses them (an external edit)', async () => {
    const toolsFile = path.join(folder, 'tools.yaml');
    const text = await readFile(toolsFile, 'utf8');
    await writeFile(toolsFile, text.replace(mcpEntries, ''));
    await server('fs').waitFor({ state: 'detached' });
    const tools = explorer().getByRole('region', { name: 'Tools' });
    await tools.locator('li.explorer-entry', { hasText: 'fs.read_text_file' }).waitFor({ state: 'detached' });
    expect(
      await explorer()
        .getByRole('listitem', { name: /^MCP server / })
        .count(),
    ).toBe(0);
    expect(await tools.locator('li.explorer-entry', { hasText: 'word_count' }).count()).toBe(1);
  });

  it('ran without console errors or CSP violations', () => {
    expect(studio.pageErrors).toEqual([]);
  });
});
