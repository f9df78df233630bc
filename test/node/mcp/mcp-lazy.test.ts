import { afterEach, describe, expect, it } from 'vitest';
import { McpAwareCatalog, type McpDefinitionChange, replayedMcpTools } from '../../../main/core/mcp/mcp-catalog.js';
import type { McpServerManager } from '../../../main/core/mcp/mcp-manager.js';
import type { ToolSpec } from '../../../main/core/tools/tool-spec.js';
import { attackEntry, attackManager, callOf, specsOf } from './workspace-attack-helpers.js';

/**
 * The lazy start API: McpServerManager.serversFor / ensureFor / listServer, and McpAwareCatalog's
 * prepare and onDefinitionsChanged, against the workspace attack server
 * (fixtures/workspace-attack-server.mjs). Each test waits on the calls and events, never on time.
 */

const made: McpServerManager[] = [];
afterEach(async () => {
  await Promise.all(made.splice(0).map((manager) => manager.close()));
});

const TWO = `${attackEntry('a')}${attackEntry('b')}`;

function states(mcp: McpServerManager): Record<string, string> {
  return Object.fromEntries(mcp.statuses().map((status) => [status.name, status.state]));
}

function starts(mcp: McpServerManager, server: string): number {
  const tail = mcp.statuses().find((status) => status.name === server)?.stderrTail ?? '';
  return tail.split('workspace attack server starting').length - 1;
}

const base: ToolSpec = {
  alias: 'a.local',
  description: 'a workspace tool',
  parameters: { type: 'object' },
  trust: 'trusted',
  approval: 'auto',
  taintCheck: true,
  settings: { kind: 'builtin', name: 'echo' } as unknown as ToolSpec['settings'],
  source: 'tools.yaml',
};

describe('McpServerManager: starting only the servers that may own an alias', () => {
  it('serversFor matches prefixes; a server with an empty prefix may own any alias; reserved aliases none', () => {
    const mcp = attackManager(`${TWO}${attackEntry('any', 'normal', '  prefix: ""\n')}`, made, { reserved: ['now'] });
    expect(mcp.serversFor('a.echo')).toEqual(['a', 'any']);
    expect(mcp.serversFor('b.x')).toEqual(['b', 'any']);
    expect(mcp.serversFor('a.')).toEqual(['any']);
    expect(mcp.serversFor('other')).toEqual(['any']);
    expect(mcp.serversFor('now')).toEqual([]);
    expect(states(mcp)).toEqual({ a: 'stopped', b: 'stopped', any: 'stopped' });
  });

  it('ensureFor starts and lists only the owners, once, however many ask at the same time', async () => {
    const mcp = attackManager(TWO, made);
    const results = await Promise.all([mcp.ensureFor('a.echo'), mcp.ensureFor('a.cwd'), mcp.ensureFor('a.nothing')]);
    expect(states(mcp)).toEqual({ a: 'ready', b: 'stopped' });
    expect(starts(mcp, 'a')).toBe(1);
    for (const result of results) {
      expect(result.servers).toEqual(['a']);
      expect(result.problems).toEqual([]);
      expect(result.tools.every((tool) => tool.alias.startsWith('a.'))).toBe(true);
    }
    expect(mcp.currentTools().map((tool) => tool.alias)).toContain('a.echo');
    // Already started: nothing starts again.
    await mcp.ensureFor('a.echo');
    expect(starts(mcp, 'a')).toBe(1);
    expect(await mcp.ensureFor('nobody.x')).toEqual({ servers: [], tools: [], problems: [] });
  });

  it('a server that failed to start is not started again by ensureFor; its problem is reported each time', async () => {
    const mcp = attackManager(attackEntry('a', 'crash-with-secret'), made);
    const first = await mcp.ensureFor('a.echo');
    expect(first.problems.map((problem) => problem.message)).toEqual([
      expect.stringMatching(/^MCP server "a" .* is not available: it exited while starting/),
    ]);
    const second = await mcp.ensureFor('a.echo');
    expect(second.problems).toEqual(first.problems);
    expect(starts(mcp, 'a')).toBe(1);
    expect(states(mcp)).toEqual({ a: 'error' });
  });

  it('a server the person stopped stays stopped; listServer starts one server, and listTools all', async () => {
    const mcp = attackManager(TWO, made);
    const listed = await mcp.listServer('b');
    expect(listed.problems).toEqual([]);
    expect(listed.tools.map((tool) => tool.alias)).toContain('b.echo');
    expect(states(mcp)).toEqual({ a: 'stopped', b: 'ready' });
    await mcp.stop('b');
    await mcp.ensureFor('b.echo');
    expect(states(mcp)).toEqual({ a: 'stopped', b: 'stopped' });
    // Its last listing is kept; a call starts it again.
    expect(mcp.currentTools().some((tool) => tool.alias === 'b.echo')).toBe(true);
    await expect(mcp.listServer('nope')).rejects.toThrow('MCP server "nope" is not in tools.yaml');
    await mcp.listTools();
    expect(states(mcp)).toEqual({ a: 'ready', b: 'ready' });
  });

  it('a closed manager starts nothing', async () => {
    const mcp = attackManager(TWO, made);
    await mcp.close();
    expect(await mcp.ensureFor('a.echo')).toEqual({ servers: [], tools: [], problems: [] });
    expect(states(mcp)).toEqual({ a: 'stopped', b: 'stopped' });
  });
});

