import { cpSync, existsSync, readdirSync, statSync } from 'node:fs';
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
import { PendingApprovals, QueueApprover } from '../approval/pending-approvals.js';
import { writeFileAtomic } from '../catalog/atomic-write.js';
import { writeCatalogFile } from '../catalog/catalog-edit.js';
import { watchWorkspace } from '../catalog/watch-workspace.js';
import {
  AGENTS_DIR,
  buildWorkspace,
  loadWorkspace,
  readCatalogTexts,
  RUNS_DIR,
  type Workspace,
} from '../catalog/workspace.js';
import { ForkError, prepareRun, RunSetupError } from '../run/prepare-run.js';
import type { Run } from '../run/run.js';
import { WorkerPool } from '../run/worker-pool.js';
import { FileReadError, readRegularFileText } from '../files/regular-file.js';
import { readTranscriptPage } from '../transcript/transcript-pages.js';
import { listRuns } from '../transcript/run-history.js';
import type { SecretStore } from '../credentials/secret-store.js';
import { ChosenFolders } from './chosen-folders.js';
import { oneQuestionAtATime } from './one-question.js';
import { ContractError } from './contract-error.js';
import { StudioHistory, transcriptContractError } from './studio-history.js';
import { StudioKeys, type KeyTarget } from './studio-keys.js';
import { StudioMcp } from './studio-mcp.js';
import { StudioTrust, type ConfirmWithPerson } from './studio-trust.js';
import { currentConfigDir } from '../trust/config-dir.js';
import type { TrustList, WorkspaceTrustInfo } from '../../../common/trust-schemas.js';
import { toPendingApproval, toToolInfo } from './studio-views.js';
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
import { checkInsideWorkspace } from '../tools/workspace-path.js';
import { RECORDINGS_DIR, recordingPathFor } from '../catalog/recording-path.js';

/** The files `file:write` saves: agent scripts, `agents/NAME.lua`. */
const AGENT_SCRIPT = new RegExp(`^${AGENTS_DIR}/[^/\\\\]+\\.lua$`);

/** Largest workspace file the studio opens in an editor. */
const MAX_WORKSPACE_FILE_BYTES = 16 << 20;

export type { KeyTarget } from './studio-keys.js';

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
  /**
   * Where workspace trust and approved key origins are kept (the user's config folder, never a
   * workspace). Default: PROMPTFORGE_CONFIG_DIR, else the folder Electron's userData resolves to.
   */
  configDirectory?: string;
  /**
   * Asks the person in the host's own dialog (Electron's message box), never the page: trusting a
   * workspace and sending a key to a new origin need a yes here. Without it neither can be granted.
   */
  confirmPerson?: ConfirmWithPerson;
}

/**
 * The studio's state in the main process: the open workspace (watched for external edits), the
 * runs in progress, the queue of calls waiting for a person, and the keychain. Every contract
 * handler is a thin call into this class; it never imports Electron. The keychain, the MCP
 * servers and the run history are in studio-keys.ts, studio-mcp.ts and studio-history.ts.
 */
export class StudioService {
  private workspace: Workspace | undefined;
  private stopWatching: (() => void) | undefined;
  private readonly runs = new Map<string, Run>();
  private readonly pending: PendingApprovals;
  private readonly pool: WorkerPool;
  private readonly mcp: StudioMcp;
  private readonly keys: StudioKeys;
  private readonly history: StudioHistory;
  private readonly trust: StudioTrust;
  private readonly chosen = new ChosenFolders();

  constructor(private readonly options: StudioServiceOptions) {
    this.pool = options.pool ?? new WorkerPool({ size: 2 });
    this.pool.prewarm();
    const confirmPerson = oneQuestionAtATime(options.confirmPerson);
    this.trust = new StudioTrust({
      configDirectory: options.configDirectory ?? currentConfigDir(),
      confirm: confirmPerson,
      emit: options.emit,
      changed: (now) => {
        // Less trust than before stops what it allowed: the servers stop, and nothing new starts.
        if (this.workspace && !this.trust.trusted) this.mcp.sync(this.workspace, false);
        void now;
      },
    });
    this.mcp = new StudioMcp({
      secrets: options.secrets,
      emit: options.emit,
      workspace: () => this.workspace,
      requireWorkspace: () => this.requireWorkspace(),
      workspaceChanged: (ws) => options.emit('workspace-changed', this.describe(ws)),
    });
    this.keys = new StudioKeys(options.secrets, () => this.workspace, confirmPerson);
    this.history = new StudioHistory((relative) => this.resolve(relative), options);
    this.pending = new PendingApprovals({
      onEvent: (event) => {
        if (event.type === 'approval-pending')
          options.emit('approval-pending', toPendingApproval(event.pending, this.workspace, this.mcp.manager));
        else options.emit('approval-resolved', { runId: event.request.runId, callId: event.request.callId });
      },
    });
  }

  /** The open workspace's folder, or null. */
  get workspaceRoot(): string | null {
    return this.workspace?.root ?? null;
  }

