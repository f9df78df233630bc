import { createHash, randomBytes } from 'node:crypto';
import { FileReadError, readRegularFileText } from '../files/regular-file.js';
import path from 'node:path';
import type { JsonValue } from '../../../common/json.js';
import type { ForkEdit, RunEvent, RunLimits } from '../../../common/run-events.js';
import { ApprovalGateImpl, type GateEvent } from '../approval/approval-gate.js';
import type { Approver } from '../approval/approver.js';
import { TaintTracker } from '../approval/taint-tracker.js';
import { RUNS_DIR, type Workspace } from '../catalog/workspace.js';
import { checkTranscriptFolder } from '../transcript/transcript-writer.js';
import type { ProviderKeySource } from '../credentials/resolve-provider-key.js';
import type { SecretStore } from '../credentials/secret-store.js';
import { createToolRunner } from '../tools/tool-runner.js';
import { collectToolSecrets, recordingSecretSource } from '../tools/tool-secrets.js';
import type { CatalogProblem } from '../catalog/catalog-problem.js';
import type { McpServerManager } from '../mcp/mcp-manager.js';
import { withInProcessRunner, type InProcessTools } from './in-process-tools.js';
import type { ResolvedModel } from './model-driver.js';
import { ReplayRecording } from './replay.js';
import { ForkError } from './run-errors.js';
import { Run } from './run.js';
import type { WorkerPool } from './worker-pool.js';
import { refusingGate, refusingRunner, restrictWorkspace } from '../trust/restricted-mode.js';
import { PinnedFiles, pinnedRunner } from '../trust/pinned-runner.js';
import { scopedSecretUses, scopeWorkspaceSecrets, WorkspaceSecretStore } from '../trust/secret-scope.js';
import type { ConfirmKeyOrigin } from '../trust/key-origins.js';
import type { RuleStore, RulesSnapshot } from '../rules/rule-store.js';
import type { RuleUsage } from '../rules/rule-usage.js';
import type { RuleDefinitions } from '../rules/rule-definitions.js';
import type { TrustStore, TrustVia, WorkspaceTrust } from '../trust/trust-store.js';
import type { Elicitor, SamplingApprover } from '../mcp/pending-questions.js';
import type { OAuthLoginPort } from '../mcp/oauth/mcp-oauth.js';
import type { McpReadServer, McpReadSource } from './mcp-reads.js';
import { mcpReadSource, runCatalog } from './run-catalog.js';
import { fixedResolver, forkResolver, noModelResolver, replayResolver, workspaceResolver } from './run-models.js';
import { gateRules } from './run-rules.js';
import { wordsFor, type Surface } from '../surface-words.js';
import { guessName, meantThen, shownName } from '../did-you-mean.js';

/** Largest script a run loads. */
const MAX_SCRIPT_BYTES = 16 << 20;

export { ForkError } from './run-errors.js';
// The CLI tells a bad transcript (a usage error) from an internal one without loading the reader itself.
export { TranscriptError } from '../transcript/transcript-error.js';

/** A run could not be set up (bad model alias, unreadable script...): a usage or catalog error. */
export class RunSetupError extends Error {
  /** How the CLI reports it (a setup error: the message says what to fix). */
  readonly kind = 'run-setup';
  constructor(message: string) {
    super(message);
    this.name = 'RunSetupError';
  }
}

