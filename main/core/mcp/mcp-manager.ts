import type { JsonObject, JsonSchema } from '../../../common/json.js';
import type { CatalogProblem } from '../catalog/catalog-problem.js';
import { UserSchemaCompiler } from '../catalog/catalog-schemas.js';
import type { SecretSource } from '../tools/http-runner.js';
import type { McpToolCaller } from '../tools/tool-runner.js';
import { ToolFailure, type ToolSpec } from '../tools/tool-spec.js';
import { McpConnection, type McpServerState } from './mcp-connection.js';
import type { McpServerSpec } from '../catalog/mcp-spec.js';
import { mcpToolSpecs, serverProblem } from './mcp-tools.js';
import { errorMessage } from '../../../common/error-message.js';

/** What the studio and `promptforge mcp list` show about one server. */
export interface McpServerStatus {
  name: string;
  transport: 'stdio' | 'http';
  state: McpServerState;
  error?: string;
  /** The last 64 KiB of stderr (stdio servers). */
  stderrTail: string;
  /** The tools as catalog aliases, once listed. */
  tools: { alias: string; name: string; description: string; inputSchema: JsonSchema; outputSchema?: JsonSchema }[];
}

export interface McpServerManagerOptions {
  workspaceRoot: string;
  servers: readonly McpServerSpec[];
  /** The keychain, for `{ secret: NAME }` env values and headers. */
  secrets: SecretSource;
  /** Aliases of the workspace's other tools: an MCP tool with one of these names is dropped. */
  reservedAliases?: Iterable<string>;
}

/**
 * The MCP servers of one workspace (the studio keeps one per workspace, the CLI one per run). A
 * server starts when its tools are first listed or called, and `close()` stops every server with
 * its process tree. Implements the ToolRunner's {@link McpToolCaller}.
 */
export class McpServerManager implements McpToolCaller {
  private readonly connections = new Map<string, McpConnection>();
  private readonly listeners = new Set<() => void>();
  private readonly reserved: ReadonlySet<string>;
  private specs = new Map<string, ToolSpec>();
  private problems: CatalogProblem[] = [];
  private closed = false;
  private version = 0;

  constructor(options: McpServerManagerOptions) {
    this.reserved = new Set(options.reservedAliases ?? []);
    for (const spec of options.servers) {
      this.connections.set(
        spec.name,
        new McpConnection(spec, {
          workspaceRoot: options.workspaceRoot,
          secrets: options.secrets,
          onChange: (what) => this.changed(what),
        }),
      );
    }
  }

  /** Calls `listener` when a server's state, tools or stderr change. Returns the unsubscribe. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Starts every server that is not running (in parallel) and returns their tools as catalog
   * entries, with a problem for each server that failed and each tool that was dropped.
   */
  async listTools(): Promise<{ tools: ToolSpec[]; problems: CatalogProblem[] }> {
    if (this.closed) return { tools: [], problems: [] };
    const startProblems: CatalogProblem[] = [];
    await Promise.all(
      [...this.connections.values()].map(async (connection) => {
        try {
          await connection.listTools();
        } catch (error) {
          const message = errorMessage(error);
          startProblems.push(
            serverProblem(
              connection.spec,
              'error',
              message,
              'Fix the server entry in tools.yaml, then restart the server.',
            ),
          );
        }
      }),
    );
    this.rebuild();
    return { tools: [...this.specs.values()], problems: [...startProblems, ...this.problems] };
  }

  /** Grows each time the catalog entries are rebuilt. */
  get toolsVersion(): number {
    return this.version;
  }

  /** The catalog entries from the last listings (no server is started). */
  currentTools(): ToolSpec[] {
    return [...this.specs.values()];
  }

  statuses(): McpServerStatus[] {
    return [...this.connections.values()].map((connection) => ({
      name: connection.spec.name,
      transport: connection.spec.transport.type,
      state: connection.state,
      ...(connection.lastError !== undefined && { error: connection.lastError }),
      stderrTail: connection.stderrTail(),
      tools: [...this.specs.values()]
        .filter((spec) => spec.settings.kind === 'mcp' && spec.settings.server === connection.spec.name)
        .map((spec) => ({
          alias: spec.alias,
          name: spec.settings.kind === 'mcp' ? spec.settings.tool : spec.alias,
          description: spec.description,
          inputSchema: spec.parameters,
          ...(spec.outputSchema && { outputSchema: spec.outputSchema }),
        })),
    }));
  }

  async callTool(
    server: string,
    tool: string,
    args: JsonObject,
    signal: AbortSignal,
    timeoutMs: number,
  ): Promise<string> {
    const connection = this.connections.get(server);
    if (!connection) throw new ToolFailure(`MCP server "${server}" is not in tools.yaml`);
    if (this.closed) throw new ToolFailure(`MCP server "${server}" was stopped: the workspace was closed`);
    const structured = [...this.specs.values()].some(
      (spec) =>
        spec.settings.kind === 'mcp' &&
        spec.settings.server === server &&
        spec.settings.tool === tool &&
        spec.outputSchema,
    );
    return connection.callTool(tool, args, signal, timeoutMs, structured);
  }

  async restart(server: string): Promise<void> {
    await this.connection(server).restart();
  }

  async stop(server: string): Promise<void> {
    await this.connection(server).stop();
  }

  /** Stops every server and its process tree. Later calls fail; listing returns nothing. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.connections.values()].map((connection) => connection.stop()));
    this.listeners.clear();
  }

  private connection(server: string): McpConnection {
    const connection = this.connections.get(server);
    if (!connection) throw new Error(`MCP server "${server}" is not in tools.yaml`);
    return connection;
  }

  /** Rebuilds the catalog entries from every server's last listing. */
  private rebuild(): void {
    const compiler = new UserSchemaCompiler();
    const taken = new Map<string, string>([...this.reserved].map((alias) => [alias, `tool "${alias}" of the catalog`]));
    const specs = new Map<string, ToolSpec>();
    const problems: CatalogProblem[] = [];
    for (const connection of this.connections.values()) {
      if (connection.tools === undefined) continue;
      const built = mcpToolSpecs(connection.spec, connection.tools, compiler, taken, connection.listedCount);
      for (const spec of built.tools) specs.set(spec.alias, spec);
      for (const message of connection.invalidTools)
        problems.push(
          serverProblem(
            connection.spec,
            'error',
            `MCP server "${connection.spec.name}": ${message}`,
            'Fix the tool on the server; its other tools are loaded.',
          ),
        );
      problems.push(...built.problems);
    }
    this.specs = specs;
    this.problems = problems;
    this.version += 1;
  }

  private changed(what: 'tools' | 'stderr'): void {
    if (what === 'tools') this.rebuild();
    for (const listener of this.listeners) listener();
  }
}
