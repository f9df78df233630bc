import { afterEach, describe, expect, it } from 'vitest';
import type { McpServerManager } from '../../../main/core/mcp/mcp-manager.js';
import { McpAwareCatalog } from '../../../main/core/mcp/mcp-catalog.js';
import { MAX_MCP_DESCRIPTION_CHARS, MAX_MCP_TOOLS } from '../../../main/core/mcp/mcp-bounds.js';
import { attackServer, managerFor, UNSAFE } from './control-mcp-helpers.js';

/**
 * A hostile MCP server's `tools/list` (test/node/attack/fixtures/mcp-attack-server.mjs): whatever
 * it lists, the catalog ends with bounded problems naming the server, no tool the host cannot
 * check, and nothing that can rewrite a terminal.
 */

const made: McpServerManager[] = [];
afterEach(async () => {
  await Promise.all(made.splice(0).map((manager) => manager.close()));
});

describe('tools/list', () => {
  it('100,000 entries, half of them invalid: at most 512 tools and a bounded list of problems', async () => {
    const mcp = managerFor(attackServer('many-tools'), made);
    const { tools, problems } = await mcp.listTools();
    expect(tools.length).toBeGreaterThan(0);
    expect(tools.length).toBeLessThanOrEqual(MAX_MCP_TOOLS);
    expect(problems.length).toBeLessThanOrEqual(25);
    const messages = problems.map((problem) => problem.message);
    expect(messages).toContain('MCP server "atk" lists 100000 tools; only the first 512 are considered');
    expect(messages.some((message) => /more entries are dropped: they are not valid MCP tools$/.test(message))).toBe(
      true,
    );
  });

  it('a 10,000-deep inputSchema: the listing is refused with an error naming the server', async () => {
    const mcp = managerFor(attackServer('deep-schema'), made);
    const { tools, problems } = await mcp.listTools();
    expect(tools).toEqual([]);
    expect(problems[0]?.message).toMatch(/^MCP server "atk" .* is not available: .*nests deeper than 72 levels/);
  });

  it('control, bidi and 100,000-character names, a 7 MB description and catastrophic patterns', async () => {
    const mcp = managerFor(attackServer('odd-names'), made);
    const { tools, problems } = await mcp.listTools();
    expect(tools.map((tool) => tool.alias).sort()).toEqual(['atk.big-description', 'atk.ok', 'atk.redos']);
    // (a+)+ runs on RE2 in linear time: the check of a hostile 100,000-character value ends.
    const catalog = new McpAwareCatalog([], mcp);
    expect(catalog.validateArguments('atk.redos', { a: `${'a'.repeat(100_000)}!` })).toMatch(/^invalid arguments/);
    catalog.dispose();
    const description = tools.find((tool) => tool.alias === 'atk.big-description')!.description;
    expect(description.length).toBeLessThanOrEqual(MAX_MCP_DESCRIPTION_CHARS + 60);
    const messages = problems.map((problem) => problem.message);
    expect(messages.join('\n')).toMatch(
      /tool "backref" is dropped: its inputSchema has a pattern that cannot run in linear time/,
    );
    expect(messages.join('\n')).toMatch(/lists tool "dup\\u\{202e\}x+" twice/);
    expect(messages.join('\n')).toMatch(/tool "bidi\\u\{202e\}gnp\.exe" gives the alias/);
    for (const message of messages) {
      expect(message).not.toMatch(UNSAFE);
      expect(message.length).toBeLessThanOrEqual(1001);
    }
  });

  it('a $ref cycle that never consumes the value: checking arguments refuses them, never throws', async () => {
    const mcp = managerFor(attackServer('ref-cycle'), made);
    const { tools } = await mcp.listTools();
    const catalog = new McpAwareCatalog([], mcp);
    try {
      for (const tool of tools) {
        const args = { a: 1 };
        if (tool.alias === 'atk.ok') expect(catalog.validateArguments(tool.alias, args)).toBeUndefined();
        else {
          expect(catalog.validateArguments(tool.alias, args)).toMatch(/^invalid arguments: /);
          expect(catalog.argumentProblems(tool.alias, args)?.length).toBeGreaterThan(0);
        }
      }
    } finally {
      catalog.dispose();
    }
  });
});
