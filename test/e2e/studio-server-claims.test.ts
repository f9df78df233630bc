import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoSeriousAxeViolations } from './axe.js';
import { StudioHarness, repositoryRoot } from './bridge.js';

// The official filesystem server (started with this Node, no network), whose tools carry MCP
// annotations: read_text_file says it is read-only, write_file that it is destructive.
const FILESYSTEM = path.join(repositoryRoot, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const args = [FILESYSTEM, './data'];

describe('studio: what an MCP server claims about its tools is shown as its claims', () => {
  let folder = '';
  let studio: StudioHarness;
  const tools = () =>
    studio.page.getByRole('navigation', { name: 'Workspace explorer' }).getByRole('region', { name: 'Tools' });
  // A workspace tool's row, or an MCP tool's under its server.
  const claims = (alias: string) =>
    tools().locator('li.explorer-entry, li.mcp-tool', { hasText: alias }).locator('.tool-claims');

  beforeAll(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), 'promptforge-claims-'));
    await cp(path.join(repositoryRoot, 'test', 'fixtures', 'catalogs', 'valid'), folder, { recursive: true });
    await mkdir(path.join(folder, 'data'));
    await writeFile(path.join(folder, 'data', 'notes.txt'), 'notes\n');
    const toolsFile = path.join(folder, 'tools.yaml');
    await writeFile(
      toolsFile,
      `${await readFile(toolsFile, 'utf8')}
fs:
  kind: mcp
  description: Files in the data folder
  command: ${JSON.stringify(process.execPath)}
  args: ${JSON.stringify(args)}
  include: [read_text_file, write_file]
`,
    );
    studio = new StudioHarness({ chooseFolder: async () => folder, viewport: { width: 1440, height: 900 } });
    await studio.open();
    studio.page.setDefaultTimeout(20_000);
    await studio.page.getByRole('button', { name: 'Open a folder…' }).click();
    await studio.page.getByRole('region', { name: 'Editor agents/hello.lua' }).waitFor();
    await studio.trustWorkspace();
    await studio.call('mcp:list', {});
  });
  afterAll(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- undefined when beforeAll failed
    await studio?.close();
    await rm(folder, { recursive: true, force: true });
  });

  it('lists each tool’s claims in the explorer, as the server’s', async () => {
    await claims('fs.write_file').waitFor();
    expect(await claims('fs.read_text_file').textContent()).toBe('the server says: read-only, stays in its own world');
    expect(await claims('fs.write_file').textContent()).toBe(
      'the server says: changes things, destructive, idempotent, stays in its own world',
    );
    expect(await claims('fs.read_text_file').getAttribute('title')).toMatch(
      /nothing checks it, and your rules ignore it/,
    );
    // A tool of no MCP server claims nothing.
    expect(await tools().locator('li.explorer-entry', { hasText: 'word_count' }).locator('.tool-claims').count()).toBe(
      0,
    );
  });

  it('shows them on the card of a waiting call, with whether the person’s rules use them', async () => {
    const { runId } = await studio.call('tool:trial', {
      alias: 'fs.read_text_file',
      arguments: { path: 'data/notes.txt' },
    });
    await studio.showRunTab('Approvals');
    const card = studio.page.locator(`.approval-card[data-run-id="${runId}"]`);
    await card.waitFor();
    expect(await card.locator('.server-claims').textContent()).toBe(
      'The server says: read-only, stays in its own world. Nothing checks these claims, and your rules ignore them: you have not listed this server under trustedServers.',
    );
    // The person lists the server under trustedServers (by how it is reached), in their own rules file.
    await writeFile(
      path.join(studio.configDirectory, 'approval-rules.yaml'),
      `version: 1\ntrustedServers:\n  - server: { command: ${JSON.stringify([process.execPath, ...args])} }\n`,
      { mode: 0o600 },
    );
    await card.locator('.server-claims', { hasText: 'You listed this server under trustedServers' }).waitFor();
    await claims('fs.read_text_file').filter({ hasText: '· trusted for rules' }).waitFor();
    await studio.screenshot('server-claims');
    await expectNoSeriousAxeViolations(studio.page, 'the server’s claims (dark)');
    await studio.useTheme('light');
    await expectNoSeriousAxeViolations(studio.page, 'the server’s claims (light)');
    await studio.call('run:stop', { runId });
  });

  it('ran without console errors or CSP violations', () => {
    expect(studio.pageErrors).toEqual([]);
  });
});
