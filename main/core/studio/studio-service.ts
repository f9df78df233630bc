import { cpSync, existsSync, lstatSync, readdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ContractEventName, ContractEventPayload } from '../../../common/contract.js';
import type { RunEvent } from '../../../common/run-events.js';
import type { JsonObject } from '../../../common/json.js';
import type {
  AgentTemplate,
  ArgumentsVerdict,
  CatalogFile,
  CatalogProblemInfo,
  ForkRequest,
  RunComparison,
  KeyStatus,
  WorkspaceSecretStatus,
  McpServersInfo,
  PendingApproval,
  StudioDecision,
  TranscriptPage,
  WorkspaceState,
} from '../../../common/studio-schemas.js';
import type { PendingCall } from '../approval/approver.js';
import { PendingApprovals, QueueApprover } from '../approval/pending-approvals.js';
import { writeFileAtomic } from '../catalog/atomic-write.js';
import { writeCatalogFile } from '../catalog/catalog-edit.js';
import { watchWorkspace } from '../catalog/watch-workspace.js';
import { buildWorkspace, loadWorkspace, readCatalogTexts, RUNS_DIR, type Workspace } from '../catalog/workspace.js';
import { SecretStoreUnavailableError, type SecretStore } from '../credentials/secret-store.js';
import { workspaceSecrets } from '../catalog/workspace-secrets.js';
import { PROVIDER_PRESETS } from '../providers/presets.js';
import { ForkError, prepareRun, RunSetupError } from '../run/prepare-run.js';
import { McpServerManager } from '../mcp/mcp-manager.js';
import type { ToolSpec } from '../tools/tool-spec.js';
import type { CatalogProblem } from '../catalog/catalog-problem.js';
import type { Run } from '../run/run.js';
import { WorkerPool } from '../run/worker-pool.js';
import { copyRegularFile, FileReadError, readRegularFileText } from '../files/regular-file.js';
import { TranscriptError } from '../transcript/transcript-reader.js';
import { readTranscriptPage, TranscriptGoneError } from '../transcript/transcript-pages.js';
import { compareTranscripts, comparisonHeader, listRuns } from '../transcript/run-history.js';
import { errorMessage } from '../../../common/error-message.js';
import { ContractError } from './contract-error.js';
import {
  createAgent,
  deleteAgent,
  inAgentFilesQueue,
  renameAgent,
  saveAgentAs,
  type AgentFileResult,
  type AgentFilesContext,
} from './agent-files.js';
import { checkArguments, requireValidTrialArguments, TOOL_TRIAL_SCRIPT, trialScriptName } from './tool-trial.js';
import { ToolCatalogImpl } from '../catalog/tool-catalog.js';
import { isInside } from '../tools/workspace-path.js';
import { RECORDINGS_DIR, recordingPathFor } from '../catalog/recording-path.js';

/** Largest workspace file the studio opens in an editor. */
const MAX_WORKSPACE_FILE_BYTES = 16 << 20;

/**
 * A keychain entry the studio may write: a provider id (bare, or `{ provider }`), or
 * `{ secret }`, a secret the open workspace's tools.yaml names.
 */
export type KeyTarget = string | { provider: string } | { secret: string };

/** What the studio service needs from its host (the Electron glue, or the e2e test bridge). */
export interface StudioServiceOptions {
  /** The per-user data folder; the example workspace is copied under it. */
  userDataDirectory: string;
  /** The shipped example workspace (agents, tools, recordings). */
  examplesDirectory: string;
  /** The OS keychain. */
  secrets: SecretStore;
  /** Pushes a contract event to the renderer. */
  emit: <E extends ContractEventName>(event: E, payload: ContractEventPayload<E>) => void;
  /** Shows the OS folder picker; `null` when cancelled. */
  chooseFolder?: () => Promise<string | null>;
  /** Shows the OS save dialog suggesting `suggestedName`; the chosen absolute path, `null` when cancelled. */
  chooseSaveFile?: (suggestedName: string) => Promise<string | null>;
  /** Lua workers shared with others; whoever made it closes it. Default: a pool of 2 of the service's own, closed by close(). */
  pool?: WorkerPool;
}

/**
 * The studio's state in the main process: the open workspace (watched for external edits), the
 * runs in progress, the queue of calls waiting for a person, and the keychain. Every contract
 * handler is a thin call into this class; it never imports Electron.
 */
