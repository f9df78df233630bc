import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpServerManager } from '../../../main/core/mcp/mcp-manager.js';
import { attackEntry, attackManager, callOf, gone, repo, toolFailure } from '../mcp/workspace-attack-helpers.js';

/**
 * The workspace is an input: a stdio MCP server (test/node/mcp/fixtures/workspace-attack-server.mjs)
 * forks grandchildren that ignore SIGTERM and escape the usual ways: one stays in the server's
 * process group with a cleared environment while its parent exits; one calls setsid and keeps the
 * environment; one calls setsid, clears its environment and is reparented to init once its parent
 * exits. Every one of them is killed with the server's tree, like a command tool's: on close (a
 * run that owns its servers closes them when it ends), stop, restart, when the server exits by
 * itself, and when the host process exits without stopping anything. Each test waits for the
 * process table to show the pid gone (a killed process nobody reaps shows as a zombie).
 */

const made: McpServerManager[] = [];
const strays: number[] = [];
afterEach(async () => {
  await Promise.all(made.splice(0).map((manager) => manager.close()));
  // A test that failed must not leave its grandchild behind for the next one.
  for (const pid of strays.splice(0))
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
});

async function ready(): Promise<McpServerManager> {
  const mcp = attackManager(attackEntry('ws'), made);
  const { problems } = await mcp.listTools();
  expect(problems).toEqual([]);
  return mcp;
}

async function grandchild(mcp: McpServerManager, tool: string): Promise<number> {
  const pid = Number(await callOf(mcp, 'ws', tool));
  expect(pid).toBeGreaterThan(0);
  strays.push(pid);
  expect(gone(pid)).toBe(false);
  return pid;
}

describe.skipIf(process.platform === 'win32')('grandchildren of a stdio MCP server', () => {
  it("close(): a grandchild left in the server's group, its environment cleared and its parent gone, is killed", async () => {
    const mcp = await ready();
    const pid = await grandchild(mcp, 'fork-group');
    await mcp.close();
    await expect.poll(() => gone(pid)).toBe(true);
  });

  it('stop(): a grandchild in a session of its own (setsid) is killed', async () => {
    const mcp = await ready();
    const pid = await grandchild(mcp, 'fork-setsid');
    await mcp.stop('ws');
    await expect.poll(() => gone(pid)).toBe(true);
    expect(mcp.statuses()[0]?.state).toBe('stopped');
  });

  it('restart(): setsid, a cleared environment and a reparent to init do not escape the tree', async () => {
    const mcp = await ready();
    const pid = await grandchild(mcp, 'fork-escape-hold');
    // The grandchild's parent exits: it is now outside the server's group, without the marker.
    expect(await callOf(mcp, 'ws', 'release')).toBe('released');
    expect(gone(pid)).toBe(false);
    await mcp.restart('ws');
    await expect.poll(() => gone(pid)).toBe(true);
    expect(mcp.statuses()[0]?.state).toBe('ready');
    expect(await callOf(mcp, 'ws', 'echo', { text: 'after restart' })).toBe('after restart');
  });

  it('a server that exits by itself takes its grandchildren with it', async () => {
    const mcp = await ready();
    const group = await grandchild(mcp, 'fork-group');
    const session = await grandchild(mcp, 'fork-setsid');
    const error = await toolFailure(callOf(mcp, 'ws', 'exit'));
    expect(error.message).toMatch(/^MCP server "ws" stopped during the call/);
    await expect.poll(() => gone(group) && gone(session)).toBe(true);
  });

  it('the host process exits without stopping its servers: the trees are killed at exit', async () => {
    const script = path.join(mkdtempSync(path.join(tmpdir(), 'pf-mcp-exit-')), 'host.mts');
    writeFileSync(
      script,
      `import { McpServerManager } from ${JSON.stringify(path.join(repo, 'main/core/mcp/mcp-manager.ts'))};
import { buildWorkspace } from ${JSON.stringify(path.join(repo, 'main/core/catalog/workspace.ts'))};
const workspace = buildWorkspace(${JSON.stringify(repo)}, { 'tools.yaml': ${JSON.stringify(attackEntry('ws'))} });
const mcp = new McpServerManager({ workspaceRoot: ${JSON.stringify(repo)}, servers: workspace.mcpServers ?? [], secrets: { get: async () => undefined } });
await mcp.listTools();
const group = await mcp.callTool('ws', 'fork-group', {}, new AbortController().signal, 600000);
const session = await mcp.callTool('ws', 'fork-setsid', {}, new AbortController().signal, 600000);
const server = mcp.statuses()[0]?.state;
process.stdout.write(JSON.stringify({ group: Number(group), session: Number(session), server }) + '\\n');
process.exit(0);
`,
    );
    const child = spawn(process.execPath, ['--import', 'tsx', script], {
      cwd: repo,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect({ code, err }).toEqual({ code: 0, err: '' });
    const pids = JSON.parse(out) as { group: number; session: number; server: string };
    strays.push(pids.group, pids.session);
    expect(pids.server).toBe('ready');
    await expect.poll(() => gone(pids.group) && gone(pids.session)).toBe(true);
  });
});
