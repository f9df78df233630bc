import { createHash, randomBytes } from 'node:crypto';
import type { JsonObject, JsonValue } from '../../../common/json.js';
import type { RunEvent, RunEventBody, RunLimits, RunStatus } from '../../../common/run-events.js';
import type { ApprovalGate, ApprovalRequest } from '../approval/approval-types.js';
import type { ToolCatalog, ToolRunner } from '../tools/tool-spec.js';
import { redactDeep } from '../secrets/redact.js';
import { TranscriptWriter } from '../transcript/transcript-writer.js';
import { ModelDriver, type ModelResolver } from './model-driver.js';
import type { ReplayRecording } from './replay.js';
import { FatalRunError, RunLimitError, ScriptError } from './run-errors.js';
import { ToolDispatcher, type TaintChecker } from './tool-dispatcher.js';
import type { LuaWorker, WorkerPool } from './worker-pool.js';
import {
  encodeForLua,
  mib,
  type FromWorker,
  type HostReply,
  type ToWorker,
  type WorkerCaps,
} from './worker-protocol.js';
import { errorMessage } from '../../../common/error-message.js';
import { McpPersonSession } from '../mcp/mcp-person-session.js';
import type { McpCallRef, McpRunSession } from '../mcp/mcp-session.js';
import type { Elicitor, SamplingApprover } from '../mcp/pending-questions.js';
import { McpReads, type McpReadsOptions } from './mcp-reads.js';
import { CpuClock, DEFAULT_CAPS, DEFAULT_LIMITS, type RunCaps } from './run-limits.js';
import { WorkerLink } from './run-worker.js';

/** Everything one run needs. Core only: no Electron, no terminal. */
export interface RunOptions {
  /** The Lua source. */
  script: string;
  /** The name errors use (`agents/echo.lua:3: ...`), usually workspace-relative. */
  scriptPath: string;
  pool: WorkerPool;
  catalog: ToolCatalog;
  toolRunner: ToolRunner;
  gate: ApprovalGate;
  models: ModelResolver;
  taint?: TaintChecker;
  replay?: ReplayRecording;
  limits?: Partial<RunLimits>;
  /**
   * JSONL transcript path; events are appended and flushed one by one, to a file only its owner may
   * read. A path inside `workspace` must stay inside it through symbolic links, or the run is not
   * built (a TranscriptPathError).
   */
  transcriptPath?: string;
  /** Secrets used by this run (provider keys, tool secrets): redacted from every event, reply and error. */
  secrets?: readonly string[];
  /** The workspace root: named in the run-start event, and what a transcript inside it must stay in. */
  workspace?: string;
  catalogHashes?: Record<string, string>;
  /** The model used by default, for the run-start event. */
  defaultModel?: { alias: string; provider: string; modelId: string };
  /** Set for a tool trial (a run that calls one tool and no model), for the run-start event. */
  toolTrial?: { alias: string };
  runId?: string;
  /** Receives every event as it happens (the studio, the CLI's --json). */
  onEvent?: (event: RunEvent) => void;
  /**
   * A value the script receives as its chunk argument (`local input = ...`), sent through
   * {@link encodeForLua} like every value entering Lua. A tool trial passes its call this way.
   */
  input?: JsonValue;
  /** Lower (or raise) the per-run caps; tests use small ones. */
  caps?: Partial<RunCaps>;
  /** Where a failing event listener is reported. Default: console. */
  logger?: { error(message: string): void };
  /**
   * The person an MCP server's elicitation and sampling requests go to while this run has a call
   * in flight to it (the studio's queues, the terminal). Without one, both are declined.
   */
  mcpPerson?: { elicitor?: Elicitor; sampler?: SamplingApprover };
  /** The workspace's MCP servers for `mcp.read_resource` and `mcp.get_prompt` (none: every read fails, naming why). */
  mcpReads?: Pick<McpReadsOptions, 'servers' | 'source' | 'offReason'>;
}

/** How a run ended. */
export interface RunResult {
  runId: string;
  status: RunStatus;
  error?: {
    kind: 'syntax' | 'runtime' | 'cpu' | 'memory' | 'timeout' | 'stopped' | 'crash' | 'host' | 'output' | 'budget';
    message: string;
  };
  toolCalls: Record<string, number>;
  cpuMs: number;
  durationMs: number;
  transcriptPath?: string;
}

type EndError = NonNullable<RunResult['error']>;

/** A fresh 128-bit guard nonce for one run (docs/host-api.md#the-envelope: random, made once per run). */
export function newNonce(): string {
  return randomBytes(16).toString('hex');
}