export class StudioService {
  private workspace: Workspace | undefined;
  private stopWatching: (() => void) | undefined;
  private readonly runs = new Map<string, Run>();
  private readonly pending: PendingApprovals;
  private readonly pool: WorkerPool;
  /** The open workspace's MCP servers: one manager per workspace, shared by its runs. */
  private mcp: { manager: McpServerManager; key: string; problems: CatalogProblem[] } | undefined;
  private mcpEmitScheduled = false;
  /** The workspace whose MCP servers the studio has listed (and so shows). */
  private mcpListedRoot: string | undefined;

  constructor(private readonly options: StudioServiceOptions) {
    this.pool = options.pool ?? new WorkerPool({ size: 2 });
    this.pool.prewarm();
    this.pending = new PendingApprovals({
      onEvent: (event) => {
        if (event.type === 'approval-pending')
          options.emit('approval-pending', toPendingApproval(event.pending, this.workspace, this.mcp?.manager));
        else options.emit('approval-resolved', { runId: event.request.runId, callId: event.request.callId });
      },
    });
  }

  /** The open workspace's folder, or null. */
  get workspaceRoot(): string | null {
    return this.workspace?.root ?? null;
  }

  async chooseFolder(): Promise<string | null> {
    if (!this.options.chooseFolder) throw new ContractError('not-supported', 'this host cannot show a folder picker');
    return this.options.chooseFolder();
  }

