import type { z } from 'zod';
import type { JsonObject } from '../../../common/json.js';
import type { McpServerStatusSchema } from '../../../common/studio-schemas.js';
import type { CatalogProblem } from '../catalog/catalog-problem.js';
import { UserSchemaCompiler } from '../catalog/catalog-schemas.js';
import type { SecretSource } from '../tools/http-runner.js';
import type { McpToolCaller } from '../tools/tool-runner.js';
import { ToolFailure, type ToolSpec, type ToolUnavailable } from '../tools/tool-spec.js';
import { McpConnection, type McpRequestOptions } from './mcp-connection.js';
import type { McpPromptEntry, McpResourceEntry } from '../../../common/mcp-person.js';
import type { SecretStore } from '../credentials/secret-store.js';
import type { Listed } from './mcp-resources.js';
import type { McpRunSession } from './mcp-session.js';
import type { McpLoginState, OAuthLoginPort } from './oauth/mcp-oauth.js';
import type { SignOutOutcome } from './oauth/oauth-revoke.js';
import type { McpServerSpec } from '../catalog/mcp-spec.js';
import { mcpToolSpecs, serverProblem } from './mcp-tools.js';
import { McpSecretList } from './mcp-secrets.js';
import { errorMessage } from '../../../common/error-message.js';
import type { Surface } from '../surface-words.js';

/** Catalog entries listed by MCP servers, with the problems of those servers. */
export interface McpListing {
  tools: ToolSpec[];
  /** Each server that failed to start, and each tool that was dropped, as a problem at the server's entry. */
  problems: CatalogProblem[];
}

/** What {@link McpServerManager.ensureFor} did for one alias. */
export interface McpEnsureResult extends McpListing {
  /** The servers that may own the alias (by prefix), in tools.yaml order; empty when none may. */
  servers: string[];
}

/** One server's catalog entries and problems, as made from one listing. */
interface BuiltListing {
  listed: readonly unknown[];
  /** The known secrets' version and the aliases taken before the server, when it was made. */
  key: string;
  tools: ToolSpec[];
  problems: CatalogProblem[];
}

/** The fix of a problem about a server that did not start. */
const START_FIX = 'Fix the server entry in tools.yaml, then restart the server.';

/**
 * What the studio and `promptforge mcp list` show about one server, as the contract carries it;
 * its stderr tail has the secrets the host knows redacted.
 */
export type McpServerStatus = z.infer<typeof McpServerStatusSchema>;

export interface McpServerManagerOptions {
  workspaceRoot: string;
  servers: readonly McpServerSpec[];
  /** The keychain, for `{ secret: NAME }` env values and headers. */
  secrets: SecretSource;
  /** Aliases of the workspace's other tools: an MCP tool with one of these names is dropped. */
  reservedAliases?: Iterable<string>;
  /** The OS keychain itself, where sign-ins to Streamable HTTP servers are kept (by resource and issuer). */
  keychain?: SecretStore;
  /** When set, a sign-in a server asks for mid-use happens at once with the person; else the use fails saying how to sign in. */
  login?: OAuthLoginPort;
  /** Bounds of sign-in requests and of the wait for the browser (tests shorten them). */
  oauthTimeouts?: { requestMs?: number; loginMs?: number };
  /** Where the person reads start failures: their advice names a command or a view (default `cli`). */
  surface?: Surface;
}

/** A change of a server's resources or prompts, for the studio's explorer. */
export interface McpListChange {
  server: string;
  what: 'resources' | 'prompts' | 'resource-updated';
  /** For `resource-updated`: the resource. */
  uri?: string;
}