/** Everything the CLI or the studio knows when it starts a run. */
export interface PrepareRunOptions {
  /** Absolute path of the Lua script. */
  scriptFile: string;
  /** The script text, when the caller has it (the studio's unsaved editor); else read from disk. */
  scriptText?: string;
  workspace: Workspace;
  pool: WorkerPool;
  /** Who decides `ask` calls: the studio's queue, the terminal, or a policy. */
  approver: Approver;
  /** Who answers an MCP server's elicitation during the run's calls (none: declined). */
  elicitor?: Elicitor;
  /** Who approves an MCP server's sampling request during the run's calls (none: declined). */
  sampler?: SamplingApprover;
  /**
   * When set, an MCP server that asks for a sign-in during the run gets one at once, with the
   * person (the browser opened through this port); else the call fails, saying how to sign in.
   */
  mcpLogin?: OAuthLoginPort;
  /** The OS keychain. */
  secrets?: SecretStore;
  /** Allow provider keys from environment variables (the CLI's headless mode). */
  allowEnvKeys?: boolean;
  env?: Record<string, string | undefined>;
  /** `--model` (the studio: the model list's choice): a model alias that overrides the agent's default. */
  model?: string;
  /** Where the person reads the run's messages: their advice names flags or buttons (default `cli`). */
  surface?: Surface;
  /** `--base-url` and `--model-id`: a one-off OpenAI-compatible endpoint. */
  endpoint?: { baseUrl: string; modelId: string };
  /**
   * A value the script receives as `...` (the person's message, `--input`, a tool trial's call); see
   * `RunOptions.input`. A replay or fork without one gives the script the recorded run's.
   */
  input?: JsonValue;
  /**
   * A tool trial of `alias` (the studio's "Try a tool"): the run calls no model, so none is
   * resolved, not even the workspace's default (which may be broken or have no key); its run-start
   * says `toolTrial` and names no model, and a `models.chat` fails. Not combined with `model`,
   * `endpoint`, `replayPath` or `fork`.
   */
  toolTrial?: { alias: string };
  /** `--replay`: answer models.chat and tools.call from this transcript. */
  replayPath?: string;
  /**
   * `--fork-at`: a new run answered from the `replayPath` recording up to `step` (a seq, see
   * docs/host-api.md#forks), with `edit` applied there. Past the step it goes on live when `model`
   * or `endpoint` is given, else on replay while the recording still matches. A script that
   * changed since the recording is refused (`script-changed`) unless `force`.
   */
  fork?: { step: number; edit?: ForkEdit; force?: boolean; transcriptName?: string };
  /** Where the transcript goes; default `<workspace>/runs/<run id>.jsonl`. `false`: none. */
  transcriptPath?: string | false;
  limits?: Partial<RunLimits>;
  onEvent?: (event: RunEvent) => void;
  onGateEvent?: (event: GateEvent) => void;
  /**
   * Told which key source was used (never the key), each time a provider is resolved;
   * `keychainUnavailable` says the keychain could not be reached and the run went on without it.
   */
  onKeySource?: (
    providerId: string,
    source: ProviderKeySource,
    note: { keychainUnavailable: boolean; withheldFrom?: string },
  ) => void;
  /**
   * The workspace's MCP servers (the studio keeps one manager per workspace). Without it, a run
   * whose tools.yaml has MCP servers starts its own and stops them, process trees and all, when
   * it ends. A replay starts no server.
   */
  mcp?: McpServerManager;
  /** Told about each MCP server that failed to start and each MCP tool that was dropped. */
  onMcpProblem?: (problem: CatalogProblem) => void;
  /**
   * The workspace's trust as the caller found it (see main/core/trust). Without it the run is
   * restricted: no command or MCP tool runs, no key or secret goes where the workspace says, every
   * call asks, and the workspace's own `auto`, `trusted` and taint opt-outs are ignored.
   */
  trust?: RunTrust;
  /**
   * A model that answers every `models.chat` of the run in-process, whatever alias the script
   * names (a test case's scripted model, or a test environment's): nothing is looked up in
   * models.yaml and no key is read. Not combined with `model`, `endpoint`, `replayPath` or `fork`.
   */
  inProcessModel?: ResolvedModel;
  /** Tools that run in-process for this run (a test environment's), on top of the workspace's. */
  inProcessTools?: InProcessTools;
  /**
   * The person's approval rules (main/core/rules), read when the run is prepared; `onWarning` is
   * told of rules files that are ignored or cannot be read. Without it no rule applies. With
   * `live` (the studio, which watches the file), a change of the file while the run goes on
   * applies to the calls decided after it.
   */
  rules?: {
    store: RuleStore;
    usage?: RuleUsage;
    definitions?: RuleDefinitions;
    onWarning?(text: string): void;
    live?: LiveRules;
  };
}

/**
 * The rules file as it changes (the studio watches it): `subscribe` calls `listener` with each new
 * reading of the file for workspace `workspaceRoot`, until the returned function is called.
 */
