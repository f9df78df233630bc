import { cpSync, existsSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { errorMessage } from '../../../common/error-message.js';
import type { ContractEventName, ContractEventPayload } from '../../../common/contract.js';
import type { JsonObject } from '../../../common/json.js';
import type {
  ArgumentsVerdict,
  ForkRequest,
  RunComparison,
  KeyStatus,
  WorkspaceSecretStatus,
  PendingApproval,
  StudioDecision,
  TranscriptPage,
  WorkspaceState,
  RecentWorkspaces as RecentWorkspacesList,
} from '../../../common/studio-schemas.js';
import { PendingApprovals } from '../approval/pending-approvals.js';
import { watchWorkspace } from '../catalog/watch-workspace.js';
import { loadWorkspace, RUNS_DIR, type Workspace } from '../catalog/workspace.js';
import { WorkerPool } from '../run/worker-pool.js';
import type { SecretStore } from '../credentials/secret-store.js';
import { ChosenFolders, notChosen } from './chosen-folders.js';
import { RecentWorkspaces } from './recent-workspaces.js';
import { PersonDialogs } from './person-dialogs.js';
import type { PersonPress } from './person-input.js';
import { ContractError } from './contract-error.js';
import { StudioHistory } from './studio-history.js';
import { StudioRuns, type StartRunRequest } from './studio-runs.js';
import { StudioTests } from './studio-tests.js';
import { resolveInWorkspace } from './workspace-paths.js';
import { StudioKeys, type KeyTarget } from './studio-keys.js';
import { StudioMcp } from './studio-mcp.js';
import { StudioTrust, type ConfirmWithPerson } from './studio-trust.js';
import { currentConfigDir } from '../trust/config-dir.js';
import type { TrustList, WorkspaceTrustInfo } from '../../../common/trust-schemas.js';
import { describeWorkspace, toPendingApproval } from './studio-views.js';
import { StudioRules } from './studio-rules.js';
import { ModelChoices, StudioModelChoices } from './model-choices.js';
import { SpendingCap } from './spending-cap.js';
import { StudioFiles } from './studio-files.js';

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
  /**
   * Opens a URL in the person's system browser (Electron's shell.openExternal): a server's URL
   * question the person accepted, a sign-in page. Only URLs open-external.ts allows reach it.
   * Without it, neither can be opened.
   */
  openExternal?: (url: string) => Promise<void>;
}

/**
 * The studio's state in the main process: the open workspace (watched for external edits), the
 * runs in progress, the queue of calls waiting for a person, and the keychain. Every contract
 * handler is a thin call into this class; it never imports Electron. The runs, the keychain, the
 * MCP servers, the run history and trust are in studio-runs.ts, studio-keys.ts, studio-mcp.ts,
 * studio-history.ts and studio-trust.ts.
 */
export class StudioService {
  private workspace: Workspace | undefined;
  private stopWatching: (() => void) | undefined;
  private readonly runs: StudioRuns;
  /** The Tests view's part: test files, suite runs and their progress (studio-tests.ts). */
  readonly tests: StudioTests;
  private readonly pending: PendingApprovals;
  private readonly pool: WorkerPool;
  /** The open workspace's MCP servers, their questions to the person, resources, prompts and sign-in (studio-mcp.ts). */
  readonly mcp: StudioMcp;
  private readonly keys: StudioKeys;
  private readonly history: StudioHistory;
  private readonly trust: StudioTrust;
  /** The person's approval rules: the Rules view, "Always allow…", and the file every run follows (studio-rules.ts). */
  readonly rules: StudioRules;
  private readonly chosen = new ChosenFolders();
  private readonly recent: RecentWorkspaces;
  private readonly dialogs: PersonDialogs;
  /** The model each agent runs with, chosen by the person (kept in the config folder). */
  private readonly models: StudioModelChoices;
  /** The person's spending cap for every run (kept in the config folder). */
  readonly spendingCap: SpendingCap;
  /** The workspace's files: agents, catalogs, the file tree, model choices (studio-files.ts). */
  readonly files: StudioFiles;

