// The tool catalog a run sees: the workspace's tools, its MCP servers (started lazily, replayed, or refused), and in-process tools.
import { mcpSecretNames, type McpServerSpec } from '../catalog/mcp-spec.js';
import { ToolCatalogImpl } from '../catalog/tool-catalog.js';
import type { Workspace } from '../catalog/workspace.js';
import { McpAwareCatalog, replayedMcpTools } from '../mcp/mcp-catalog.js';
import type { McpServerManager } from '../mcp/mcp-manager.js';
import { mcpPassThroughSecrets } from '../mcp/mcp-secrets.js';
import { wordsFor, type Surface } from '../surface-words.js';
import type { SecretSource } from '../tools/http-runner.js';
import { ToolFailure, type ToolCatalog } from '../tools/tool-spec.js';
import { changedFilesRefusal, type PinnedFiles } from '../trust/pinned-runner.js';
import { RestrictedCatalog } from '../trust/restricted-mode.js';
import { withInProcessCatalog } from './in-process-tools.js';
import type { McpReadSource } from './mcp-reads.js';
import type { PrepareRunOptions } from './prepare-run.js';
import type { ReplayRecording } from './replay.js';

/** A run's catalog, with the MCP servers behind it when the run uses them. */
export interface RunCatalog {
  catalog: ToolCatalog;
  /** The catalog of the workspace's tools and its servers' (whose definitions may change while a card waits). */
  liveMcp?: McpAwareCatalog;
  /** The servers' manager: the run's calls and reads go through it. */
  manager?: McpServerManager;
  /** Stops what the run started for its servers, when it ends. */
  endMcp?: () => void;
}

/**
 * The catalog of a run in `workspace`: a replay that goes nowhere live (`offline`, its recording)
 * gets stand-ins for the MCP tools it recorded; a restricted run lists MCP tools that refuse; a
 * trusted one starts its servers when the script first advertises or calls an alias they may own.
 */
export async function runCatalog(
  options: PrepareRunOptions,
  context: {
    workspace: Workspace;
    trusted: boolean;
    offline: ReplayRecording | undefined;
    pinned: PinnedFiles | undefined;
    toolSecretSource: SecretSource;
    secretValues: string[];
  },
): Promise<RunCatalog> {
  const { workspace, trusted, offline: replay, pinned, toolSecretSource, secretValues } = context;
  const offline = replay !== undefined;
  // MCP servers: started lazily, when the script first advertises or calls an alias they may own.
  let catalog: ToolCatalog = workspace.tools;
  let endMcp: (() => void) | undefined;
  let liveMcp: McpAwareCatalog | undefined;
  let mcpManager: McpServerManager | undefined;
  const mcpServers = workspace.mcpServers ?? [];
  if (offline && mcpServers.length > 0) {
    const known = new Set(workspace.tools.list().map((tool) => tool.alias));
    const standIns = replayedMcpTools(mcpServers, replay.recordedAliases(), known);
    if (standIns.length > 0) catalog = new ToolCatalogImpl([...workspace.tools.list(), ...standIns]);
  }
  if (!offline && mcpServers.length > 0 && !trusted) catalog = new RestrictedCatalog(workspace.tools, mcpServers);
  if (!offline && mcpServers.length > 0 && trusted) {
    for (const name of mcpSecretNames(mcpServers)) await toolSecretSource.get(name).catch(() => undefined);
    // The MCP client (the SDK) loads only for a workspace that has MCP servers.
    const manager =
      options.mcp ??
      new (await import('../mcp/mcp-manager.js')).McpServerManager({
        workspaceRoot: workspace.root,
        servers: mcpServers,
        secrets: toolSecretSource,
        reservedAliases: workspace.tools.list().map((tool) => tool.alias),
        // Sign-ins are the person's, kept in the keychain itself (by resource and issuer).
        ...(options.secrets && { keychain: options.secrets }),
        ...(options.mcpLogin && { login: options.mcpLogin }),
      });
    // Nothing starts yet: a server starts when the script first advertises or calls an alias it may own.
    const live = new McpAwareCatalog(workspace.tools.list(), manager);
    liveMcp = live;
    catalog = preparingCatalog(live, mcpServers, pinned, options.onMcpProblem, options.surface);
    // Host values passed through to servers that look secret are redacted like command tools'.
    for (const value of mcpPassThroughSecrets(mcpServers, options.env ?? process.env))
      if (!secretValues.includes(value)) secretValues.push(value);
    endMcp = () => {
      live.dispose();
      if (!options.mcp) void manager.close();
    };
    mcpManager = manager;
  }

  if (options.inProcessTools && !offline) catalog = withInProcessCatalog(catalog, options.inProcessTools);
  return {
    catalog,
    ...(liveMcp && { liveMcp }),
    ...(mcpManager && { manager: mcpManager }),
    ...(endMcp && { endMcp }),
  };
}