export interface LiveRules {
  subscribe(workspaceRoot: string, listener: (snapshot: RulesSnapshot) => void): () => void;
}

/** What a run knows of its workspace's trust; fixed when the run is prepared. */
export interface RunTrust {
  state: WorkspaceTrust['state'];
  /** The person's approved key origins (and where a new approval is recorded). */
  store?: TrustStore;
  /** Asks the person whether a provider key may go to a base URL that is not its provider's. */
  confirmKeyOrigin?: ConfirmKeyOrigin;
  /** Why the person was not asked about `provider`'s key going to `origin`, for the refusal (the studio says). */
  keyOriginNote?: (provider: string, origin: string) => string;
  /** Who approves, for the trust log. */
  via?: TrustVia;
}

function newRunId(): string {
  return `run-${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(3).toString('hex')}`;
}

/**
 * Reads and checks a recording's transcript file; throws a TranscriptError naming the line on bad
 * input. With `soFar` (a fork), the transcript may belong to a run still in progress: it is read
 * up to its last complete line. The transcript reader, with the run events' schemas, is loaded
 * only here: a run that replays nothing starts without it.
 */
export async function readRecording(path: string, options: { soFar?: boolean } = {}): Promise<ReplayRecording> {
  const { readTranscript } = await import('../transcript/transcript-reader.js');
  return new ReplayRecording(path, readTranscript(path, options));
}

/**
 * Builds a {@link Run} from a workspace: its catalog, tool runner, approval gate with taint
 * tracking, model resolver (keys from the keychain, or the environment when allowed) or replay,
 * and transcript. The run is returned unstarted.
 */
