/**
 * The studio's runs: starting an agent, forking a run at a step, trying one tool call, checking a
 * tool's arguments, stopping; and the runs in progress. Every run the person starts here shares
 * the studio's workers, its approval queue, the keychain, the MCP servers and its events.
 */
import { DEFAULT_LIMITS } from '../run/run-limits.js';
import path from 'node:path';
import type { ContractEventName, ContractEventPayload, ContractRequest } from '../../../common/contract.js';
import type { JsonObject } from '../../../common/json.js';
import type { RunEvent } from '../../../common/run-events.js';
import type { ArgumentsVerdict, ForkRequest } from '../../../common/studio-schemas.js';
import { QueueApprover, type PendingApprovals } from '../approval/pending-approvals.js';
import { ToolCatalogImpl } from '../catalog/tool-catalog.js';
import type { Workspace } from '../catalog/workspace.js';
import type { SecretStore } from '../credentials/secret-store.js';
import { ForkError, prepareRun, RunSetupError, type PrepareRunOptions } from '../run/prepare-run.js';
import type { Run } from '../run/run.js';
import type { WorkerPool } from '../run/worker-pool.js';
import type { Elicitor, SamplingApprover } from '../mcp/pending-questions.js';
import { readTranscriptPage } from '../transcript/transcript-pages.js';
import { ContractError } from './contract-error.js';
import { wordsFor } from '../surface-words.js';
import type { SpendingCap } from './spending-cap.js';
import { transcriptContractError, type StudioHistory } from './studio-history.js';
import type { StudioMcp } from './studio-mcp.js';
import { keyMayGo } from '../trust/key-origins.js';
import { NO_PRESS, type PersonPress } from './person-input.js';
import type { StudioTrust } from './studio-trust.js';
import { checkArguments, requireValidTrialArguments, TOOL_TRIAL_SCRIPT, trialScriptName } from './tool-trial.js';

/** What the runs part needs from the studio service. */
export interface StudioRunsHost {
  /** The person's approval rules, applied to every run. */
  rules: NonNullable<PrepareRunOptions['rules']>;
  pool: WorkerPool;
  pending: PendingApprovals;
  /** Who answers the MCP servers' questions during a run: the person, through the studio's queues. */
  mcpPerson: { elicitor: Elicitor; sampler: SamplingApprover };
  secrets: SecretStore;
  trust: StudioTrust;
  mcp: StudioMcp;
  history: StudioHistory;
  emit: <E extends ContractEventName>(event: E, payload: ContractEventPayload<E>) => void;
  /** The open workspace; refuses when none is. */
  requireWorkspace(): Workspace;
  /** Judges the open workspace's trust again just before something of it may run (see StudioService). */
  judgeAgain(ws: Workspace): Promise<void>;
  /** A workspace-relative path resolved inside the open workspace (refusing one that leaves it). */
  resolve(relative: string): string;
  /** Pushes `workspace-changed` for the open workspace (a run started or ended shows in the history). */
  workspaceChanged(): void;
  /** The person's spending cap, applied to every run that may call a model. */
  spendingCap: SpendingCap;
}

/** A request of `run:start` (from IPC, so an optional field may be there as undefined). */
export type StartRunRequest = ContractRequest<'run:start'>;

/**
 * The most runs the studio has in progress at once (each has a Lua worker thread of its own, with
 * its own heap): a page script starting run after run is refused past it, instead of filling the
 * host's memory with threads.
 */
export const MAX_STUDIO_RUNS = 16;

export class StudioRuns {
  private readonly runs = new Map<string, Run>();
  /** Runs being prepared: counted against {@link MAX_STUDIO_RUNS} until they are tracked or fail. */
  private starting = 0;

  constructor(private readonly host: StudioRunsHost) {}