/**
 * One execution of one Lua script in its own VM on a pooled worker thread. Host calls (models.chat,
 * tools.call) are answered here while the worker blocks. The run measures Lua compute time as the
 * time the worker spends outside host calls, and terminates the worker when the budget, the
 * wall-clock limit or a stop ends the run — which also stops loops where no Lua hook fires
 * (`string.find` backtracking). The host's event loop is never blocked by the script.
 */
export class Run {
  readonly id: string;
  readonly done: Promise<RunResult>;
  readonly limits: RunLimits;
  readonly caps: RunCaps;
  private readonly nonce = newNonce();
  private readonly abort = new AbortController();
  private readonly driver: ModelDriver;
  private readonly dispatcher: ToolDispatcher;
  private readonly reads: McpReads;
  /** The run's session with its MCP servers: their questions during its calls come here. */
  readonly mcpSession: McpRunSession;
  /** The call (or read) whose tool runs now, for the questions a server asks during it. */
  private runningCall: McpCallRef | undefined;
  private readonly transcript: TranscriptWriter | undefined;
  private readonly listeners = new Set<(event: RunEvent) => void>();
  private readonly startedAt = performance.now();
  private seq = 0;
  private link: WorkerLink | undefined;
  private ended = false;
  private resolveDone!: (result: RunResult) => void;
  private logCount = 0;
  private logBytes = 0;
  private eventChars = 0;
  private transcriptFailed = false;
  private readonly clock: CpuClock;
  private wallTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: RunOptions) {
    this.id =
      options.runId ?? `run-${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(3).toString('hex')}`;
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.caps = { ...DEFAULT_CAPS, ...options.caps };
    this.clock = new CpuClock(this.limits.cpuMs, () =>
      this.finish('limit', {
        kind: 'cpu',
        message: `CPU limit of ${this.limits.cpuMs / 1000} s exceeded (the script computed without returning to the host)`,
      }),
    );
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
    if (options.onEvent) this.listeners.add(options.onEvent);
    if (options.transcriptPath)
      // Inside the workspace by name means inside it in fact (no runs/ link that leads elsewhere).
      this.transcript = new TranscriptWriter(options.transcriptPath, this.caps.transcriptBytes, {
        ...(options.workspace !== undefined && { workspace: options.workspace }),
      });
    const emit = (event: RunEventBody): void => this.emit(event);
    this.driver = new ModelDriver(options.models, options.catalog, emit, {
      ...(this.limits.maxTokens !== undefined && { maxTokens: this.limits.maxTokens }),
      ...(this.limits.maxCost !== undefined && { maxCost: this.limits.maxCost }),
    });
    this.dispatcher = new ToolDispatcher({
      runId: this.id,
      nonce: this.nonce,
      catalog: options.catalog,
      runner: options.toolRunner,
      gate: options.gate,
      emit,
      claimRequested: (alias, args) => this.driver.claimRequested(alias, args),
      onRunning: (call) => (this.runningCall = call),
      ...(options.taint && { taint: options.taint }),
      ...(options.replay && { replay: options.replay }),
    });
    this.mcpSession = new McpPersonSession({
      runId: this.id,
      nonce: this.nonce,
      emit,
      currentCall: () => this.runningCall,
      ...(options.mcpPerson?.elicitor && { elicitor: options.mcpPerson.elicitor }),
      ...(options.mcpPerson?.sampler && { sampler: options.mcpPerson.sampler }),
      // A sampling request is answered by the run's default model.
      model: () => options.models.resolve(undefined),
      onUsage: (usage, cost) => this.driver.addUsage(usage, cost),
    });
    this.reads = new McpReads({
      nonce: this.nonce,
      workspaceRoot: options.workspace,
      emit,
      servers: options.mcpReads?.servers ?? new Map(),
      ...(options.mcpReads?.source && { source: options.mcpReads.source }),
      ...(options.mcpReads?.offReason !== undefined && { offReason: options.mcpReads.offReason }),
      session: this.mcpSession,
      onRunning: (call) => (this.runningCall = call),
      ...(options.taint && { taint: options.taint }),
      ...(options.replay && { replay: options.replay }),
    });
  }

  /** The script's name as errors show it. */
  get scriptPath(): string {
    return this.options.scriptPath;
  }

  /** The run's tool catalog: the one its dispatcher validates arguments with. */
  get catalog(): ToolCatalog {
    return this.options.catalog;
  }

  /** Subscribes to events; returns an unsubscribe function. */
  onEvent(listener: (event: RunEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** tools.calls as the host counted it. */
  get toolCalls(): Record<string, number> {
    return { ...this.dispatcher.counts };
  }

  /** Starts the run. Resolves once the script has been handed to a worker. */
  async start(): Promise<void> {
    const { options } = this;
    this.emit({
      type: 'run-start',
      script: { path: options.scriptPath, sha256: createHash('sha256').update(options.script).digest('hex') },
      ...(options.workspace !== undefined && { workspace: options.workspace }),
      catalogs: options.catalogHashes ?? {},
      ...(options.defaultModel && { model: options.defaultModel }),
      limits: this.limits,
      ...(options.toolTrial && { toolTrial: options.toolTrial }),
      ...(options.input !== undefined && { input: options.input }),
      ...(options.replay &&
        (options.replay.forkOrigin ? { forkOf: options.replay.forkOrigin } : { replayOf: options.replay.path })),
    });
    if (this.limits.wallMs !== undefined) {
      this.wallTimer = setTimeout(
        () =>
          this.finish('limit', {
            kind: 'timeout',
            message: `wall-clock limit of ${this.limits.wallMs! / 1000} s exceeded`,
          }),
        this.limits.wallMs,
      );
    }
    // The input crosses into Lua through the same gate as every other value.
    const input = options.input === undefined ? undefined : encodeForLua(options.input, 'the run input');
    if (input && !input.ok) {
      this.finish('error', { kind: 'host', message: input.error });
      return;
    }
    let worker: LuaWorker;
    try {
      worker = await options.pool.acquire();
    } catch (error) {
      this.finish('error', { kind: 'crash', message: errorMessage(error) });
      return;
    }
    if (this.ended) {
      options.pool.returnUnused(worker);
      return;
    }
    this.link = new WorkerLink(worker, this.limits.memoryBytes, {
      started: () => this.clock.resume(),
      log: (message) => this.onLog(message),
      call: (method, payload) => {
        this.clock.pause();
        void this.answer(method, payload);
      },
      end: (status, error, reusable) => this.finish(status, error, reusable),
    });
    const { logLineBytes, logsInFlight, untrustedBytes, untrustedTexts } = this.caps;
    const caps: WorkerCaps = { logLineBytes, logsInFlight, untrustedBytes, untrustedTexts };
    const start: ToWorker = {
      type: 'start',
      runId: this.id,
      script: options.script,
      chunkName: options.scriptPath,
      nonce: this.nonce,
      memoryBytes: this.limits.memoryBytes,
      caps,
    };
    if (input?.ok) start.input = input.json;
    worker.worker.postMessage(start);
  }

  /** Records that a dispatched call now waits for a person (reported by the approval gate). */
  notePending(request: ApprovalRequest, rule?: { ruleId?: string; text: string }): void {
    this.emit({
      type: 'approval-pending',
      callId: request.callId,
      alias: request.alias,
      description: request.description,
      arguments: request.arguments,
      taint: request.taint,
      ...(rule && { rule: { ...(rule.ruleId !== undefined && { id: rule.ruleId }), note: rule.text } }),
    });
  }

  /** Stops the run at once: pending calls are cancelled and the worker is terminated. */
  stop(reason = 'stopped by the user'): void {
    this.finish('stopped', { kind: 'stopped', message: reason });
  }

  private onLog(message: Extract<FromWorker, { type: 'log' }>): void {
    this.logCount += 1;
    this.logBytes += message.length;
    if (this.logCount > this.caps.logLines) {
      this.finish('limit', {
        kind: 'output',
        message: `log limit exceeded: more than ${this.caps.logLines} log lines in this run`,
      });
    } else if (this.logBytes > this.caps.logBytes) {
      this.finish('limit', {
        kind: 'output',
        message: `log limit exceeded: more than ${mib(this.caps.logBytes)} of log text in this run`,
      });
    } else {
      this.emit({ type: 'log', text: message.text });
    }
  }

  private async answer(method: string, payload: string): Promise<void> {
    let reply: HostReply;
    const failure = (message: string): HostReply => ({ ok: false, json: JSON.stringify(this.redact(message)) });
    try {
      if (method === 'untrusted') {
        this.dispatcher.recordScriptUntrusted(JSON.parse(payload) as string);
        this.reply({ ok: true, json: 'null' });
        return;
      }
      const request = JSON.parse(payload) as Record<string, unknown>;
      const value =
        method === 'models.chat'
          ? await this.driver.chat(request, this.abort.signal)
          : method === 'mcp.read_resource' || method === 'mcp.get_prompt'
            ? await this.reads.call(method, request as JsonObject, this.abort.signal)
            : await this.dispatcher.call(request, this.abort.signal);
      const what =
        method === 'models.chat'
          ? 'models.chat: the reply'
          : method === 'tools.call'
            ? `tools.call('${String(request['alias'])}'): the output`
            : `${method}: the value`;
      // The one gate for values entering Lua (bounded depth and size, JSON text), before the
      // redaction walks the value.
      const encoded = encodeForLua(value, what);
      if (encoded.ok) {
        const clean = this.redact(value);
        reply = { ok: true, json: clean === value ? encoded.json : JSON.stringify(clean) };
      } else reply = failure(encoded.error);
    } catch (error) {
      if (this.ended) return;
      if (error instanceof ScriptError) reply = failure(error.message);
      else if (error instanceof FatalRunError) {
        this.finish('error', { kind: 'host', message: error.message });
        return;
      } else if (error instanceof RunLimitError) {
        this.finish('limit', { kind: error.kind, message: error.message });
        return;
      } else {
        reply = failure(`${method}: internal error: ${errorMessage(error)}`);
      }
    }
    this.reply(reply);
  }

  /** Answers the worker's blocking host call and restarts the CPU clock. */
  private reply(reply: HostReply): void {
    if (this.ended || !this.link) return;
    this.link.reply(reply);
    this.clock.resume();
  }

  private finish(status: RunStatus, error?: EndError, reusable = false): void {
    if (this.ended) return;
    this.clock.pause();
    this.dispatcher.cancelPending(error?.message ?? 'the run ended');
    this.ended = true;
    this.clock.stop();
    clearTimeout(this.wallTimer);
    this.abort.abort(error?.message ?? 'the run ended');
    const link = this.link;
    if (link) {
      link.detach();
      // A worker stopped mid-script (stop, limit, fatal host error) is terminated; only one whose
      // script ended by itself goes back to the pool.
      this.options.pool.release(link.worker, reusable);
    }
    const result: RunResult = {
      runId: this.id,
      status,
      ...(error && { error: this.redact(error) }),
      toolCalls: this.toolCalls,
      cpuMs: this.clock.usedMs,
      durationMs: performance.now() - this.startedAt,
      ...(this.options.transcriptPath && { transcriptPath: this.options.transcriptPath }),
    };
    this.emit({
      type: 'run-end',
      status,
      ...(error && { error }),
      durationMs: result.durationMs,
      cpuMs: result.cpuMs,
      usage: { ...this.driver.usage },
      ...(this.driver.cost !== undefined && { cost: this.driver.cost }),
      toolCalls: result.toolCalls,
    });
    this.transcript?.close();
    this.resolveDone(result);
  }

  private emit(body: RunEventBody): void {
    // After run-end nothing more is recorded: late answers from a cancelled call are dropped.
    if (this.ended && body.type !== 'run-end') return;
    const event = this.redact({ ...body, seq: this.seq + 1, t: new Date().toISOString(), runId: this.id } as RunEvent);
    if (body.type !== 'run-end') {
      // Volume caps; the run-end event always goes out. An event over a cap is not recorded.
      const size = JSON.stringify(event).length;
      if (this.eventChars + size > this.caps.eventBytes) {
        this.finish('limit', {
          kind: 'output',
          message: `event limit exceeded: more than ${mib(this.caps.eventBytes)} of run events in this run`,
        });
        return;
      }
      this.eventChars += size;
    }
    let notice: string | undefined;
    if (this.transcript && !this.transcriptFailed) {
      try {
        if (!this.transcript.write(event)) {
          this.finish('limit', {
            kind: 'output',
            message: `transcript limit exceeded: the transcript reached ${mib(this.caps.transcriptBytes)}`,
          });
          return;
        }
      } catch (error) {
        // A full disk or a removed folder must not take the host down; the run goes on and
        // says, once, that its transcript stopped.
        this.transcriptFailed = true;
        notice = `[promptforge] the transcript stopped at event ${event.seq}: ${errorMessage(error)}`;
      }
    }
    this.seq = event.seq;
    this.deliver(event);
    // The notice follows the event with its own seq: views skip a seq they have already seen.
    if (notice !== undefined) this.deliver({ type: 'log', text: notice, seq: ++this.seq, t: event.t, runId: this.id });
  }

  private deliver(event: RunEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        // A failing listener (a closed window, a broken pipe) must not break the run.
        (this.options.logger ?? console).error(
          `[promptforge] run event listener failed on ${event.type} #${event.seq}: ${errorMessage(error)}`,
        );
      }
    }
  }

  /**
   * The one redaction of the run: every event (and so the transcript), every reply to the script
   * and the result's error pass here, with every secret the run knows (provider keys, http tool
   * header secrets, secret command variables; the list grows as keys are resolved).
   */
  private redact<T>(value: T): T {
    return redactDeep(value, this.options.secrets ?? []);
  }
}
