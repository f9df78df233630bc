import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadWorkspace } from '../../../main/core/catalog/workspace.js';
import { replayedMcpTools } from '../../../main/core/mcp/mcp-catalog.js';
import { restrictedRefusal, restrictWorkspace } from '../../../main/core/trust/restricted-mode.js';

async function workspaceWith(tools: string) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'pf-restricted-'));
  writeFileSync(path.join(root, 'tools.yaml'), tools);
  return loadWorkspace(root);
}

describe('restricted mode', () => {
  it("ignores a workspace's own auto, trusted and taintCheck: false, for tools and MCP servers alike", async () => {
    const ws = await workspaceWith(
      [
        'run:\n  kind: command\n  description: d\n  command: [node, x.mjs]\n  parameters: {type: object}\n  approval: auto\n  trust: trusted\n  taintCheck: false\n',
        'gone:\n  kind: command\n  description: d\n  command: [node, y.mjs]\n  parameters: {type: object}\n  approval: deny\n',
        'srv:\n  kind: mcp\n  command: node\n  args: [s.mjs]\n  trust: trusted\n  approval: auto\n  taintCheck: false\n  tools:\n    echo: {trust: trusted, approval: auto, taintCheck: false}\n',
      ].join(''),
    );
    const restricted = restrictWorkspace(ws);
    expect(restricted.tools.get('run')).toMatchObject({ approval: 'ask', trust: 'untrusted', taintCheck: true });
    expect(restricted.tools.get('gone')).toMatchObject({ approval: 'deny' });
    expect(restricted.tools.get('echo')).toMatchObject({ approval: 'ask', taintCheck: true });
    const server = restricted.mcpServers![0]!;
    expect(server).toMatchObject({ trust: 'untrusted', approval: 'ask', taintCheck: true });
    expect(server.overrides['echo']).toEqual({ trust: 'untrusted', approval: 'ask', taintCheck: true });
    // A replay's stand-ins take the restricted policies, never the workspace's own.
    const [standIn] = replayedMcpTools(restricted.mcpServers!, ['srv.echo'], new Set());
    expect(standIn).toMatchObject({ trust: 'untrusted', approval: 'ask', taintCheck: true });
    expect(restrictedRefusal(restricted.tools.get('run')!)).toMatch(
      /workspace is restricted \(not trusted\).*promptforge trust/,
    );
    expect(restrictedRefusal(restricted.tools.get('echo')!)).toBeUndefined();
  });
});