  /**
   * Holds a place for one more run while `prepare` makes and launches it; refuses
   * (`too-many-runs`) when {@link MAX_STUDIO_RUNS} are in progress or starting.
   */
  private async withPlace<T>(prepare: () => Promise<T>): Promise<T> {
    if (this.runs.size + this.starting >= MAX_STUDIO_RUNS)
      throw new ContractError(
        'too-many-runs',
        `${MAX_STUDIO_RUNS} runs are in progress, the most the studio runs at once: stop one (or wait until one ends), then start this again`,
      );
    this.starting += 1;
    try {
      return await prepare();
    } finally {
      this.starting -= 1;
    }
  }

  start(request: StartRunRequest, press: PersonPress = NO_PRESS): Promise<{ runId: string }> {
    return this.withPlace(() => this.startNow(request, press));
  }

  private async startNow(request: StartRunRequest, press: PersonPress): Promise<{ runId: string }> {
    const ws = this.host.requireWorkspace();
    // A model this workspace does not define (a page still showing another workspace's choice).
    if (request.model && !ws.models.get(request.model))
      throw new ContractError(
        'unknown-model',
        wordsFor('studio').unknownModel(
          request.model,
          ws.models.list().map((model) => model.alias),
        ),
      );
    await this.host.judgeAgain(ws);
    const scriptFile = this.host.resolve(request.script);
    if (!request.replay) await this.askBeforeStart(ws, request.model ?? ws.models.defaultFor(request.script), press);
    refuseRaisedLimits(request);
    const cap = await this.host.spendingCap.limits();
    let run: Run;
    try {
      run = await prepareRun({
        ...this.runBasics(ws, press),
        scriptFile,
        ...(request.text !== undefined && { scriptText: request.text }),
        ...(request.model && { model: request.model }),
        ...(request.input !== undefined && { input: request.input }),
        ...(request.replay && { replayPath: this.host.resolve(request.replay) }),
        limits: {
          ...(request.cpuLimitSeconds !== undefined && { cpuMs: request.cpuLimitSeconds * 1000 }),
          ...(request.memoryLimitMiB !== undefined && { memoryBytes: request.memoryLimitMiB * 1024 * 1024 }),
          ...(request.timeoutSeconds !== undefined && { wallMs: request.timeoutSeconds * 1000 }),
          ...cap,
        },
      });
    } catch (error) {
      if (error instanceof RunSetupError) throw new ContractError('run-setup', error.message);
      throw error;
    }
    return this.launch(run);
  }

  /**
   * Asks now, while the call that starts a run is served and the press that came with it pays,
   * whether the model the run starts with (`alias`) may send its requests to an origin that is not
   * its provider's: once the call is answered, the run itself may no longer ask. Nothing happens
   * when the origin is the provider's own or approved; a no is remembered, and the run then stops
   * at its first request with the refusal.
   */
  private async askBeforeStart(ws: Workspace, alias: string | undefined, press: PersonPress): Promise<void> {
    const spec = alias === undefined ? undefined : ws.models.get(alias);
    if (spec?.baseUrl === undefined || spec.provider === 'replay') return;
    const { trust } = this.host;
    await keyMayGo(spec.provider, spec.baseUrl, spec.alias, {
      trusted: trust.trusted,
      store: trust.store,
      confirm: trust.keyOriginAsker(ws, press),
      via: 'studio',
    });
  }