export async function prepareRun(options: PrepareRunOptions): Promise<Run> {
  // The run keeps the trust it starts with: a catalog that changes later changes nothing here.
  const trusted = options.trust?.state === 'trusted' || options.trust?.state === 'empty';
  // A replay that goes nowhere live runs nothing and sends nothing: it reads the catalog as it is
  // (so its recording replays as recorded), and a recorded label still only lowers trust.
  const replaysOnly = options.replayPath !== undefined && options.model === undefined && !options.endpoint;
  const secretUses = scopedSecretUses(options.workspace);
  const scoped = scopeWorkspaceSecrets(options.workspace);
  const workspace = trusted || replaysOnly ? scoped : restrictWorkspace(scoped);
  options = { ...options, workspace };
  const scriptPath = path.relative(workspace.root, options.scriptFile) || path.basename(options.scriptFile);
  const displayPath = scriptPath.startsWith('..') ? options.scriptFile : scriptPath;
  let script = options.scriptText;
  if (script === undefined) {
    try {
      script = await readRegularFileText(options.scriptFile, MAX_SCRIPT_BYTES, 'script');
    } catch (error) {
      throw new RunSetupError(
        error instanceof FileReadError ? error.message : `${options.scriptFile}: cannot read the script`,
      );
    }
  }

  if (
    options.toolTrial &&
    (options.model !== undefined || options.endpoint || options.replayPath !== undefined || options.fork)
  )
    throw new RunSetupError('a tool trial calls no model and replays nothing: it takes no model, endpoint or replay');
  if (
    options.inProcessModel &&
    (options.model !== undefined || options.endpoint || options.replayPath !== undefined || options.fork)
  )
    throw new RunSetupError('an in-process model answers every round: it takes no model, endpoint or replay');
  // A fork may start from a run still in progress: it reads the parent's events recorded so far.
  const replay = options.replayPath
    ? await readRecording(options.replayPath, { soFar: options.fork !== undefined })
    : undefined;
  replay?.replaysFor({ path: displayPath, sha256: createHash('sha256').update(script).digest('hex') });
  // A fork with a model goes on live past its step: it needs keys, tool secrets and MCP servers.
  const live = options.fork !== undefined && (options.model !== undefined || options.endpoint !== undefined);
  if (options.fork) {
    if (!replay) throw new RunSetupError('a fork needs the recording of the run it forks (--replay TRANSCRIPT)');
    forkRecording(replay, options.fork, { script, displayPath, workspace, live, surface: options.surface });
  }
  const offline = replay !== undefined && !live;
  const input = options.input ?? replay?.start.input;
  const secretValues: string[] = [];
  const models = options.toolTrial
    ? noModelResolver()
    : options.inProcessModel
      ? fixedResolver(options.inProcessModel)
      : offline
        ? replayResolver(replay)
        : replay
          ? forkResolver(replay, workspaceResolver(options, displayPath, secretValues, trusted))
          : workspaceResolver(options, displayPath, secretValues, trusted);
  // Tool secrets are redacted too: the http tools' keychain header values and secret-looking
  // command variables, read now, and any header value read later as calls run.
  // A workspace's secrets come from its own keychain namespace; a restricted workspace gets none.
  const workspaceSecrets =
    trusted && options.secrets ? new WorkspaceSecretStore(options.secrets, workspace.root, secretUses) : undefined;
  const toolSecretSource = recordingSecretSource(workspaceSecrets ?? { get: async () => undefined }, secretValues);
  if (!offline) await collectToolSecrets(workspace.tools.list(), toolSecretSource, secretValues);
  const defaultModel = options.toolTrial
    ? undefined
    : options.inProcessModel
      ? {
          alias: options.inProcessModel.alias,
          provider: options.inProcessModel.providerId,
          modelId: options.inProcessModel.modelId,
        }
      : offline
        ? replay.start.model
        : await describeDefault(options, displayPath);

  const runId = newRunId();
  const transcriptPath =
    options.transcriptPath === false
      ? undefined
      : (options.transcriptPath ?? path.join(workspace.root, RUNS_DIR, `${runId}.jsonl`));
  // Before anything starts: a transcript folder that a link leads outside the workspace is refused.
  if (transcriptPath) checkTranscriptFolder(transcriptPath, workspace.root);

  // A trusted run keeps the files it starts with: what changes later does not run.
  const pinned =
    trusted && !offline
      ? new PinnedFiles(workspace.root, workspace.tools.list(), workspace.mcpServers ?? [])
      : undefined;

  const mcpServers = workspace.mcpServers ?? [];
  const { catalog, liveMcp, manager, endMcp } = await runCatalog(options, {
    workspace,
    trusted,
    offline: offline ? replay : undefined,
    pinned,
    toolSecretSource,
    secretValues,
  });

  const taint = new TaintTracker();
  const rules = options.rules ? await gateRules(options.rules, workspace) : undefined;
  // The gate is built before the run it reports to.
  const target: { run?: Run } = {};
  const personGate = new ApprovalGateImpl({
    approver: options.approver,
    catalog,
    taint,
    ...(rules && { rules }),
    onEvent: (event) => {
      if (event.type === 'approval-pending') target.run?.notePending(event.pending.request, event.pending.rule);
      options.onGateEvent?.(event);
    },
  });
  const gate = trusted ? personGate : refusingGate(personGate, catalog, options.surface);
  // A card whose MCP tool is redefined while it waits is withdrawn and asked again.
  liveMcp?.onDefinitionsChanged(() => personGate.definitionsChanged());
  // MCP calls carry the run's session: a server's questions during them are charged to this run.
  const workspaceRunner = createToolRunner({
    workspaceRoot: workspace.root,
    ...(options.surface && { surface: options.surface }),
    secrets: toolSecretSource,
    ...(manager && {
      mcp: {
        callTool: (server, tool, args, signal, timeoutMs) =>
          manager.callTool(server, tool, args, signal, timeoutMs, target.run?.mcpSession),
      },
    }),
  });
  const readServers = new Map<string, McpReadServer>(
    mcpServers.map((server) => [
      server.name,
      { trust: trusted ? server.trust : 'untrusted', timeoutMs: server.timeoutMs },
    ]),
  );
  const readSource: McpReadSource | undefined = manager && mcpReadSource(manager, pinned);
  const toolRunner = options.inProcessTools
    ? withInProcessRunner(workspaceRunner, options.inProcessTools)
    : workspaceRunner;
  const run = new Run({
    script,
    scriptPath: displayPath,
    runId,
    pool: options.pool,
    catalog,
    toolRunner: trusted && pinned ? pinnedRunner(toolRunner, pinned) : refusingRunner(toolRunner, options.surface),
    gate,
    models,
    taint,
    ...(replay && { replay }),
    ...(options.limits && { limits: options.limits }),
    // A replay or a fork gives the script what the recorded run received, unless told otherwise.
    ...(input !== undefined && { input }),
    ...(transcriptPath && { transcriptPath }),
    secrets: secretValues,
    workspace: workspace.root,
    catalogHashes: workspace.catalogVersions,
    ...(defaultModel && { defaultModel }),
    ...(options.toolTrial && { toolTrial: options.toolTrial }),
    ...(options.onEvent && { onEvent: options.onEvent }),
    mcpPerson: {
      ...(options.elicitor && { elicitor: options.elicitor }),
      ...(options.sampler && { sampler: options.sampler }),
    },
    mcpReads: {
      servers: readServers,
      ...(readSource && { source: readSource }),
      ...(!offline &&
        !readSource && {
          offReason:
            mcpServers.length > 0 && !trusted
              ? 'MCP servers stay off in a restricted workspace; trust the workspace to use them'
              : 'no MCP server runs in this run',
        }),
    },
  });
  target.run = run;
  // A rules file changed while the run goes on decides its later calls (fail-closed as when read).
  const liveRules = options.rules?.live;
  if (rules && liveRules) {
    const stop = liveRules.subscribe(workspace.root, (snapshot) => rules.update(snapshot));
    void run.done.finally(stop).catch(() => undefined);
  }
  // Which rules decided calls goes to the usage file once the run ends (never during it).
  const usage = options.rules?.usage;
  if (usage) void run.done.then(() => usage.flush()).catch(() => undefined);
  if (endMcp) {
    const end = endMcp;
    run.onEvent((event) => {
      if (event.type === 'run-end') end();
    });
  }
  return run;
}

