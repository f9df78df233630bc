/** `promptforge mcp list`: starts each MCP server of the workspace, prints its status and tools, stops it. */
import path from 'node:path';
import { parse } from './cli-args.js';
import { UsageError, untilInterrupted } from './cli-errors.js';
import type { CliIo, Printer } from './cli-io.js';
import { loadCatalogModules, workspaceRoot } from './cli-workspace.js';
import { EXIT } from './exit-codes.js';
import { decideWorkspaceTrust } from './trust-command.js';

/** Starts each MCP server of the workspace, prints its status and tools, stops it. */
export async function mcpCommand(args: string[], io: CliIo, print: Printer, interrupt: AbortSignal): Promise<number> {
  const { values, positionals } = parse('mcp list', args, { workspace: { type: 'string' } });
  const [action, ...extra] = positionals;
  if (action !== 'list')
    throw new UsageError(action === undefined ? 'mcp needs list' : `unknown mcp command "${action}"; use list`);
  if (extra.length > 0) throw new UsageError('mcp list takes no arguments');
  const root = (await workspaceRoot(io, values.workspace)) ?? io.cwd;
  const { loadWorkspace, formatProblem } = await loadCatalogModules();
  const workspace = await loadWorkspace(root);
  for (const problem of workspace.problems) print.err(formatProblem(problem));
  const servers = workspace.mcpServers ?? [];
  if (servers.length === 0) {
    print.out(`No MCP servers in ${path.join(root, 'tools.yaml')} (add an entry with "kind: mcp").`);
    return EXIT.ok;
  }
  // Listing starts every server: only in a trusted workspace, asked for as a run asks (a
  // restricted listing would start nothing, so there is no restricted answer).
  const trust = await untilInterrupted(
    decideWorkspaceTrust(workspace, io, print, { restricted: false, what: 'list', offerRestricted: false }),
    interrupt,
  );
  const trusted = trust.workspace;
  const [{ scopedSecretUses, scopeWorkspaceSecrets, WorkspaceSecretStore }, { McpServerManager }] = await Promise.all([
    import('../core/trust/secret-scope.js'),
    import('../core/mcp/mcp-manager.js'),
  ]);
  const scoped = scopeWorkspaceSecrets(trusted);
  const manager = new McpServerManager({
    workspaceRoot: root,
    servers: scoped.mcpServers ?? [],
    secrets: new WorkspaceSecretStore(io.secrets(), root, scopedSecretUses(trusted)),
    reservedAliases: trusted.tools.list().map((tool) => tool.alias),
  });
  try {
    const listed = await untilInterrupted(manager.listTools(), interrupt);
    for (const problem of listed.problems) print.err(formatProblem(problem));
    for (const status of manager.statuses()) {
      print.out(`${status.name} (${status.transport}): ${status.state}${status.error ? ` - ${status.error}` : ''}`);
      for (const tool of status.tools)
        print.out(`  ${tool.alias}  ${tool.description.split('\n')[0]?.slice(0, 160) ?? ''}`);
      if (status.state !== 'ready' && status.stderrTail.trim())
        print.out(`  stderr: ${status.stderrTail.trim().split('\n').slice(-5).join('\n          ')}`);
    }
    return manager.statuses().every((status) => status.state === 'ready') ? EXIT.ok : EXIT.scriptError;
  } finally {
    await manager.close();
  }
}
