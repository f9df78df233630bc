import type { JsonObject } from '../../../common/json.js';
import type { ArgumentProblem } from '../../../common/studio-schemas.js';
import { ToolCatalogImpl } from '../catalog/tool-catalog.js';
import type { ToolCatalog, ToolSpec } from '../tools/tool-spec.js';
import type { McpServerManager } from './mcp-manager.js';
import type { McpServerSpec } from '../catalog/mcp-spec.js';

/**
 * A run's tool catalog: the workspace's tools plus the MCP tools listed so far. When a server says
 * its tools changed (`notifications/tools/list_changed`) or restarts, the MCP part is rebuilt, so
 * later calls see the new list. Argument and output validation are the ordinary catalog's.
 */
export class McpAwareCatalog implements ToolCatalog {
  private current: ToolCatalogImpl;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly base: readonly ToolSpec[],
    manager: McpServerManager,
  ) {
    this.current = new ToolCatalogImpl([...base, ...manager.currentTools()]);
    let known = manager.toolsVersion;
    this.unsubscribe = manager.onChange(() => {
      if (manager.toolsVersion === known) return;
      known = manager.toolsVersion;
      this.current = new ToolCatalogImpl([...this.base, ...manager.currentTools()]);
    });
  }

  get(alias: string): ToolSpec | undefined {
    return this.current.get(alias);
  }

  list(): ToolSpec[] {
    return this.current.list();
  }

  validateArguments(alias: string, args: JsonObject): string | undefined {
    return this.current.validateArguments(alias, args);
  }

  /** See {@link ToolCatalogImpl.argumentProblems}. */
  argumentProblems(alias: string, args: unknown): ArgumentProblem[] | undefined {
    return this.current.argumentProblems(alias, args);
  }

  validateOutput(alias: string, output: unknown): string | undefined {
    return this.current.validateOutput(alias, output);
  }

  /** Stops following the manager. */
  dispose(): void {
    this.unsubscribe();
  }
}

/**
 * Catalog entries for a replay, which starts no server: each alias the recording used that is
 * not a catalog tool and carries an MCP server's prefix becomes a stand-in entry, so a replayed
 * script may still advertise it to `models.chat`. Replay answers the calls from the recording.
 */
export function replayedMcpTools(
  servers: readonly McpServerSpec[],
  recordedAliases: readonly string[],
  known: ReadonlySet<string>,
): ToolSpec[] {
  const tools: ToolSpec[] = [];
  for (const alias of recordedAliases) {
    if (known.has(alias)) continue;
    const server = servers.find((candidate) => candidate.prefix !== '' && alias.startsWith(candidate.prefix));
    if (!server) continue;
    tools.push({
      alias,
      description: `[from MCP server "${server.name}", replayed]`,
      parameters: { type: 'object' },
      trust: server.trust,
      approval: server.approval,
      taintCheck: server.taintCheck,
      settings: {
        kind: 'mcp',
        server: server.name,
        tool: alias.slice(server.prefix.length),
        timeoutMs: server.timeoutMs,
      },
      source: `${server.location.file} (MCP server "${server.name}", replayed)`,
    });
  }
  return tools;
}
