// The person's approval rules for a run: read when it is prepared, MCP tools identified by how their server is reached.
import { realpathSync } from 'node:fs';
import type { Workspace } from '../catalog/workspace.js';
import { GateRules } from '../rules/gate-rules.js';
import { serverIdentity } from '../rules/rule-match.js';
import type { DefinedTool } from '../tools/tool-definition.js';
import type { PrepareRunOptions } from './prepare-run.js';

/**
 * The person's rules for a run in `workspace`: read now (a file the workspace could have written,
 * or one from another user, is ignored with a warning; a broken one makes every call asks), with
 * MCP tools identified by how their server is reached.
 */
export async function gateRules(
  options: NonNullable<PrepareRunOptions['rules']>,
  workspace: Workspace,
): Promise<GateRules> {
  const snapshot = await options.store.load(workspace.root);
  for (const warning of snapshot.warnings) options.onWarning?.(warning);
  for (const problem of options.store.describeProblems(snapshot))
    options.onWarning?.(`${problem} (no approval rule applies, and every call asks, until the file is fixed)`);
  let real: string | undefined;
  try {
    real = realpathSync.native(workspace.root);
  } catch {
    real = undefined;
  }
  const servers = workspace.mcpServers ?? [];
  const definitions = options.definitions;
  return new GateRules({
    snapshot,
    ...(real !== undefined && { workspace: real }),
    serverOf: (spec) => {
      if (spec.settings.kind !== 'mcp') return undefined;
      const name = spec.settings.server;
      const server = servers.find((candidate) => candidate.name === name);
      return server && serverIdentity(server.transport, real);
    },
    confirm: (ruleId, confirmation) => options.store.confirm(ruleId, confirmation),
    ...(definitions && {
      definitions: await definitions.read(),
      remember: (digest: string, tool: DefinedTool) => definitions.remember(digest, tool),
    }),
    ...(options.usage && {
      used: (ruleId: string, alias: string, at: string) => options.usage?.note(ruleId, alias, at),
    }),
  });
}