  constructor(private readonly options: StudioServiceOptions) {
    this.pool = options.pool ?? new WorkerPool({ size: 2 });
    this.pool.prewarm();
    // Every dialog main shows goes through these: one at a time, each paid for by the person's press.
    this.dialogs = new PersonDialogs(options);
    const configDirectory = options.configDirectory ?? currentConfigDir();
    this.recent = new RecentWorkspaces(configDirectory);
    this.models = new StudioModelChoices(new ModelChoices(configDirectory));
    this.spendingCap = new SpendingCap(configDirectory);
    this.trust = new StudioTrust({
      configDirectory,
      dialogs: this.dialogs,
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
      judgeAgain: (ws) => this.judgeAgain(ws),
      dialogs: this.dialogs,
      openExternal: options.openExternal,
    });
    this.keys = new StudioKeys(options.secrets, () => this.workspace, this.dialogs);
    this.history = new StudioHistory((relative) => this.resolve(relative), {
      dialogs: this.dialogs,
      workspaceRoot: () => this.workspace?.root ?? null,
    });
    this.pending = new PendingApprovals({
      onEvent: (event) => {
        if (event.type === 'approval-pending')
          options.emit(
            'approval-pending',
            toPendingApproval(event.pending, this.workspace, this.mcp.manager, this.rules.serverTrusted),
          );
        else options.emit('approval-resolved', { runId: event.request.runId, callId: event.request.callId });
      },
    });
    // The person's approval rules apply to the studio's runs as to the CLI's.
    this.rules = new StudioRules({
      configDirectory,
      emit: options.emit,
      workspace: () => this.workspace,
      mcpTools: () => this.mcp.manager?.currentTools() ?? [],
      pending: this.pending,
      dialogs: this.dialogs,
      trustedServersChanged: () => {
        // The explorer marks the tools of the servers the person trusts for rules.
        if (this.workspace) options.emit('workspace-changed', this.describe(this.workspace));
      },
    });
    this.runs = new StudioRuns({
      rules: this.rules.forRuns(),
      pool: this.pool,
      pending: this.pending,
      mcpPerson: this.mcp.person,
      secrets: options.secrets,
      trust: this.trust,
      mcp: this.mcp,
      history: this.history,
      emit: options.emit,
      requireWorkspace: () => this.requireWorkspace(),
      judgeAgain: (ws) => this.judgeAgain(ws),
      resolve: (relative) => this.resolve(relative),
      workspaceChanged: () => {
        if (this.workspace) options.emit('workspace-changed', this.describe(this.workspace));
      },
      spendingCap: this.spendingCap,
    });
    this.files = new StudioFiles({
      requireWorkspace: () => this.requireWorkspace(),
      resolve: (relative) => this.resolve(relative),
      refresh: () => this.refresh(),
      describeAgain: (ws) => {
        if (this.workspace === ws) options.emit('workspace-changed', this.describe(ws));
      },
      isRunning: (agent) => this.runs.isRunning(agent),
      models: this.models,
      dialogs: this.dialogs,
    });
    this.tests = new StudioTests({
      rules: this.rules.forRuns(),
      pool: this.pool,
      secrets: options.secrets,
      trust: this.trust,
      history: this.history,
      emit: options.emit,
      requireWorkspace: () => this.requireWorkspace(),
      workspace: () => this.workspace,
      judgeAgain: (ws) => this.judgeAgain(ws),
      spendingCap: this.spendingCap,
    });
  }

  /** The open workspace's folder, or null. */
  get workspaceRoot(): string | null {
    return this.workspace?.root ?? null;
  }

  /** Shows main's folder dialog; the folder chosen is one the page may then open. */
  async chooseFolder(press: PersonPress): Promise<string | null> {
    const folder = await this.dialogs.chooseFolder(press);
    return folder === null ? null : this.chosen.add(folder);
  }