  /** Shows main's folder dialog; the folder chosen is one the page may then open. */
  async chooseFolder(): Promise<string | null> {
    if (!this.options.chooseFolder) throw new ContractError('not-supported', 'this host cannot show a folder picker');
    const folder = await this.options.chooseFolder();
    return folder === null ? null : this.chosen.add(folder);
  }

  /** `workspace:open`: the page may open only a folder main handed it (see {@link ChosenFolders}). */
  async openChosenWorkspace(dir: string): Promise<WorkspaceState> {
    return this.openWorkspace(this.chosen.check(dir));
  }

  /** Opens `dir` as the workspace. Main's own callers only: the page goes through {@link openChosenWorkspace}. */
  async openWorkspace(dir: string): Promise<WorkspaceState> {
    if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory())
      throw new ContractError('not-found', `no folder at ${dir}`);
    this.stopWatching?.();
    this.trust.forget();
    this.workspace = await loadWorkspace(dir);
    await this.trust.judge(this.workspace);
    this.mcp.sync(this.workspace, this.trust.trusted);
    this.stopWatching = watchWorkspace(this.workspace.root, ({ workspace }) => {
      this.workspace = workspace;
      // A change on disk (an editor, a tool, a git pull) starts nothing; a changed manifest makes
      // the workspace restricted again until the person trusts what it is now.
      void this.trust.judge(workspace).then(
        () => {
          if (this.workspace !== workspace) return;
          this.mcp.sync(workspace, this.trust.trusted);
          this.options.emit('workspace-changed', this.describe(workspace));
        },
        () => undefined,
      );
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
      // PromptForge's own example, as shipped, is trusted once, when it is copied; any later change
      // to what it runs makes it restricted again, like any workspace.
      const example = await loadWorkspace(target);
      await this.trust.store.trust(example, (await this.trust.store.workspaceTrust(example)).digest, 'studio');
    }
    return this.openWorkspace(this.chosen.add(target));
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
    // Only an agent: a .lua file elsewhere may be one a trusted command loads, which its trust
    // does not cover, so the page must not write it.
    if (!AGENT_SCRIPT.test(relative))
      throw new ContractError(
        'not-a-script',
        `${relative}: only agent scripts (${AGENTS_DIR}/NAME.lua) are saved here; catalogs go through catalog:write`,
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
    await this.judgeAgain(ws);
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

  /**
   * Judges the open workspace's trust again just before something of it may run or start: a file a
   * command or server runs can change on disk without a catalog file changing (the watcher sees
   * only those), and trust can be granted or revoked outside the studio (`promptforge trust`).
   */
  private async judgeAgain(ws: Workspace): Promise<void> {
    await this.trust.judge(ws);
    if (this.workspace === ws) this.mcp.sync(ws, this.trust.trusted);
  }

  /** What every run the studio starts shares: workers, the approval queue, keys, MCP servers, events. */
  private runBasics(ws: Workspace) {
    return {
      workspace: ws,
      pool: this.pool,
      approver: new QueueApprover(this.pending, 'studio'),
      secrets: this.options.secrets,
      ...(this.trust.trusted && this.mcp.manager && { mcp: this.mcp.manager }),
      trust: {
        state: this.trust.state,
        store: this.trust.store,
        confirmKeyOrigin: this.trust.confirmKeyOrigin,
        via: 'studio' as const,
      },
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
    await this.judgeAgain(ws);
    const transcript = this.history.transcriptFile(request.runId);
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
    await this.judgeAgain(ws);
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
    // A server may start here: judge the trust first (a file it runs may have changed, or the CLI
    // may have revoked it).
    const ws = this.requireWorkspace();
    await this.judgeAgain(ws);
    const mcp = this.mcp.manager;
    if (!mcp && !ws.tools.get(alias) && !this.trust.trusted && (ws.mcpServers?.length ?? 0) > 0)
      throw new ContractError(
        'workspace-restricted',
        `"${alias}" would come from one of this workspace's MCP servers, which do not start while the workspace is restricted (not trusted). Open Trust, read what it would run, and trust it`,
      );
    if (!mcp) return ws.tools;
    if (!ws.tools.get(alias) && !mcp.currentTools().some((tool) => tool.alias === alias)) {
      // Only the servers that may own the alias start, not every server of the workspace.
      await mcp.ensureFor(alias);
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
    return this.pending.list().map((call) => toPendingApproval(call, this.workspace, this.mcp.manager));
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
    return this.keys.status();
  }

  /**
   * Stores a provider key, or a secret the open workspace's tools.yaml names, in the keychain
   * entry `promptforge keys set NAME` uses. Never returns or logs the value.
   */
  async setKey(target: KeyTarget, key: string): Promise<{ replaced: boolean }> {
    return this.keys.set(target, key);
  }

  async deleteKey(target: KeyTarget): Promise<{ deleted: boolean }> {
    return this.keys.delete(target);
  }

  /**
   * Saves a copy of a run's transcript where the person chooses (the save dialog suggests
   * `<runId>.jsonl`), copied as a stream so a run of any size exports. `path` is where it went;
   * `null` when the person cancelled.
   */
  async exportRun(runId: string): Promise<{ path: string | null }> {
    return this.history.exportRun(runId);
  }

  /** A window of a run's transcript, read by byte range (see {@link readTranscriptPage}). */
  readPage(runId: string, from: number, count: number): TranscriptPage {
    return this.history.readPage(runId, from, count);
  }

  /** Two runs compared as streams, only as far as the window asked for needs. */
  compare(left: string, right: string, window: { from?: number; count?: number } = {}): RunComparison {
    return this.history.compare(left, right, window);
  }

  /** The MCP servers with status and tools; lists (and so starts) every server not running. */
  async listMcp(): Promise<McpServersInfo> {
    await this.judgeAgain(this.requireWorkspace());
    return this.mcp.list();
  }

  async restartMcp(server: string): Promise<McpServersInfo> {
    await this.judgeAgain(this.requireWorkspace());
    return this.mcp.restart(server);
  }

  /** The MCP servers as they are, starting none. */
  mcpStatus(): McpServersInfo {
    this.requireWorkspace();
    return this.mcp.describe();
  }

  async stopMcp(server: string): Promise<McpServersInfo> {
    return this.mcp.stop(server);
  }

  /** The open workspace's trust and manifest. */
  trustStatus(): WorkspaceTrustInfo {
    this.requireWorkspace();
    return this.trust.status();
  }

  /** Trusts the open workspace as shown (`digest`) if the person says yes in the host's dialog. */
  async grantTrust(digest: string): Promise<{ granted: boolean; trust: WorkspaceTrustInfo }> {
    const ws = this.requireWorkspace();
    const result = await this.trust.grant(ws, digest);
    if (this.workspace === ws) {
      this.mcp.sync(ws, this.trust.trusted);
      this.options.emit('workspace-changed', this.describe(ws));
    }
    return result;
  }

  listTrust(): Promise<TrustList> {
    return this.trust.list();
  }

  /**
   * Stops trusting a workspace. When it is the open one, what trust allowed stops: its MCP servers
   * are stopped, and every call waiting for the person is refused.
   */
  async revokeTrust(folder: string): Promise<TrustList> {
    const open = this.workspace;
    await this.trust.revoke(folder, open);
    if (open && !this.trust.trusted) {
      this.mcp.sync(open, false);
      for (const call of this.pending.list())
        this.pending.resolve(
          call.request.callId,
          { kind: 'deny', reason: 'trust in this workspace was revoked' },
          call.request.runId,
        );
      this.options.emit('workspace-changed', this.describe(open));
    }
    return this.trust.list();
  }

  async revokeKeyOrigin(provider: string, origin: string): Promise<TrustList> {
    await this.trust.revokeKeyOrigin(provider, origin);
    return this.trust.list();
  }

  /** Stops every run and the watcher; for app shutdown. */
  async close(): Promise<void> {
    for (const run of this.runs.values()) run.stop('the studio is closing');
    await Promise.all([...this.runs.values()].map((run) => run.done));
    await this.mcp.close();
    this.stopWatching?.();
    if (!this.options.pool) await this.pool.close();
  }

  private async refresh(): Promise<void> {
    if (!this.workspace) return;
    const workspace = await loadWorkspace(this.workspace.root);
    this.workspace = workspace;
    // An edit made here is judged like one on disk: nothing starts, a changed manifest restricts.
    await this.trust.judge(workspace);
    this.mcp.sync(workspace, this.trust.trusted);
    this.options.emit('workspace-changed', this.describe(workspace));
  }

  private requireWorkspace(): Workspace {
    if (!this.workspace) throw new ContractError('no-workspace', 'open a workspace first');
    return this.workspace;
  }

  /**
   * A workspace-relative path resolved inside the open workspace (the schema already refused `..`).
   * A folder or file on the way may be a symbolic link: the part of the path that exists is
   * followed to its real path, which must stay inside the workspace's real path too, so a link
   * never lets a read, a write or a run reach outside it. (A link whose target is missing is refused:
   * writing through it would create its target, wherever that is.) See {@link checkInsideWorkspace}.
   */
  private resolve(relative: string): string {
    const root = this.requireWorkspace().root;
    const outside = () => new ContractError('outside-workspace', `${relative} is outside the workspace`);
    // The workspace folder itself is not a file in it.
    if (path.resolve(root, relative) === root) throw outside();
    const checked = checkInsideWorkspace(root, relative, { missing: 'nearest' });
    if (checked.ok) return checked.path;
    switch (checked.problem) {
      case 'outside':
        throw outside();
      case 'missing':
        throw new ContractError(
          'outside-workspace',
          `${relative} goes through a symbolic link whose target is missing; remove the link or point it inside the workspace`,
        );
      case 'link-outside':
        throw new ContractError(
          'outside-workspace',
          `${relative} leads outside the workspace through a symbolic link; open the linked folder as its own workspace, or copy the file in`,
        );
    }
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
      tools: [...ws.tools.list(), ...(this.mcp.manager?.currentTools() ?? [])].map(toToolInfo),
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