async function describeDefault(
  options: PrepareRunOptions,
  scriptPath: string,
): Promise<{ alias: string; provider: string; modelId: string } | undefined> {
  if (options.endpoint)
    return { alias: 'cli-endpoint', provider: 'openai-compatible', modelId: options.endpoint.modelId };
  const alias = options.model ?? options.workspace.models.defaultFor(scriptPath);
  if (alias === undefined) return undefined;
  const spec = options.workspace.models.get(alias);
  if (!spec) {
    const known = options.workspace.models.list().map((m) => m.alias);
    throw new RunSetupError(
      options.model !== undefined
        ? wordsFor(options.surface).unknownModel(alias, known)
        : `unknown model "${shownName(alias)}"${meantThen(guessName(alias, known, 'value', ''), `models.yaml defines ${known.length ? known.join(', ') : 'none'}`)}`,
    );
  }
  return { alias, provider: spec.provider, modelId: spec.model };
}

/**
 * Cuts `recording` at the fork's step, after checking that the script is the one recorded (its
 * sha256 in the recording's run-start): a changed script is refused unless forced.
 */
function forkRecording(
  recording: ReplayRecording,
  fork: NonNullable<PrepareRunOptions['fork']>,
  context: { script: string; displayPath: string; workspace: Workspace; live: boolean; surface?: Surface | undefined },
): void {
  const recorded = recording.start.script;
  const now = createHash('sha256').update(context.script).digest('hex');
  const changed = recorded.sha256 !== now;
  if (changed && !fork.force) {
    const which =
      recorded.path === context.displayPath
        ? `${context.displayPath} changed since run ${recording.start.runId} was recorded`
        : `run ${recording.start.runId} recorded ${recorded.path}, not ${context.displayPath}`;
    throw new ForkError(
      'script-changed',
      `${which} (script sha256 ${recorded.sha256.slice(0, 12)}… then, ${now.slice(0, 12)}… now): the fork would replay the recording against a different script and may diverge before its step. ${wordsFor(context.surface).forkAnyway}`,
    );
  }
  recording.forkAt(fork.step, {
    ...(fork.edit && { edit: fork.edit }),
    live: context.live,
    ...(fork.transcriptName !== undefined && { transcript: fork.transcriptName }),
    scriptChanged: changed,
    tool: (alias) => {
      const tool = context.workspace.tools.get(alias);
      return tool && { trust: tool.trust, structured: tool.outputSchema !== undefined };
    },
  });
}