describe('McpAwareCatalog.prepare', () => {
  it('makes an alias available before it is looked up, starting only its server', async () => {
    const mcp = attackManager(TWO, made);
    const catalog = new McpAwareCatalog([base], mcp);
    try {
      expect(catalog.get('a.echo')).toBeUndefined();
      expect(await catalog.prepare(['a.echo', 'a.echo', 'unknown.alias'])).toEqual([]);
      expect(catalog.get('a.echo')?.settings).toMatchObject({ kind: 'mcp', server: 'a', tool: 'echo' });
      expect(catalog.validateArguments('a.echo', {})).toBeUndefined();
      expect(states(mcp)).toEqual({ a: 'ready', b: 'stopped' });
      // An alias the catalog holds starts nothing.
      expect(await catalog.prepare(['a.local', 'a.echo'])).toEqual([]);
      expect(starts(mcp, 'a')).toBe(1);
    } finally {
      catalog.dispose();
    }
  });

  it("returns the problems of the servers it started, each once in the catalog's life", async () => {
    const mcp = attackManager(`${attackEntry('a', 'crash-with-secret')}${attackEntry('b')}`, made);
    const catalog = new McpAwareCatalog([], mcp);
    try {
      const problems = await catalog.prepare(['a.one', 'a.two']);
      expect(problems.map((problem) => problem.message)).toEqual([
        expect.stringMatching(/^MCP server "a" .* is not available/),
      ]);
      expect(catalog.get('a.one')).toBeUndefined();
      expect(states(mcp)).toEqual({ a: 'error', b: 'stopped' });
      // Asked again (a script advertising the alias each round): the failure is not reported again.
      expect(await catalog.prepare(['a.one'])).toEqual([]);
      expect(starts(mcp, 'a')).toBe(1);
    } finally {
      catalog.dispose();
    }
  });
});

describe('McpAwareCatalog.onDefinitionsChanged', () => {
  function nextChange(catalog: McpAwareCatalog): Promise<McpDefinitionChange> {
    return new Promise((resolve) => {
      const stop = catalog.onDefinitionsChanged((change) => {
        stop();
        resolve(change);
      });
    });
  }

  it('a redefined tool is "changed", a dropped one "removed"; one that appears is neither', async () => {
    const mcp = attackManager(attackEntry('a'), made);
    await mcp.listTools();
    const catalog = new McpAwareCatalog([], mcp);
    try {
      const before = catalog.get('a.echo')!;
      const change = nextChange(catalog);
      expect(await callOf(mcp, 'a', 'mutate')).toBe('mutated');
      expect(await change).toEqual({ changed: ['a.echo'], removed: ['a.vanish'] });
      expect(catalog.get('a.echo')?.description).not.toBe(before.description);
      expect(catalog.get('a.appeared')).toBeDefined();
    } finally {
      catalog.dispose();
    }
  });

  it('a server started later that takes an alias from another (tools.yaml order) changes its definition', async () => {
    const mcp = attackManager(
      `${attackEntry('x', 'normal', '  prefix: p.\n')}${attackEntry('y', 'normal', '  prefix: p.\n')}`,
      made,
    );
    await mcp.listServer('y');
    const catalog = new McpAwareCatalog([], mcp);
    try {
      expect(catalog.get('p.echo')?.settings).toMatchObject({ server: 'y' });
      const seen: McpDefinitionChange[] = [];
      catalog.onDefinitionsChanged((change) => seen.push(change));
      await mcp.listServer('x');
      expect(catalog.get('p.echo')?.settings).toMatchObject({ server: 'x' });
      expect(seen.flatMap((change) => change.changed)).toContain('p.echo');
    } finally {
      catalog.dispose();
    }
  });

  it('restarting a server that lists the same tools changes nothing', async () => {
    const mcp = attackManager(attackEntry('a'), made);
    await mcp.listTools();
    const catalog = new McpAwareCatalog([], mcp);
    try {
      const seen: McpDefinitionChange[] = [];
      catalog.onDefinitionsChanged((change) => seen.push(change));
      await mcp.restart('a');
      expect(seen).toEqual([]);
    } finally {
      catalog.dispose();
    }
  });
});

describe('replayedMcpTools: the recording gives aliases, never trust', () => {
  const servers = specsOf(
    'srv:\n  kind: mcp\n  command: node\n  trust: trusted\n  approval: auto\n  exclude: [hidden]\n  tools:\n    risky: { trust: untrusted, approval: ask, timeoutMs: 5 }\n',
  );

  it("takes each tool's trust, approval and timeout from tools.yaml, per-tool overrides included", () => {
    const tools = replayedMcpTools(
      servers,
      ['srv.safe', 'srv.risky', 'srv.risky', 'srv.hidden', 'srv.', 'other.x'],
      new Set(),
    );
    expect(tools.map((tool) => [tool.alias, tool.trust, tool.approval, tool.settings])).toEqual([
      ['srv.safe', 'trusted', 'auto', { kind: 'mcp', server: 'srv', tool: 'safe', timeoutMs: 60_000 }],
      ['srv.risky', 'untrusted', 'ask', { kind: 'mcp', server: 'srv', tool: 'risky', timeoutMs: 5 }],
    ]);
  });

  it('a name that is a property of every object ("constructor", "__proto__") is a plain tool name', () => {
    const tools = replayedMcpTools(servers, ['srv.constructor', 'srv.__proto__'], new Set());
    expect(tools.map((tool) => [tool.alias, tool.trust])).toEqual([
      ['srv.constructor', 'trusted'],
      ['srv.__proto__', 'trusted'],
    ]);
  });
});