  async openWorkspace(dir: string): Promise<WorkspaceState> {
    if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory())
      throw new ContractError('not-found', `no folder at ${dir}`);
    this.workspace = await loadWorkspace(dir);
    this.syncMcp(this.workspace);
    this.stopWatching?.();
    this.stopWatching = watchWorkspace(this.workspace.root, ({ workspace }) => {
      this.workspace = workspace;
      this.syncMcp(workspace);
      this.options.emit('workspace-changed', this.describe(workspace));
    });
    return this.describe(this.workspace);
  }

  /** Copies the shipped examples into the data folder once (keeping the person's edits), then opens them. */
  async openExample(): Promise<WorkspaceState> {
    const target = path.join(this.options.userDataDirectory, 'example-workspace');
    if (!existsSync(target)) {
      cpSync(this.options.examplesDirectory, target, {
        recursive: true,
        filter: (source) =>
          path.basename(source) !== RUNS_DIR || path.dirname(source) !== this.options.examplesDirectory,
      });
    }
    return this.openWorkspace(target);
  }

  state(): WorkspaceState | null {
    return this.workspace ? this.describe(this.workspace) : null;
  }

  async readFile(relative: string): Promise<{ text: string }> {
    const file = this.resolve(relative);
    try {
      return { text: await readRegularFileText(file, MAX_WORKSPACE_FILE_BYTES, 'file', relative) };
    } catch (error) {
      throw new ContractError('not-found', error instanceof FileReadError ? error.message : `${relative}: cannot read`);
    }
  }

  async writeScript(relative: string, text: string): Promise<{ saved: true }> {
    if (!relative.endsWith('.lua'))
      throw new ContractError(
        'not-a-script',
        `${relative}: only agent scripts (*.lua) are saved here; catalogs go through catalog:write`,
      );
    const ws = this.requireWorkspace();
    // In the same queue as create, save as, rename and delete: a save sent while the agent is being
    // renamed or deleted runs after that, never half-way through it.
    await inAgentFilesQueue(ws.root, () => writeFileAtomic(this.resolve(relative), text));
    await this.refresh();
    return { saved: true };
  }

  async checkCatalog(file: CatalogFile, text: string): Promise<{ problems: CatalogProblemInfo[] }> {
    const ws = this.requireWorkspace();
    const texts = await readCatalogTexts(ws.root);
    texts[file] = text;
    return { problems: buildWorkspace(ws.root, texts).problems.filter((p) => p.file === file) };
  }

  async writeCatalog(file: CatalogFile, text: string): Promise<{ saved: boolean; problems: CatalogProblemInfo[] }> {
    const ws = this.requireWorkspace();
    const result = await writeCatalogFile(ws.root, file, text);
    if (result.ok) await this.refresh();
    return { saved: result.ok, problems: result.problems };
  }

  async startRun(request: {
    script: string;
    text?: string;
    model?: string;
    replay?: string;
    cpuLimitSeconds?: number;
    memoryLimitMiB?: number;
    timeoutSeconds?: number;
  }): Promise<{ runId: string }> {
    const ws = this.requireWorkspace();
    const run = await prepareRun({
      ...this.runBasics(ws),
      scriptFile: this.resolve(request.script),
      ...(request.text !== undefined && { scriptText: request.text }),
      ...(request.model && { model: request.model }),
      ...(request.replay && { replayPath: this.resolve(request.replay) }),
      limits: {
        ...(request.cpuLimitSeconds !== undefined && { cpuMs: request.cpuLimitSeconds * 1000 }),
        ...(request.memoryLimitMiB !== undefined && { memoryBytes: request.memoryLimitMiB * 1024 * 1024 }),
        ...(request.timeoutSeconds !== undefined && { wallMs: request.timeoutSeconds * 1000 }),
      },
    });
    return this.launch(run);
  }

  /** What every run the studio starts shares: workers, the approval queue, keys, MCP servers, events. */
  private runBasics(ws: Workspace) {
    return {
      workspace: ws,
      pool: this.pool,
      approver: new QueueApprover(this.pending, 'studio'),
      secrets: this.options.secrets,
      ...(this.mcp && { mcp: this.mcp.manager }),
      onEvent: (event: RunEvent) => this.options.emit('run-event', event),
    };
  }

  /** Tracks a prepared run until it ends, starts it, and returns its id. */
  private async launch(run: Run): Promise<{ runId: string }> {
    this.runs.set(run.id, run);
    // Not running from its run-end on: the renderer may rename or delete the agent at once.
    run.onEvent((event) => {
      if (event.type === 'run-end') this.runs.delete(run.id);
    });
    void run.done.then(() => {
      this.runs.delete(run.id);
      // The finished run now shows in the history list.
      if (this.workspace) this.options.emit('workspace-changed', this.describe(this.workspace));
    });
    await run.start();
    // Its transcript now starts with run-start: the Runs list shows it as running at once.
    if (this.workspace && this.runs.has(run.id)) this.options.emit('workspace-changed', this.describe(this.workspace));
    return { runId: run.id };
  }

  /**
   * Forks a run at a step (docs/host-api.md#forks): a new run of the parent's script, answered
   * from the parent's transcript up to the step, then live with `model` or on replay.
   */
  async forkRun(request: ForkRequest): Promise<{ runId: string }> {
    const ws = this.requireWorkspace();
    const transcript = this.transcriptFile(request.runId);
    const shown = path.posix.join(RUNS_DIR, `${request.runId}.jsonl`);
    let script: string;
    try {
      const first = readTranscriptPage(transcript, 0, 1, shown).events[0];
      if (first?.type !== 'run-start')
        throw new ContractError('transcript-unreadable', `${shown}:1: the transcript does not begin with a run-start`);
      if (first.toolTrial)
        throw new ContractError(
          'run-setup',
          `run ${request.runId} is a trial of the tool "${first.toolTrial.alias}", which has no script to fork; try the tool again from the explorer, with the arguments you want`,
        );
      script = first.script.path;
      if (script === '') throw new ContractError('transcript-unreadable', `${shown}:1: the run-start names no script`);
    } catch (error) {
      throw transcriptContractError(error);
    }
    if (path.isAbsolute(script) || script.split(/[\\/]/).includes('..'))
      throw new ContractError(
        'outside-workspace',
        `run ${request.runId} ran ${script}, which is outside this workspace; fork it with the CLI (promptforge run FILE --replay ${shown} --fork-at ${request.step})`,
      );
    let run: Run;
    try {
      run = await prepareRun({
        ...this.runBasics(ws),
        scriptFile: this.resolve(script),
        replayPath: transcript,
        fork: {
          step: request.step,
          ...(request.edit && { edit: request.edit }),
          force: request.force ?? false,
          transcriptName: shown,
        },
        ...(request.model && { model: request.model }),
      });
    } catch (error) {
      if (error instanceof ForkError) throw new ContractError(error.code, error.message);
      if (error instanceof RunSetupError) throw new ContractError('run-setup', error.message);
      throw transcriptContractError(error);
    }
    return this.launch(run);
  }

  /** Creates `agents/<name>.lua` from a template. */
  async createAgent(name: string, template?: AgentTemplate): Promise<AgentFileResult> {
    return this.afterFileChange(createAgent(this.agentFiles(), name, template));
  }

  /** Writes the editor's text as a new agent. */
  async saveAgentAs(name: string, text: string): Promise<AgentFileResult> {
    return this.afterFileChange(saveAgentAs(this.agentFiles(), name, text));
  }

  /** Renames an agent and its recording; refused while it runs. */
  async renameAgent(agent: string, name: string): Promise<AgentFileResult> {
    return this.afterFileChange(renameAgent(this.agentFiles(), agent, name));
  }

  /** Deletes an agent and its recording; refused while it runs. */
  async deleteAgent(agent: string): Promise<{ deleted: true; recording: string | null }> {
    return this.afterFileChange(deleteAgent(this.agentFiles(), agent));
  }

  /**
   * The core's verdict on arguments for a tool: the validator of that run's dispatcher when
   * `runId` names a live run (an approval card), else of the open workspace's catalog.
   */
  async checkToolArguments(alias: string, args: unknown, runId?: string): Promise<ArgumentsVerdict> {
    const run = runId === undefined ? undefined : this.runs.get(runId);
    return checkArguments(run ? run.catalog : await this.liveCatalog(alias), alias, args);
  }

  /**
   * Tries one call of a catalog tool as a recorded run (see tool-trial.ts). Arguments that fail
   * the tool's schema are refused before the run starts.
   */
  async tryTool(alias: string, args: JsonObject): Promise<{ runId: string }> {
    const ws = this.requireWorkspace();
    requireValidTrialArguments(await this.liveCatalog(alias), alias, args);
    const run = await prepareRun({
      ...this.runBasics(ws),
      scriptFile: path.join(ws.root, trialScriptName(alias)),
      scriptText: TOOL_TRIAL_SCRIPT,
      input: { alias, arguments: args },
      toolTrial: { alias },
    });
    return this.launch(run);
  }

  /** The workspace's tools and the MCP servers' (listed first when `alias` is not among them yet). */
  private async liveCatalog(alias: string): Promise<ToolCatalogImpl> {
    const ws = this.requireWorkspace();
    const mcp = this.mcp?.manager;
    if (!mcp) return ws.tools;
    if (!ws.tools.get(alias) && !mcp.currentTools().some((tool) => tool.alias === alias)) {
      await mcp.listTools();
      // Still missing, and named like a tool of a server that is not ready: say why, not "no such tool".
      const spec = (ws.mcpServers ?? []).find((server) => server.prefix !== '' && alias.startsWith(server.prefix));
      const status = spec && mcp.statuses().find((server) => server.name === spec.name);
      if (status && status.state !== 'ready' && !mcp.currentTools().some((tool) => tool.alias === alias))
        throw new ContractError(
          'unknown-tool',
          `"${alias}" would come from MCP server "${status.name}", which is ${status.state}${status.error ? `: ${status.error}` : ''}. Fix the server's entry in tools.yaml (its stderr is in the explorer), then restart it.`,
        );
    }
    return new ToolCatalogImpl([...ws.tools.list(), ...mcp.currentTools()]);
  }

  private agentFiles(): AgentFilesContext {
    const ws = this.requireWorkspace();
    return {
      root: ws.root,
      agents: ws.agents,
      isRunning: (agent) => [...this.runs.values()].some((run) => run.scriptPath === agent),
    };
  }

  private async afterFileChange<T>(change: Promise<T>): Promise<T> {
    const result = await change;
    await this.refresh();
    return result;
  }

  stopRun(runId: string): { stopped: boolean } {
    const run = this.runs.get(runId);
    if (!run) return { stopped: false };
    run.stop('stopped from the studio');
    return { stopped: true };
  }

  listApprovals(): PendingApproval[] {
    return this.pending.list().map((call) => toPendingApproval(call, this.workspace, this.mcp?.manager));
  }

  decide(runId: string, callId: string, decision: StudioDecision): { ok: true } {
    const result = this.pending.resolve(callId, decision, runId);
    if (!result.ok) throw new ContractError('approval-rejected', result.error);
    return { ok: true };
  }

  async keyStatus(): Promise<{
    available: boolean;
    error: string | null;
    keys: KeyStatus[];
    secrets: WorkspaceSecretStatus[];
  }> {
    const keys: KeyStatus[] = [];
    const secrets: WorkspaceSecretStatus[] = [];
    try {
      for (const [provider, preset] of Object.entries(PROVIDER_PRESETS)) {
        keys.push({
          provider,
          label: preset.label,
          set: await this.options.secrets.has(provider),
          needsKey: preset.needsKey,
          envVar: preset.keyEnvVar ?? null,
        });
      }
      for (const [name, usedBy] of workspaceSecrets(this.workspace))
        secrets.push({ name, usedBy, set: await this.options.secrets.has(name) });
      return { available: true, error: null, keys, secrets };
    } catch (error) {
      if (error instanceof SecretStoreUnavailableError)
        return { available: false, error: error.message, keys: [], secrets: [] };
      throw error;
    }
  }

  /**
   * Stores a provider key, or a secret the open workspace's tools.yaml names, in the keychain
   * entry `promptforge keys set NAME` uses. Never returns or logs the value.
   */
  async setKey(target: KeyTarget, key: string): Promise<{ replaced: boolean }> {
    const name = this.keychainName(target);
    const replaced = await this.options.secrets.has(name);
    await this.options.secrets.set(name, key.trim());
    return { replaced };
  }

  async deleteKey(target: KeyTarget): Promise<{ deleted: boolean }> {
    return { deleted: await this.options.secrets.delete(this.keychainName(target)) };
  }

  /**
   * Saves a copy of a run's transcript where the person chooses (the save dialog suggests
   * `<runId>.jsonl`), copied as a stream so a run of any size exports. `path` is where it went;
   * `null` when the person cancelled.
   */
  async exportRun(runId: string): Promise<{ path: string | null }> {
    const file = this.transcriptFile(runId);
    if (!this.options.chooseSaveFile) throw new ContractError('not-supported', 'this host cannot show a save dialog');
    const target = await this.options.chooseSaveFile(`${runId}.jsonl`);
    if (target === null) return { path: null };
    if (!path.isAbsolute(target)) throw new ContractError('export-failed', `${target}: not an absolute path`);
    try {
      await copyRegularFile(file, target, 'transcript', path.posix.join(RUNS_DIR, `${runId}.jsonl`));
    } catch (error) {
      if (error instanceof FileReadError) throw new ContractError('not-found', error.message);
      throw new ContractError('export-failed', errorMessage(error));
    }
    return { path: target };
  }

  /** A window of a run's transcript, read by byte range (see {@link readTranscriptPage}). */
  readPage(runId: string, from: number, count: number): TranscriptPage {
    const file = this.transcriptFile(runId);
    try {
      return readTranscriptPage(file, from, count, path.posix.join(RUNS_DIR, `${runId}.jsonl`));
    } catch (error) {
      throw transcriptContractError(error);
    }
  }

  /** Two runs compared as streams, only as far as the window asked for needs. */
  compare(left: string, right: string, window: { from?: number; count?: number } = {}): RunComparison {
    const l = { file: this.transcriptFile(left), shown: path.posix.join(RUNS_DIR, `${left}.jsonl`), runId: left };
    const r = { file: this.transcriptFile(right), shown: path.posix.join(RUNS_DIR, `${right}.jsonl`), runId: right };
    try {
      return { ...compareTranscripts(l, r, window), ...comparisonHeader(l, r) };
    } catch (error) {
      throw transcriptContractError(error);
    }
  }

  /** The MCP servers with status and tools; lists (and so starts) every server not running. */
  async listMcp(): Promise<McpServersInfo> {
    this.requireWorkspace();
    this.mcpListedRoot = this.workspace?.root;
    const mcp = this.mcp;
    if (!mcp) return { servers: [], problems: [] };
    mcp.problems = (await mcp.manager.listTools()).problems;
    return this.describeMcp();
  }

  async restartMcp(server: string): Promise<McpServersInfo> {
    await this.requireMcp(server)
      .restart(server)
      .catch(() => undefined);
    return this.listMcp();
  }

  async stopMcp(server: string): Promise<McpServersInfo> {
    await this.requireMcp(server).stop(server);
    return this.describeMcp();
  }

  private requireMcp(server: string): McpServerManager {
    const manager = this.mcp?.manager;
    if (!manager || !manager.statuses().some((status) => status.name === server))
      throw new ContractError('not-found', `no MCP server "${server}" in tools.yaml`);
    return manager;
  }

  private describeMcp(): McpServersInfo {
    const mcp = this.mcp;
    if (!mcp) return { servers: [], problems: [] };
    return { servers: mcp.manager.statuses(), problems: mcp.problems };
  }

  /** Keeps one MCP manager per workspace; a changed server list in tools.yaml replaces it. */
  private syncMcp(ws: Workspace): void {
    const servers = ws.mcpServers ?? [];
    const key = JSON.stringify([ws.root, servers.map(({ location: _location, ...spec }) => spec)]);
    if (this.mcp?.key === key) return;
    void this.mcp?.manager.close();
    this.mcp = undefined;
    // tools.yaml changed under a shown server list: list the new servers (starting them) and say so.
    if (this.mcpListedRoot === ws.root)
      queueMicrotask(() => {
        if (this.workspace !== ws) return;
        this.listMcp().then(
          (info) => this.options.emit('mcp-changed', info),
          () => undefined,
        );
      });
    if (servers.length === 0) return;
    const manager = new McpServerManager({
      workspaceRoot: ws.root,
      servers,
      secrets: this.options.secrets,
      reservedAliases: ws.tools.list().map((tool) => tool.alias),
    });
    this.mcp = { manager, key, problems: [] };
    // Coalesced: a server flooding stderr cannot flood the renderer.
    let shownTools = '[]';
    manager.onChange(() => {
      if (this.mcpEmitScheduled) return;
      this.mcpEmitScheduled = true;
      setTimeout(() => {
        this.mcpEmitScheduled = false;
        if (this.mcp?.manager !== manager) return;
        this.options.emit('mcp-changed', this.describeMcp());
        // Newly listed (or dropped) MCP tools join the workspace's tools.
        const listed = JSON.stringify(manager.currentTools().map(toToolInfo));
        if (listed === shownTools || !this.workspace) return;
        shownTools = listed;
        this.options.emit('workspace-changed', this.describe(this.workspace));
      }, 100).unref();
    });
  }

  /** Stops every run and the watcher; for app shutdown. */
  async close(): Promise<void> {
    for (const run of this.runs.values()) run.stop('the studio is closing');
    await Promise.all([...this.runs.values()].map((run) => run.done));
    await this.mcp?.manager.close();
    this.mcp = undefined;
    this.stopWatching?.();
    if (!this.options.pool) await this.pool.close();
  }

  private async refresh(): Promise<void> {
    if (!this.workspace) return;
    this.workspace = await loadWorkspace(this.workspace.root);
    this.options.emit('workspace-changed', this.describe(this.workspace));
  }

  private requireWorkspace(): Workspace {
    if (!this.workspace) throw new ContractError('no-workspace', 'open a workspace first');
    return this.workspace;
  }

  /** The keychain account of a provider id or of a secret the workspace names; refuses anything else. */
  private keychainName(target: KeyTarget): string {
    if (typeof target === 'string' || 'provider' in target) {
      const provider = typeof target === 'string' ? target : target.provider;
      if (!Object.hasOwn(PROVIDER_PRESETS, provider))
        throw new ContractError(
          'unknown-provider',
          `unknown provider "${provider}"; known: ${Object.keys(PROVIDER_PRESETS).join(', ')}`,
        );
      return provider;
    }
    const named = [...workspaceSecrets(this.workspace).keys()];
    if (!named.includes(target.secret))
      throw new ContractError(
        'unknown-secret',
        this.workspace === undefined
          ? `"${target.secret}" is not a secret named in tools.yaml: no workspace is open`
          : `"${target.secret}" is not a secret named in this workspace's tools.yaml; ` +
              (named.length > 0
                ? `it names: ${named.join(', ')}`
                : 'it names none (use `{ secret: NAME }` in a header or an MCP server env)'),
      );
    return target.secret;
  }

  /**
   * A workspace-relative path resolved inside the open workspace (the schema already refused `..`).
   * A folder or file on the way may be a symbolic link: the part of the path that exists is
   * followed to its real path, which must stay inside the workspace's real path too, so a link
   * never lets a read, a write or a run reach outside it. (A link whose target is missing is refused:
   * writing through it would create its target, wherever that is.)
   */
  private resolve(relative: string): string {
    const root = this.requireWorkspace().root;
    const file = path.resolve(root, relative);
    if (!file.startsWith(root + path.sep))
      throw new ContractError('outside-workspace', `${relative} is outside the workspace`);
    let existing = file;
    for (;;) {
      try {
        lstatSync(existing);
        break;
      } catch {
        existing = path.dirname(existing);
      }
    }
    let real: string;
    try {
      real = realpathSync(existing);
    } catch {
      throw new ContractError(
        'outside-workspace',
        `${relative} goes through a symbolic link whose target is missing; remove the link or point it inside the workspace`,
      );
    }
    if (!isInside(realpathSync(root), real))
      throw new ContractError(
        'outside-workspace',
        `${relative} leads outside the workspace through a symbolic link; open the linked folder as its own workspace, or copy the file in`,
      );
    return file;
  }

  private transcriptFile(runId: string): string {
    if (!/^[A-Za-z0-9._-]+$/.test(runId)) throw new ContractError('run-not-found', `no run "${runId}"`);
    const file = this.resolve(path.join(RUNS_DIR, `${runId}.jsonl`));
    if (!existsSync(file))
      throw new ContractError(
        'run-not-found',
        `no transcript for run "${runId}" in ${RUNS_DIR}/: it was never recorded here, or it was deleted or moved`,
      );
    return file;
  }

  private describe(ws: Workspace): WorkspaceState {
    const recordings: Record<string, string> = {};
    const recordingsDir = path.join(ws.root, RECORDINGS_DIR);
    const available = existsSync(recordingsDir) ? new Set(readdirSync(recordingsDir)) : new Set<string>();
    for (const agent of ws.agents) {
      const recording = recordingPathFor(agent);
      if (available.has(path.posix.basename(recording))) recordings[agent] = path.join(...recording.split('/'));
    }
    return {
      root: ws.root,
      name: path.basename(ws.root),
      agents: ws.agents,
      // The catalog's tools, then the MCP servers' tools as last listed (explorer tags, completion).
      tools: [...ws.tools.list(), ...(this.mcp?.manager.currentTools() ?? [])].map(toToolInfo),
      models: ws.models.list().map((model) => ({
        alias: model.alias,
        provider: model.provider,
        model: model.model,
        ...(model.price && { price: model.price }),
      })),
      defaultModel: ws.settings.defaultModel ?? null,
      // Transcripts the history skipped or could read only in part are reported with the rest.
      ...((problems) => ({ runs: listRuns(ws.root, RUNS_DIR, problems), problems }))([...ws.problems]),
      recordings,
    };
  }
}

