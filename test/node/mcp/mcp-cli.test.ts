import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { firstUnsafe, root, runCli } from '../cli/spawn-cli.js';
import { trustForTests } from '../trust/trust-for-tests.js';

const HOSTILE = path.join(root, 'test/fixtures/hostile-mcp-server.mjs');
const EVERYTHING = path.join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const folders: string[] = [];
afterAll(() => folders.forEach((folder) => rmSync(folder, { recursive: true, force: true })));

/** A workspace holding `yaml` as its tools.yaml, trusted (listing servers needs trust; it is not the subject here). */
async function workspace(yaml: string): Promise<string> {
  const folder = mkdtempSync(path.join(tmpdir(), 'pf-mcp-cli-'));
  folders.push(folder);
  writeFileSync(path.join(folder, 'tools.yaml'), yaml);
  await trustForTests(folder);
  return folder;
}

const node = JSON.stringify(process.execPath);

describe('promptforge mcp list', () => {
  it('lists each server, its status and its tools; a broken server exits 1 with its error', async () => {
    const dir = await workspace(
      `everything:\n  kind: mcp\n  command: ${node}\n  args: [${JSON.stringify(EVERYTHING)}, stdio]\n` +
        `dead:\n  kind: mcp\n  command: ${node}\n  args: [${JSON.stringify(HOSTILE)}, exit-start]\n`,
    );
    const result = await runCli(['mcp', 'list', '--workspace', dir], { cwd: root });
    expect(result.stdout).toMatch(/^everything \(stdio\): ready$/m);
    expect(result.stdout).toMatch(/^ {2}everything\.echo {2}\[from MCP server "everything", untrusted\]/m);
    expect(result.stdout).toMatch(/^dead \(stdio\): error - MCP server "dead" .* it exited while starting/m);
    expect(result.stdout).toContain('hostile server refuses to start');
    // The server's stderr carried terminal escapes and a bidi override; none reach the terminal.
    expect(firstUnsafe(result.stdout)).toBeUndefined();
    expect(result.stdout).toContain('\\x1b[2J');
    expect(result.stderr).toMatch(/tools\.yaml:\d+:\d+: error: MCP server "dead"/);
    expect(result.code).toBe(1);
  });

  it('prints hostile tool descriptions terminal-safe', async () => {
    const evil = await workspace(`bad:\n  kind: mcp\n  command: ${node}\n  args: [${JSON.stringify(HOSTILE)}]\n`);
    const result = await runCli(['mcp', 'list', '--workspace', evil], { cwd: root });
    expect(result.stdout).toContain('bad.echo');
    expect(firstUnsafe(result.stdout)).toBeUndefined();
    expect(firstUnsafe(result.stderr)).toBeUndefined();
  });

  it('keys set accepts a keychain name that an MCP server entry uses', async () => {
    const dir = await workspace(`s:\n  kind: mcp\n  command: x\n  env:\n    TOKEN: { secret: mcp-entry-name }\n`);
    const known = await runCli(['keys', 'set', 'mcp-entry-name', '--workspace', dir], { cwd: root, stdin: 'value\n' });
    expect(known.stderr).not.toMatch(/is not a provider id/);
    const unknown = await runCli(['keys', 'set', 'other-name', '--workspace', dir], { cwd: root, stdin: 'value\n' });
    expect(unknown.stderr).toMatch(
      /"other-name" is not a provider id or a secret named in tools\.yaml.*mcp-entry-name/,
    );
  });

  it('says so when there are no servers, and refuses unknown actions', async () => {
    const empty = await workspace('greet:\n  kind: builtin\n  builtin: echo\n  description: hi\n');
    const none = await runCli(['mcp', 'list', '--workspace', empty], { cwd: root });
    expect(none.code).toBe(0);
    expect(none.stdout).toMatch(/No MCP servers in .*tools\.yaml/);
    const bad = await runCli(['mcp', 'frobnicate'], { cwd: root });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown mcp command "frobnicate"; use list/);
  });
});