  /**
   * What every run the studio starts shares: workers, the approval and question queues, keys, MCP
   * servers, events, and how it asks the person about a key's new origin (only with `press`, while the call
   * that started it is served).
   */
  private runBasics(ws: Workspace, press: PersonPress) {
    const { trust, mcp } = this.host;
    return {
      workspace: ws,
      pool: this.host.pool,
      approver: new QueueApprover(this.host.pending, 'studio'),
      elicitor: this.host.mcpPerson.elicitor,
      sampler: this.host.mcpPerson.sampler,
      secrets: this.host.secrets,
      ...(trust.trusted && mcp.manager && { mcp: mcp.manager }),
      trust: {
        state: trust.state,
        store: trust.store,
        confirmKeyOrigin: trust.keyOriginAsker(ws, press),
        keyOriginNote: trust.keyOriginNote(ws),
        via: 'studio' as const,
      },
      rules: this.host.rules,
      surface: 'studio' as const,
      onEvent: (event: RunEvent) => this.host.emit('run-event', event),
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
      this.host.workspaceChanged();
    });
    await run.start();
    // Its transcript now starts with run-start: the Runs list shows it as running at once.
    if (this.runs.has(run.id)) this.host.workspaceChanged();
    return { runId: run.id };
  }

  /**
   * Forks a run at a step (docs/host-api.md#forks): a new run of the parent's script, answered
   * from the parent's transcript up to the step, then live with `model` or on replay.
   */
  fork(request: ForkRequest, press: PersonPress = NO_PRESS): Promise<{ runId: string }> {
    return this.withPlace(() => this.forkNow(request, press));
  }

  private async forkNow(request: ForkRequest, press: PersonPress): Promise<{ runId: string }> {
    const ws = this.host.requireWorkspace();
    await this.host.judgeAgain(ws);
    const { file: transcript, shown } = this.host.history.transcript(request.runId);
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
    // A fork goes on live only with the model the person picked for it.
    if (request.model) await this.askBeforeStart(ws, request.model, press);
    const cap = await this.host.spendingCap.limits();
    let run: Run;
    try {
      run = await prepareRun({
        ...this.runBasics(ws, press),
        scriptFile: this.host.resolve(script),
        replayPath: transcript,
        limits: cap,
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
  tryTool(alias: string, args: JsonObject): Promise<{ runId: string }> {
    return this.withPlace(() => this.tryToolNow(alias, args));
  }

  private async tryToolNow(alias: string, args: JsonObject): Promise<{ runId: string }> {
    const ws = this.host.requireWorkspace();
    await this.host.judgeAgain(ws);
    requireValidTrialArguments(await this.liveCatalog(alias), alias, args);
    // A trial calls no model: it never asks the person anything.
    const run = await prepareRun({
      ...this.runBasics(ws, NO_PRESS),
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
    const ws = this.host.requireWorkspace();
    await this.host.judgeAgain(ws);
    const mcp = this.host.mcp.manager;
    if (!mcp && !ws.tools.get(alias) && !this.host.trust.trusted && (ws.mcpServers?.length ?? 0) > 0)
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

  /** Whether a run of the agent `agent` (workspace-relative) is in progress. */
  isRunning(agent: string): boolean {
    return [...this.runs.values()].some((run) => run.scriptPath === agent);
  }

  stop(runId: string): { stopped: boolean } {
    const run = this.runs.get(runId);
    if (!run) return { stopped: false };
    run.stop('stopped from the studio');
    return { stopped: true };
  }

  /** Stops every run and waits for them to end; for app shutdown. */
  async close(): Promise<void> {
    for (const run of this.runs.values()) run.stop('the studio is closing');
    await Promise.all([...this.runs.values()].map((run) => run.done));
  }
}

/**
 * The studio never raises a run's limits: the page may only lower them (a page script asking for a
 * gigabyte of Lua heap per run, times the runs it may start, would exhaust the host). Refused with
 * `run-setup`, naming the most each may be.
 */
function refuseRaisedLimits(request: StartRunRequest): void {
  const over = [
    request.cpuLimitSeconds !== undefined && request.cpuLimitSeconds * 1000 > DEFAULT_LIMITS.cpuMs
      ? `cpuLimitSeconds at most ${DEFAULT_LIMITS.cpuMs / 1000}`
      : null,
    request.memoryLimitMiB !== undefined && request.memoryLimitMiB * 1024 * 1024 > DEFAULT_LIMITS.memoryBytes
      ? `memoryLimitMiB at most ${DEFAULT_LIMITS.memoryBytes / 1024 / 1024}`
      : null,
  ].filter((text) => text !== null);
  if (over.length > 0)
    throw new ContractError(
      'run-setup',
      `the studio only lowers a run's limits, never raises them: ${over.join(', ')}`,
    );
}
