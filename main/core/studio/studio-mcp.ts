/**
 * The open workspace's MCP servers in the studio: one manager per workspace (replaced when
 * tools.yaml changes its server list), shared by its runs, listed, restarted and stopped on
 * request, with `mcp-changed` pushed (coalesced) when a server's state or tools change; and, as
 * its two parts, what the servers ask the person (studio-mcp-person.ts) and what the explorer
 * shows of them beyond their tools (studio-mcp-browse.ts).
 */
import type { ContractEventName, ContractEventPayload } from '../../../common/contract.js';
import type { McpServersInfo } from '../../../common/studio-schemas.js';
import type { CatalogProblem } from '../catalog/catalog-problem.js';
import type { Workspace } from '../catalog/workspace.js';
import type { SecretStore } from '../credentials/secret-store.js';
import { McpServerManager } from '../mcp/mcp-manager.js';
import { StudioMcpBrowse, type BrowsedServer } from './studio-mcp-browse.js';
import { StudioMcpPerson } from './studio-mcp-person.js';
import { checkedOpener } from './open-external.js';
import type { PersonDialogs } from './person-dialogs.js';
import { ContractError } from './contract-error.js';
import { toToolInfo } from './studio-views.js';
import { scopedSecretUses, scopeWorkspaceSecrets, WorkspaceSecretStore } from '../trust/secret-scope.js';

/** What the MCP part needs from the studio service. */
export interface StudioMcpHost {
  secrets: SecretStore;
  emit: <E extends ContractEventName>(event: E, payload: ContractEventPayload<E>) => void;
  /** The open workspace, if any. */
  workspace(): Workspace | undefined;
  /** The open workspace; refuses when none is. */
  requireWorkspace(): Workspace;
  /** Pushes `workspace-changed` for `ws` (its tools now include the MCP servers' new ones). */
  workspaceChanged(ws: Workspace): void;
  /** Judges the open workspace's trust again just before one of its servers may start (see StudioService). */
  judgeAgain(ws: Workspace): Promise<void>;
  /** Main's own dialogs, each paid for by the person's press. */
  dialogs: PersonDialogs;
  /** Opens a URL in the person's system browser (Electron's shell.openExternal); absent where the host cannot. */
  openExternal?: ((url: string) => Promise<void>) | undefined;
}

export class StudioMcp {
  /** The open workspace's MCP servers: one manager per workspace, shared by its runs. */
  private mcp: { manager: McpServerManager; key: string; problems: CatalogProblem[] } | undefined;
  private mcpEmitScheduled = false;
  /** The servers' questions waiting for the person, across runs. */
  readonly person: StudioMcpPerson;
  /** The servers' resources, prompts and sign-in. */
  readonly browse: StudioMcpBrowse;

  constructor(private readonly host: StudioMcpHost) {
    // Only URLs open-external.ts allows reach the system browser.
    const openExternal = host.openExternal && checkedOpener(host.openExternal);
    this.person = new StudioMcpPerson({ emit: host.emit, openExternal });
    this.browse = new StudioMcpBrowse({
      emit: host.emit,
      server: (name) => this.server(name),
      openExternal,
      dialogs: host.dialogs,
    });
  }

  /** The open workspace's MCP manager, when it has MCP servers. */
  get manager(): McpServerManager | undefined {
    return this.mcp?.manager;
  }

  /** The MCP servers with status and tools; lists (and so starts) every server not running. */
  async list(): Promise<McpServersInfo> {
    await this.host.judgeAgain(this.host.requireWorkspace());
    return this.listed();
  }

  private async listed(): Promise<McpServersInfo> {
    const workspace = this.host.requireWorkspace();
    const mcp = this.mcp;
    if (!mcp && (workspace.mcpServers?.length ?? 0) > 0)
      throw new ContractError(
        'workspace-restricted',
        `this workspace is restricted (not trusted): its MCP servers start only once you trust it. Open Trust, read what it would run, and trust it`,
      );
    if (!mcp) return { servers: [], problems: [] };
    mcp.problems = (await mcp.manager.listTools()).problems;
    return this.describe();
  }