/**
 * The MCP servers of one workspace (the studio keeps one per workspace, the CLI one per run). A
 * server starts when its tools are first listed or called, and `close()` stops every server with
 * its process tree. Implements the ToolRunner's {@link McpToolCaller}.
 *
 * Starting lazily: {@link ensureFor} starts only the servers that may own an alias (the run calls
 * it when a script first advertises or calls an alias it does not know), {@link listServer} one
 * server, {@link listTools} all of them (the person's explicit list). {@link serversFor} says,
 * without starting anything, which servers may own an alias.
 *
 * Secrets: everything it exposes (statuses, stderr tails, errors, problems, the tools' descriptions
 * and schemas) has the secrets the host knows redacted: the keychain values servers are started
 * with, and their secret-looking pass-through and literal values (see mcpPassThroughSecrets).
 */
export class McpServerManager implements McpToolCaller {
  private readonly connections = new Map<string, McpConnection>();
  private readonly listeners = new Set<() => void>();
  private readonly listListeners = new Set<(change: McpListChange) => void>();
  private readonly reserved: ReadonlySet<string>;
  private readonly secretList = new McpSecretList();
  private specs = new Map<string, ToolSpec>();
  /** The listing problems of each server (dropped tools), by server name. */
  private problems = new Map<string, CatalogProblem[]>();
  /** What the last rebuild made of each server's listing (see {@link rebuild}). */
  private built = new Map<string, BuiltListing>();
  private closed = false;
  private version = 0;

