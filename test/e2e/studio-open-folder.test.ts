import { cp, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StudioHarness, repositoryRoot } from './bridge.js';

describe('studio: "Open a folder…" asks for a folder and opens it as the workspace', () => {
  let folder = '';
  let studio: StudioHarness;

  beforeAll(async () => {
    // A copy, so runs and edits never touch the repository's fixtures.
    folder = await mkdtemp(path.join(os.tmpdir(), 'promptforge-open-folder-'));
    await cp(path.join(repositoryRoot, 'test', 'fixtures', 'catalogs', 'valid'), folder, { recursive: true });
    studio = new StudioHarness({ chooseFolder: async () => folder });
    await studio.open();
  });
  afterAll(async () => {
    await studio.close();
    await rm(folder, { recursive: true, force: true });
  });

  it('opens the chosen folder: its agents, tools and models show in the explorer', async () => {
    await studio.page.getByRole('button', { name: 'Open a folder…' }).click();
    await studio.page.getByRole('region', { name: 'Editor agents/hello.lua' }).waitFor();
    const explorer = studio.page.getByRole('navigation', { name: 'Workspace explorer' });
    expect(await explorer.locator('.workspace-name').textContent()).toBe(path.basename(folder));
    expect(await explorer.getByRole('region', { name: 'Tools' }).textContent()).toContain('word');
    // No recording here, so there is no offline replay to offer.
    expect(await studio.page.getByRole('button', { name: 'Run offline (replay)' }).count()).toBe(0);
    const methods = studio.calls.map((entry) => entry.method);
    // On start the page asks whether main already has a workspace open (none yet) and for the
    // recent workspaces (none yet), in whatever order their effects run, then opens one.
    expect(methods.slice(0, 2).sort()).toEqual(['workspace:recent', 'workspace:state']);
    expect(methods.slice(2, 4)).toEqual(['workspace:choose', 'workspace:open']);
    // The explorer then loads, in whatever order their effects run: pending approvals and MCP
    // servers' questions, the open agent, the workspace's trust, the person's approval rules (for
    // the header's Rules button), the files for the explorer's file tree, and the workspace's MCP
    // servers (none here). Since workspace trust, opening a folder starts
    // no server: the explorer reads them with `mcp:status` (which starts none, and is read again
    // once the trust is known), never `mcp:list` (which starts them).
    expect([...new Set(methods.slice(4))].sort()).toEqual([
      'approval:list',
      'file:read',
      'files:list',
      'mcp:questions',
      'mcp:status',
      'rules:list',
      'trust:status',
    ]);
  });

  it('ran without console errors or CSP violations', () => {
    expect(studio.pageErrors).toEqual([]);
  });
});