  /**
   * `workspace:open`: the page may open only a folder main handed it: the folder dialog's answer or
   * the example ({@link ChosenFolders}), or a recent workspace ({@link RecentWorkspaces}). What opens
   * is the real path that was checked, never the page's spelling again. A folder the person chose
   * becomes a recent workspace.
   */
  async openChosenWorkspace(dir: string): Promise<WorkspaceState> {
    const real = this.chosen.has(dir) ? this.chosen.check(dir) : await this.recent.check(dir);
    if (real === undefined) throw notChosen(dir);
    const state = await this.openWorkspace(real);
    if (real !== this.exampleFolder)
      await this.recent.record(real).catch((error: unknown) => {
        // The list is a convenience: failing to keep it never fails the open.
        console.warn(`[promptforge] could not record the recent workspace ${real}: ${errorMessage(error)}`);
      });
    return state;
  }

  /** `workspace:recent`: the workspaces the person opened lately. */
  recentWorkspaces(): Promise<RecentWorkspacesList> {
    return this.recent.list();
  }

  /** `workspace:forget-recent`. */
  forgetRecentWorkspace(folder: string): Promise<RecentWorkspacesList> {
    return this.recent.forget(folder);
  }

  /** Where the example workspace is copied to. */
  private get exampleFolder(): string {
    return realFolderOr(path.join(this.options.userDataDirectory, 'example-workspace'));
  }