  constructor(options: McpServerManagerOptions) {
    this.reserved = new Set(options.reservedAliases ?? []);
    this.secretList.addServers(options.servers);
    for (const spec of options.servers) {
      this.connections.set(
        spec.name,
        new McpConnection(spec, {
          workspaceRoot: options.workspaceRoot,
          secrets: options.secrets,
          secretList: this.secretList,
          onChange: (what) => this.changed(what),
          onListChanged: (what, uri) => {
            for (const listener of this.listListeners)
              listener({ server: spec.name, what, ...(uri !== undefined && { uri }) });
          },
          ...(options.keychain && { keychain: options.keychain }),
          ...(options.login && { login: options.login }),
          ...(options.oauthTimeouts && { oauthTimeouts: options.oauthTimeouts }),
          ...(options.surface && { surface: options.surface }),
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
   * Calls `listener` when a server's resources or prompts change (its listing was refreshed after
   * `list_changed`, or it sent `resources/updated`). Returns the unsubscribe.
   */
  onListChanged(listener: (change: McpListChange) => void): () => void {
    this.listListeners.add(listener);
    return () => this.listListeners.delete(listener);
  }

  /** The resources and resource templates of server `name` (started when needed). */
  listResources(name: string): Promise<Listed<McpResourceEntry>> {
    return this.connection(name).listResources();
  }

  /** The prompts of server `name` (started when needed). */
  listPrompts(name: string): Promise<Listed<McpPromptEntry>> {
    return this.connection(name).listPrompts();
  }

  /** Reads resource `uri` of `server`; failures are ToolFailures, as a call's. */
  async readResource(server: string, uri: string, options: McpRequestOptions) {
    return this.live(server).readResource(uri, options);
  }

  /** Gets prompt `name` of `server`; failures are ToolFailures, as a call's. */
  async getPrompt(server: string, name: string, args: Record<string, string>, options: McpRequestOptions) {
    return this.live(server).getPrompt(name, args, options);
  }

  /** Signs in to server `name` with the person on `port`. Rejects with the reason it could not. */
  async login(
    name: string,
    port: OAuthLoginPort,
    options: { scopes?: string[]; signal?: AbortSignal } = {},
  ): Promise<McpLoginState> {
    const connection = this.connection(name);
    const state = await connection.login(port, options);
    // A server that failed for want of this very sign-in starts now (unless the manager closed
    // meanwhile): a run's lookup and the explorer then find its tools, not the failure it mended.
    if (!this.closed && connection.state === 'error' && connection.needsSignIn)
      void connection.ensureStarted().catch(() => undefined);
    return state;
  }

  /** Forgets the sign-in of server `name` (and stops it), and asks its authorization server to revoke the tokens. */
  logout(name: string): Promise<SignOutOutcome> {
    return this.connection(name).logout();
  }

  /** The sign-in of server `name`, never a token; undefined for a server that does not sign in. */
  loginState(name: string): Promise<McpLoginState | undefined> {
    return this.connection(name).loginState();
  }

  /** A connection calls may go to: refuses a name tools.yaml does not define and a closed manager, as ToolFailures. */
  private live(server: string): McpConnection {
    const connection = this.connections.get(server);
    if (!connection) throw new ToolFailure(`MCP server "${server}" is not in tools.yaml`);
    if (this.closed) throw new ToolFailure(`MCP server "${server}" was stopped: the workspace was closed`);
    return connection;
  }

  /**
   * Starts every server that is not running (in parallel) and returns their tools as catalog
   * entries, with a problem for each server that failed and each tool that was dropped.
   */
  async listTools(): Promise<McpListing> {
    return this.list([...this.connections.values()]);
  }

  /**
   * Starts the server `name` if it is not running (a failed one too, after its backoff) and returns
   * its tools and problems, as {@link listTools} does for all. Throws for a name tools.yaml does
   * not define.
   */
  async listServer(name: string): Promise<McpListing> {
    return this.list([this.connection(name)]);
  }

  /**
   * The servers that may own `alias`, without starting any: those whose prefix starts it (a server
   * with an empty prefix may own any alias), in tools.yaml order. None for an alias of the
   * workspace's other tools (`reservedAliases`), which no server can take.
   */
  serversFor(alias: string): string[] {
    if (this.reserved.has(alias)) return [];
    return [...this.connections.values()]
      .filter((connection) => alias.startsWith(connection.spec.prefix) && alias.length > connection.spec.prefix.length)
      .map((connection) => connection.spec.name);
  }

  /**
   * Makes sure every server that may own `alias` ({@link serversFor}) has listed its tools: one never
   * started is started now (in parallel) and listed; one starting is waited for; one that is ready,
   * failed, or was stopped is left as it is (a call still starts it again). Resolves when they are
   * settled, never rejects; a closed manager does nothing. The catalog entries are rebuilt before it
   * resolves, so {@link currentTools} (and an McpAwareCatalog) then hold the alias if a server
   * lists it. `tools` and `problems` are those of these servers (a failed start, dropped tools),
   * the same on each call until they change.
   */
  async ensureFor(alias: string): Promise<McpEnsureResult> {
    if (this.closed) return { servers: [], tools: [], problems: [] };
    const owners = this.serversFor(alias).map((name) => this.connection(name));
    await Promise.all(
      owners.map((connection) =>
        connection.attempted
          ? connection.settled()
          : connection.listTools().then(
              () => undefined,
              () => undefined,
            ),
      ),
    );
    const names = new Set(owners.map((connection) => connection.spec.name));
    return {
      servers: [...names],
      tools: this.currentTools().filter((spec) => spec.settings.kind === 'mcp' && names.has(spec.settings.server)),
      problems: owners.flatMap((connection) => [
        ...this.startProblem(connection),
        ...(this.problems.get(connection.spec.name) ?? []),
      ]),
    };
  }

  /**
   * Why `alias` may be missing from the catalog: the first server that may own it and failed to
   * start, in its own (redacted) words (the server's own part as `toolText`), and whether a sign-in
   * by the person is what it lacks.
   * Undefined when no such server failed. Starts nothing.
   */
  unavailable(alias: string): ToolUnavailable | undefined {
    for (const name of this.serversFor(alias)) {
      const connection = this.connection(name);
      if (connection.state !== 'error' || connection.lastError === undefined) continue;
      return {
        reason: connection.redact(connection.lastError),
        ...(connection.lastQuoted !== undefined && { toolText: connection.redact(connection.lastQuoted) }),
        ...(connection.needsSignIn && { signIn: connection.spec.name }),
      };
    }
    return undefined;
  }

  private async list(connections: McpConnection[]): Promise<McpListing> {
    if (this.closed) return { tools: [], problems: [] };
    const startProblems: CatalogProblem[] = [];
    await Promise.all(
      connections.map(async (connection) => {
        try {
          await connection.listTools();
        } catch (error) {
          startProblems.push(
            serverProblem(connection.spec, 'error', connection.redact(errorMessage(error)), START_FIX),
          );
        }
      }),
    );
    this.rebuild();
    const names = new Set(connections.map((connection) => connection.spec.name));
    return {
      tools: [...this.specs.values()].filter((spec) => spec.settings.kind === 'mcp' && names.has(spec.settings.server)),
      problems: [
        ...startProblems,
        ...connections.flatMap((connection) => this.problems.get(connection.spec.name) ?? []),
      ],
    };
  }

  /** The problem of a server whose last start failed, or none. */
  private startProblem(connection: McpConnection): CatalogProblem[] {
    if (connection.state !== 'error' || connection.lastError === undefined) return [];
    return [serverProblem(connection.spec, 'error', connection.lastError, START_FIX)];
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
      ...(connection.lastError !== undefined && { error: connection.redact(connection.lastError) }),
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
    session?: McpRunSession,
  ): Promise<string> {
    const connection = this.live(server);
    const structured = [...this.specs.values()].some(
      (spec) =>
        spec.settings.kind === 'mcp' &&
        spec.settings.server === server &&
        spec.settings.tool === tool &&
        spec.outputSchema,
    );
    return connection.callTool(tool, args, signal, timeoutMs, structured, session);
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
    this.listListeners.clear();
  }

  private connection(server: string): McpConnection {
    const connection = this.connections.get(server);
    if (!connection) throw new Error(`MCP server "${server}" is not in tools.yaml`);
    return connection;
  }

  /**
   * Rebuilds the catalog entries from every server's last listing, in tools.yaml order. A server
   * whose listing, aliases taken before it and known secrets are those of the last rebuild keeps
   * its entries (its schemas are not cleaned and compiled again).
   */
  private rebuild(): void {
    const compiler = new UserSchemaCompiler();
    const taken = new Map<string, string>([...this.reserved].map((alias) => [alias, `tool "${alias}" of the catalog`]));
    const specs = new Map<string, ToolSpec>();
    const problems = new Map<string, CatalogProblem[]>();
    const redact = (text: string) => this.secretList.redact(text);
    const built = new Map<string, BuiltListing>();
    for (const connection of this.connections.values()) {
      const listed = connection.tools;
      if (listed === undefined) continue;
      const key = `${this.secretList.version}\u0000${[...taken.keys()].join('\u0000')}`;
      const previous = this.built.get(connection.spec.name);
      let own: BuiltListing;
      if (previous && previous.listed === listed && previous.key === key) own = previous;
      else {
        const made = mcpToolSpecs(connection.spec, listed, compiler, new Map(taken), connection.listedCount, redact);
        const ownProblems: CatalogProblem[] = connection.invalidTools.map((message) =>
          serverProblem(
            connection.spec,
            'error',
            `MCP server "${connection.spec.name}": ${message}`,
            'Fix the tool on the server; its other tools are loaded.',
          ),
        );
        ownProblems.push(...made.problems);
        own = {
          listed,
          key,
          tools: made.tools,
          problems: ownProblems.map((problem) => ({
            ...problem,
            message: redact(problem.message),
            fix: redact(problem.fix),
          })),
        };
      }
      built.set(connection.spec.name, own);
      for (const spec of own.tools) {
        specs.set(spec.alias, spec);
        taken.set(spec.alias, `MCP server "${connection.spec.name}"`);
      }
      problems.set(connection.spec.name, own.problems);
    }
    this.built = built;
    this.specs = specs;
    this.problems = problems;
    this.version += 1;
  }

  private changed(what: 'tools' | 'stderr'): void {
    if (what === 'tools') this.rebuild();
    for (const listener of this.listeners) listener();
  }
}