/** The run's MCP reads, through `manager`, refused from a server whose files changed since the run started. */
export function mcpReadSource(manager: McpServerManager, pinned: PinnedFiles | undefined): McpReadSource {
  return {
    readResource: (server, uri, request) => {
      refuseChangedServer(pinned, server);
      return manager.readResource(server, uri, request);
    },
    getPrompt: (server, name, args, request) => {
      refuseChangedServer(pinned, server);
      return manager.getPrompt(server, name, args, request);
    },
  };
}

/**
 * `live`, whose `prepare` starts the servers an alias may come from and reports their problems. A
 * server whose files changed since the run started is not started: the problem names the files.
 */
function preparingCatalog(
  live: McpAwareCatalog,
  servers: readonly McpServerSpec[],
  pinned: PinnedFiles | undefined,
  onProblem: PrepareRunOptions['onMcpProblem'],
  surface: Surface | undefined,
): ToolCatalog {
  const refused = new Set<string>();
  /** A server that may own `alias` and whose files changed since the run started, if any. */
  const staleOwner = (alias: string) =>
    servers
      .filter((server) => server.prefix === '' || alias.startsWith(server.prefix))
      .find((server) => (pinned?.changedServer(server.name).length ?? 0) > 0);
  const staleRefusal = (server: McpServerSpec) =>
    `MCP server "${server.name}": ${changedFilesRefusal(pinned!.changedServer(server.name), 'it')}`;
  return {
    get: (alias) => live.get(alias),
    list: () => live.list(),
    validateArguments: (alias, args) => live.validateArguments(alias, args),
    argumentProblems: (alias, args) => live.argumentProblems(alias, args),
    validateOutput: (alias, output) => live.validateOutput(alias, output),
    // A server that is not started because its files changed says so, not what it last failed with.
    unavailable: (alias) => {
      const stale = staleOwner(alias);
      return stale ? { reason: staleRefusal(stale) } : live.unavailable(alias);
    },
    prepare: async (aliases) => {
      const ready = aliases.filter((alias) => {
        const stale = staleOwner(alias);
        if (!stale) return true;
        if (!refused.has(stale.name)) {
          refused.add(stale.name);
          onProblem?.({
            severity: 'error',
            file: stale.location.file,
            pointer: stale.location.pointer,
            line: stale.location.line,
            column: stale.location.column,
            message: staleRefusal(stale),
            fix: wordsFor(surface).trustAgain,
          });
        }
        return false;
      });
      for (const problem of await live.prepare(ready)) onProblem?.(problem);
    },
  };
}

/** Refuses a read from a server whose files changed since the run started (as its tool calls are). */
function refuseChangedServer(pinned: PinnedFiles | undefined, server: string): void {
  const changed = pinned?.changedServer(server) ?? [];
  if (changed.length > 0) throw new ToolFailure(`MCP server "${server}": ${changedFilesRefusal(changed, 'it')}`);
}