  /** Opens `dir` as the workspace. Main's own callers only: the page goes through {@link openChosenWorkspace}. */
  async openWorkspace(dir: string): Promise<WorkspaceState> {
    if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory())
      throw new ContractError('not-found', `no folder at ${dir}`);
    this.stopWatching?.();
    this.trust.forget();
    // A test run of the workspace being left stops; its runs are not the new workspace's.
    await this.tests.forget();
    this.history.forgetTestRuns();
    this.workspace = await loadWorkspace(dir);
    await this.models.load(this.workspace.root);
    await this.trust.judge(this.workspace);
    this.mcp.sync(this.workspace, this.trust.trusted);
    // The rules as they apply here (a rules file this workspace holds is named in a warning).
    await this.rules.workspaceOpened();
    this.stopWatching = watchWorkspace(this.workspace.root, ({ workspace }) => {
      this.workspace = workspace;
      // A change on disk (an editor, a tool, a git pull) starts nothing; a changed manifest makes
      // the workspace restricted again until the person trusts what it is now.
      void this.trust.judge(workspace).then(
        () => {
          if (this.workspace !== workspace) return;
          this.mcp.sync(workspace, this.trust.trusted);
          this.options.emit('workspace-changed', this.describe(workspace));
          // A test file, an agent or a catalog it names changed: the test list says so.
          return this.tests.workspaceChanged(workspace);
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
    return this.openWorkspace(this.chosen.check(this.chosen.add(target)));
  }

  state(): WorkspaceState | null {
    return this.workspace ? this.describe(this.workspace) : null;
  }

  startRun(request: StartRunRequest, press?: PersonPress): Promise<{ runId: string }> {
    return this.runs.start(request, press);
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

  /** Forks a run at a step (docs/host-api.md#forks); see {@link StudioRuns.fork}. */
  forkRun(request: ForkRequest, press?: PersonPress): Promise<{ runId: string }> {
    return this.runs.fork(request, press);
  }

  /** The core's verdict on arguments for a tool (an approval card's run, or the open workspace's catalog). */
  checkToolArguments(alias: string, args: unknown, runId?: string): Promise<ArgumentsVerdict> {
    return this.runs.checkToolArguments(alias, args, runId);
  }

  /** Tries one call of a catalog tool as a recorded run (see tool-trial.ts). */
  tryTool(alias: string, args: JsonObject): Promise<{ runId: string }> {
    return this.runs.tryTool(alias, args);
  }

  stopRun(runId: string): { stopped: boolean } {
    return this.runs.stop(runId);
  }

  listApprovals(): PendingApproval[] {
    return this.pending
      .list()
      .map((call) => toPendingApproval(call, this.workspace, this.mcp.manager, this.rules.serverTrusted));
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
  async setKey(target: KeyTarget, key: string, press: PersonPress): Promise<{ replaced: boolean }> {
    return this.keys.set(target, key, press);
  }

  async deleteKey(target: KeyTarget, press: PersonPress): Promise<{ deleted: boolean }> {
    return this.keys.delete(target, press);
  }

  /**
   * Saves a copy of a run's transcript where the person chooses (the save dialog suggests
   * `<runId>.jsonl`), copied as a stream so a run of any size exports. `path` is where it went;
   * `null` when the person cancelled.
   */
  async exportRun(runId: string, press: PersonPress): Promise<{ path: string | null }> {
    return this.history.exportRun(runId, press);
  }

  /** A window of a run's transcript, read by byte range (see {@link readTranscriptPage}). */
  readPage(runId: string, from: number, count: number): TranscriptPage {
    return this.history.readPage(runId, from, count);
  }

  /** Two runs compared as streams, only as far as the window asked for needs. */
  compare(left: string, right: string, window: { from?: number; count?: number } = {}): RunComparison {
    return this.history.compare(left, right, window);
  }

  /** The open workspace's trust and manifest. */
  trustStatus(): WorkspaceTrustInfo {
    this.requireWorkspace();
    return this.trust.status();
  }

  /** Trusts the open workspace as shown (`digest`) if the person says yes in the host's dialog. */
  async grantTrust(digest: string, press: PersonPress): Promise<{ granted: boolean; trust: WorkspaceTrustInfo }> {
    const ws = this.requireWorkspace();
    const result = await this.trust.grant(ws, digest, press);
    if (this.workspace === ws) {
      this.mcp.sync(ws, this.trust.trusted);
      this.options.emit('workspace-changed', this.describe(ws));
    }
    return result;
  }

  listTrust(): Promise<TrustList> {
    return this.trust.list(this.workspace);
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
      this.mcp.person.withdrawAll('trust in this workspace was revoked');
      this.options.emit('workspace-changed', this.describe(open));
    }
    return this.trust.list(this.workspace);
  }

  /** Lets the open workspace's model `model` send its requests to its base URL's origin, if the person says yes. */
  async allowKeyOrigin(model: string, press: PersonPress): Promise<{ allowed: boolean; list: TrustList }> {
    const allowed = await this.trust.allowKeyOrigin(this.requireWorkspace(), model, press);
    return { allowed, list: await this.trust.list(this.workspace) };
  }

  async revokeKeyOrigin(provider: string, origin: string): Promise<TrustList> {
    await this.trust.revokeKeyOrigin(provider, origin);
    return this.trust.list(this.workspace);
  }

  /** Stops every run and the watcher; for app shutdown. */
  async close(): Promise<void> {
    await Promise.all([this.runs.close(), this.tests.forget()]);
    await this.mcp.close();
    this.rules.close();
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
    await this.tests.workspaceChanged(workspace);
  }

  private requireWorkspace(): Workspace {
    if (!this.workspace) throw new ContractError('no-workspace', 'open a workspace first');
    return this.workspace;
  }

  /** A workspace-relative path resolved inside the open workspace (see {@link resolveInWorkspace}). */
  private resolve(relative: string): string {
    return resolveInWorkspace(this.requireWorkspace().root, relative);
  }

  private describe(ws: Workspace): WorkspaceState {
    return { ...describeWorkspace(ws, this.mcp.manager, this.rules.serverTrusted), ...this.models.describe(ws) };
  }
}

/** The real path of `folder`, or `folder` itself when it does not resolve. */
function realFolderOr(folder: string): string {
  try {
    return realpathSync(folder);
  } catch {
    return folder;
  }
}
