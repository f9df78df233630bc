import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpAwareCatalog } from '../../../main/core/mcp/mcp-catalog.js';
import type { McpServerManager } from '../../../main/core/mcp/mcp-manager.js';
import { MAX_MCP_SCHEMA_CHARS } from '../../../main/core/mcp/mcp-schema.js';
import type { ToolSpec } from '../../../main/core/tools/tool-spec.js';
import { attackManager, loose, MODEL_UNSAFE, repo, stringsOf } from './workspace-attack-helpers.js';

/**
 * Real servers from npm (server-everything, server-filesystem) through the schema cleaning: every
 * tool is kept, every description and title the model reads is labelled, nothing holds a control,
 * invisible or direction character, and the arguments the servers document still validate.
 */

const node = JSON.stringify(process.execPath);
const EVERYTHING = path.join(repo, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const FILESYSTEM = path.join(repo, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');

const kept: McpServerManager[] = [];
let mcp: McpServerManager;
let tools: ToolSpec[];
let problems: string[];
beforeAll(async () => {
  mcp = attackManager(
    `everything:\n  kind: mcp\n  command: ${node}\n  args: [${JSON.stringify(EVERYTHING)}, stdio]\n` +
      `fs:\n  kind: mcp\n  trust: trusted\n  command: [${node}, ${JSON.stringify(FILESYSTEM)}, ${JSON.stringify(repo)}]\n`,
    kept,
  );
  const listed = await mcp.listTools();
  tools = listed.tools;
  problems = listed.problems.map((problem) => problem.message);
});
afterAll(async () => {
  await Promise.all(kept.map((manager) => manager.close()));
});

/** The descriptions and titles at schema positions (property names excluded). */
function annotations(schema: unknown, out: string[] = []): string[] {
  const node = loose(schema);
  if (node === null || typeof node !== 'object') return out;
  if (Array.isArray(node)) {
    for (const item of node) annotations(item, out);
    return out;
  }
  for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
    if ((key === 'description' || key === 'title') && typeof value === 'string') out.push(value);
    else if (
      ['properties', '$defs', 'definitions', 'patternProperties'].includes(key) &&
      value &&
      typeof value === 'object'
    )
      for (const sub of Object.values(value)) annotations(sub, out);
    else if (!['default', 'examples', 'enum', 'const'].includes(key)) annotations(value, out);
  }
  return out;
}

describe('real MCP servers through the schema cleaning', () => {
  it('every tool is kept, with no problem', () => {
    expect(problems).toEqual([]);
    expect(tools.filter((tool) => tool.alias.startsWith('everything.')).length).toBeGreaterThan(5);
    expect(tools.filter((tool) => tool.alias.startsWith('fs.')).length).toBeGreaterThan(5);
  });

  it('every description and title is labelled with its server, and nothing holds an unsafe character', () => {
    for (const tool of tools) {
      const server = loose(tool.settings).server as string;
      const label =
        tool.trust === 'untrusted' ? `[from MCP server "${server}", untrusted]` : `[from MCP server "${server}"]`;
      expect(tool.description.startsWith(label)).toBe(true);
      for (const schema of [tool.parameters, tool.outputSchema]) {
        if (schema === undefined) continue;
        expect(String(loose(schema).description).startsWith(`${label.slice(0, -1)}: all text in this schema`)).toBe(
          true,
        );
        for (const text of annotations(schema)) expect(text.startsWith(label.slice(0, -1))).toBe(true);
        expect(JSON.stringify(schema).length).toBeLessThanOrEqual(MAX_MCP_SCHEMA_CHARS);
      }
      for (const [pointer, text] of stringsOf(tool))
        expect({ pointer, bad: MODEL_UNSAFE.test(text) }).toEqual({ pointer, bad: false });
    }
  });

  it('the arguments they document still validate, and a call goes through', async () => {
    const catalog = new McpAwareCatalog([], mcp);
    try {
      expect(catalog.validateArguments('everything.echo', { message: 'hi' })).toBeUndefined();
      expect(catalog.validateArguments('everything.echo', {})).toMatch(/^invalid arguments/);
      expect(catalog.validateArguments('fs.read_text_file', { path: 'README.md' })).toBeUndefined();
      expect(
        await mcp.callTool('everything', 'echo', { message: 'still works' }, new AbortController().signal, 600_000),
      ).toContain('still works');
    } finally {
      catalog.dispose();
    }
  });
});
