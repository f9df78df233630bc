import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { McpServerManager } from '../../../main/core/mcp/mcp-manager.js';
import { attackEntry, attackManager, callOf, toolFailure } from '../mcp/workspace-attack-helpers.js';

/**
 * The workspace is an input: a stdio server's `cwd:` is a name inside the workspace that a
 * symbolic link leads elsewhere (`/`, a sibling folder, through a chain of links, from a link
 * folder on the way). The check follows links: the server starts only in a folder whose real
 * path is inside the workspace's real path, and is started in that real path; any other is
 * refused before anything is spawned, with an error naming the server entry and the fix.
 */

let base: string;
let root: string;
const made: McpServerManager[] = [];
beforeAll(() => {
  base = realpathSync(mkdtempSync(path.join(tmpdir(), 'pf-mcp-cwd-')));
  root = path.join(base, 'ws');
  mkdirSync(path.join(root, 'inside', 'deeper'), { recursive: true });
  mkdirSync(path.join(base, 'sibling'));
  writeFileSync(path.join(root, 'file.txt'), 'not a folder');
  symlinkSync(path.join(root, 'inside'), path.join(root, 'link-in'));
  symlinkSync('/', path.join(root, 'link-root'));
  symlinkSync('../sibling', path.join(root, 'link-sibling'));
  symlinkSync('link-sibling', path.join(root, 'chain'));
  symlinkSync('../..', path.join(root, 'inside', 'up'));
  symlinkSync(root, path.join(base, 'ws-link'));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));
afterEach(async () => {
  await Promise.all(made.splice(0).map((manager) => manager.close()));
});

function withCwd(cwd: string, workspaceRoot = root): McpServerManager {
  return attackManager(attackEntry('ws', 'normal', `  cwd: ${JSON.stringify(cwd)}\n`), made, { root: workspaceRoot });
}

describe('cwd through symbolic links', () => {
  it.each([
    ['link-root', 'a link to /'],
    ['link-sibling', 'a link to a sibling folder of the workspace'],
    ['chain', 'a link to that link'],
    ['inside/up', 'a link inside a real folder, leading two levels up'],
    ['link-in/up/sibling', 'a path through links in and out'],
  ])('"%s" (%s) is refused before the server starts', async (cwd) => {
    const mcp = withCwd(cwd);
    const { tools, problems } = await mcp.listTools();
    expect(tools).toEqual([]);
    expect(problems.map((problem) => [problem.message, problem.fix, problem.line])).toEqual([
      [
        `MCP server "ws": cwd "${cwd}" leads outside the workspace through a symbolic link, so the server is not started; set "cwd:" to a folder inside the workspace (relative to its root), then restart the server (not a link that leads out of it)`,
        'Fix the server entry in tools.yaml, then restart the server.',
        1,
      ],
    ]);
    // Nothing was spawned: the server never wrote a line.
    expect(mcp.statuses()[0]).toMatchObject({ state: 'error', stderrTail: '' });
    const error = await toolFailure(callOf(mcp, 'ws', 'cwd'));
    expect(error.message).toMatch(new RegExp(`^MCP server "ws": cwd "${cwd}" leads outside the workspace`));
  });

  it('a link to a folder inside the workspace is followed: the server runs in its real path', async () => {
    const mcp = withCwd('link-in/deeper');
    expect((await mcp.listTools()).problems).toEqual([]);
    expect(await callOf(mcp, 'ws', 'cwd')).toBe(path.join(root, 'inside', 'deeper'));
  });

  it('a workspace opened through a link: cwd inside is fine, a link out of it is still refused', async () => {
    const inside = withCwd('inside', path.join(base, 'ws-link'));
    expect((await inside.listTools()).problems).toEqual([]);
    expect(await callOf(inside, 'ws', 'cwd')).toBe(path.join(root, 'inside'));
    const outside = withCwd('link-sibling', path.join(base, 'ws-link'));
    expect((await outside.listTools()).problems[0]?.message).toMatch(
      /^MCP server "ws": cwd "link-sibling" leads outside the workspace through a symbolic link/,
    );
  });

  it('a cwd that does not exist, or is a file, is a clear error', async () => {
    const missing = withCwd('nope');
    expect((await missing.listTools()).problems[0]?.message).toBe(
      'MCP server "ws": cwd "nope" does not exist; create the folder, or set "cwd:" to a folder inside the workspace (relative to its root), then restart the server',
    );
    const file = withCwd('file.txt');
    expect((await file.listTools()).problems[0]?.message).toBe(
      'MCP server "ws": cwd "file.txt" is not a folder; set "cwd:" to a folder inside the workspace (relative to its root), then restart the server',
    );
  });

  it('without cwd the server runs in the real path of the workspace root', async () => {
    const mcp = attackManager(attackEntry('ws'), made, { root: path.join(base, 'ws-link') });
    expect((await mcp.listTools()).problems).toEqual([]);
    expect(await callOf(mcp, 'ws', 'cwd')).toBe(root);
  });
});