/** One tool as the workspace description lists it. */
function toToolInfo(tool: ToolSpec): WorkspaceState['tools'][number] {
  return {
    alias: tool.alias,
    description: tool.description,
    kind: tool.settings.kind,
    trust: tool.trust,
    approval: tool.approval,
    taintCheck: tool.taintCheck,
    parameters: tool.parameters,
    structured: tool.outputSchema !== undefined,
    source: tool.source,
  };
}

/** A transcript read failure as a contract error: a vanished file is `run-not-found`. */
function transcriptContractError(error: unknown): unknown {
  if (error instanceof TranscriptGoneError) return new ContractError('run-not-found', error.message);
  if (error instanceof TranscriptError) return new ContractError('transcript-unreadable', error.message);
  return error;
}

function toPendingApproval(
  call: PendingCall,
  workspace: Workspace | undefined,
  mcp?: McpServerManager,
): PendingApproval {
  const { request } = call;
  return {
    runId: request.runId,
    callId: request.callId,
    alias: request.alias,
    description: request.description,
    arguments: request.arguments,
    parameters: workspace?.tools.get(request.alias)?.parameters ??
      mcp?.currentTools().find((tool) => tool.alias === request.alias)?.parameters ?? { type: 'object' },
    reason: call.reason,
    taint: request.taint,
    askedAt: call.askedAt,
    ...(call.rejectedEdit !== undefined && { rejectedEdit: call.rejectedEdit }),
    taintCheck: call.taintCheck,
  };
}