  async restart(server: string): Promise<McpServersInfo> {
    await this.host.judgeAgain(this.host.requireWorkspace());
    await this.requireMcp(server)
      .restart(server)
      .catch(() => undefined);
    return this.listed();
  }

  async stop(server: string): Promise<McpServersInfo> {
    await this.requireMcp(server).stop(server);
    return this.describe();
  }

  /** Server `name` of the open workspace, for the explorer's requests (see studio-mcp-browse.ts). */
  server(name: string): BrowsedServer {
    const workspace = this.host.requireWorkspace();
    const spec = (workspace.mcpServers ?? []).find((server) => server.name === name);
    if (spec && !this.mcp)
      throw new ContractError(
        'workspace-restricted',
        `this workspace is restricted (not trusted): MCP server "${name}" starts only once you trust it`,
      );
    const manager = this.requireMcp(name);
    if (!spec) throw new ContractError('not-found', `no MCP server "${name}" in tools.yaml`);
    return { manager, spec, root: workspace.root };
  }

  private requireMcp(server: string): McpServerManager {
    const manager = this.mcp?.manager;
    if (!manager || !manager.statuses().some((status) => status.name === server))
      throw new ContractError('not-found', `no MCP server "${server}" in tools.yaml`);
    return manager;
  }

  /** The MCP servers as they are, starting none (refused without a workspace). */
  status(): McpServersInfo {
    this.host.requireWorkspace();
    return this.describe();
  }

  describe(): McpServersInfo {
    const mcp = this.mcp;
    if (!mcp) return { servers: [], problems: [] };
    return { servers: mcp.manager.statuses(), problems: mcp.problems };
  }

  /**
   * Keeps one MCP manager per workspace; a changed server list in tools.yaml replaces it, and a
   * workspace that is not trusted has none (its servers stop). Nothing is started here: a server
   * starts when a run or a tool trial needs it, or when the person lists the servers.
   */
  sync(ws: Workspace, trusted: boolean): void {
    const servers = ws.mcpServers ?? [];
    const key = JSON.stringify([ws.root, trusted, servers.map(({ location: _location, ...spec }) => spec)]);
    if (this.mcp?.key === key) return;
    const old = this.mcp;
    void old?.manager.close();
    // A sign-in waiting on the old manager stops.
    if (old) this.browse.close();
    this.mcp = undefined;
    if (old) this.host.emit('mcp-changed', this.describe());
    if (servers.length === 0 || !trusted) return;
    // Secrets come from the workspace's own keychain namespace (see main/core/trust/secret-scope.ts).
    const manager = new McpServerManager({
      workspaceRoot: ws.root,
      servers: scopeWorkspaceSecrets(ws).mcpServers ?? [],
      secrets: new WorkspaceSecretStore(this.host.secrets, ws.root, scopedSecretUses(ws)),
      reservedAliases: ws.tools.list().map((tool) => tool.alias),
      // Sign-ins are the person's, in the keychain itself (by resource and issuer, not per workspace).
      keychain: this.host.secrets,
      surface: 'studio',
    });
    this.mcp = { manager, key, problems: [] };
    manager.onListChanged((change) => {
      if (this.mcp?.manager === manager) this.browse.listChanged(change);
    });
    // Coalesced: a server flooding stderr cannot flood the renderer.
    let shownTools = '[]';
    manager.onChange(() => {
      if (this.mcpEmitScheduled) return;
      this.mcpEmitScheduled = true;
      setTimeout(() => {
        this.mcpEmitScheduled = false;
        if (this.mcp?.manager !== manager) return;
        this.host.emit('mcp-changed', this.describe());
        // Newly listed (or dropped) MCP tools join the workspace's tools.
        const listed = JSON.stringify(manager.currentTools().map((tool) => toToolInfo(tool)));
        const workspace = this.host.workspace();
        if (listed === shownTools || !workspace) return;
        shownTools = listed;
        this.host.workspaceChanged(workspace);
      }, 100).unref();
    });
  }

  /** Stops the servers; for app shutdown. */
  async close(): Promise<void> {
    await this.mcp?.manager.close();
    this.mcp = undefined;
  }
}
