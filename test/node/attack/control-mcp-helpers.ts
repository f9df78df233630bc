import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { buildWorkspace } from '../../../main/core/catalog/workspace.js';
import { McpServerManager } from '../../../main/core/mcp/mcp-manager.js';
import { noSecrets } from '../../fixtures/stubs.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../../..');
const ATTACK_SERVER = path.join(here, 'fixtures/mcp-attack-server.mjs');

/** The tools.yaml entry of the attack server, named "atk", in `mode`, with more YAML lines. */
export function attackServer(mode = 'normal', extra = ''): string {
  return `atk:\n  kind: mcp\n  description: the attack server\n  command: ${JSON.stringify(process.execPath)}\n  args: [${JSON.stringify(ATTACK_SERVER)}, ${mode}]\n${extra}`;
}

/** A manager for `yaml` (tools.yaml text), closed by `closeAll`. */
export function managerFor(yaml: string, made: McpServerManager[]): McpServerManager {
  const workspace = buildWorkspace(repo, { 'tools.yaml': yaml });
  expect(workspace.problems.map((problem) => problem.message)).toEqual([]);
  const manager = new McpServerManager({
    workspaceRoot: repo,
    servers: workspace.mcpServers ?? [],
    secrets: noSecrets,
  });
  made.push(manager);
  return manager;
}

/** Resolves once the server's stderr tail contains `text` (waits on change events, not on time). */
export function stderrShows(manager: McpServerManager, text: string): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (!manager.statuses()[0]!.stderrTail.includes(text)) return false;
      stop();
      resolve();
      return true;
    };
    const stop = manager.onChange(check);
    check();
  });
}

/** Control characters (other than tab and newline) and bidi controls. */
// eslint-disable-next-line no-control-regex
export const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
