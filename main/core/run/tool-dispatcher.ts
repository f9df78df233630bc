import type { JsonObject, JsonValue } from '../../../common/json.js';
import { wrapUntrusted, wrapUntrustedStrings } from '../../../common/envelope.js';
import type { RecordedDecision, RunEventBody } from '../../../common/run-events.js';
import type { ApprovalDecision, ApprovalGate, TaintSpan } from '../approval/approval-types.js';
import { ToolFailure, type ToolCatalog, type ToolRunner, type ToolSpec } from '../tools/tool-spec.js';
import type { ReplayRecording } from './replay.js';
import { ScriptError } from './run-errors.js';

/** Tracks a run's untrusted outputs and flags arguments that repeat them (taint-aware approvals). */
export interface TaintChecker {
  recordUntrustedOutput(outputId: string, text: string): void;
  check(args: JsonObject): TaintSpan[];
}

/** What a dispatcher needs from its run. */
export interface ToolDispatcherOptions {
  runId: string;
  nonce: string;
  catalog: ToolCatalog;
  runner: ToolRunner;
  gate: ApprovalGate;
  taint?: TaintChecker;
  replay?: ReplayRecording;
  /** Finds the model's requested call a dispatch answers (see ModelDriver.claimRequested). */
  claimRequested?(alias: string, args: JsonObject): string | undefined;
  emit(event: RunEventBody): void;
}

/**
 * The host side of `tools.call`: counts every attempt, checks the alias and the arguments, asks the
 * approval gate, runs the tool, turns structured output into a table and wraps untrusted output in
 * the run's envelope. In replay mode the outcome comes from the recording instead of the tool.
 */
export class ToolDispatcher {
  /** tools.calls, host side: every attempted dispatch per alias. */
  readonly counts: Record<string, number> = {};
  private sequence = 0;
  /** The call waiting for a decision, if any. */
  private pending: { callId: string; alias: string; args: JsonObject } | undefined;

  constructor(private readonly options: ToolDispatcherOptions) {}

  async call(
    payload: { alias?: unknown; args?: unknown; argsError?: unknown },
    signal: AbortSignal,
  ): Promise<JsonValue> {
    const alias = String(payload.alias);
    const count = (this.counts[alias] ?? 0) + 1;
    this.counts[alias] = count;
    const callId = `call-${++this.sequence}`;
    const args: JsonObject =
      typeof payload.args === 'object' && payload.args !== null && !Array.isArray(payload.args)
        ? (payload.args as JsonObject)
        : {};
    const { emit } = this.options;
    const requestedCallId = this.options.claimRequested?.(alias, args);
    emit({ type: 'tool-dispatch', callId, alias, ...(requestedCallId && { requestedCallId }), arguments: args, count });

    const fail = (
      stage: 'unknown-tool' | 'validation' | 'denied' | 'cancelled' | 'run' | 'output',
      message: string,
    ): never => {
      emit({ type: 'tool-error', callId, alias, stage, message });
      throw new ScriptError(message);
    };

    if (payload.argsError !== undefined) fail('validation', `tools.call('${alias}'): ${String(payload.argsError)}`);
    if (Array.isArray(payload.args) && payload.args.length > 0)
      fail('validation', `tools.call('${alias}'): args must be a table of named arguments, not a list`);

    if (this.options.replay) return this.replayed(callId, alias, args, fail);

    const tool = this.options.catalog.get(alias);
    if (!tool) return fail('unknown-tool', `tools.call: unknown tool "${alias}" (not in this agent's catalog)`);
    const invalid = this.options.catalog.validateArguments(alias, args);
    if (invalid) fail('validation', `tools.call('${alias}'): invalid arguments: ${invalid}`);

    const taint = this.options.taint?.check(args) ?? [];
    this.pending = { callId, alias, args };
    const decision = await this.options.gate.decide(
      {
        runId: this.options.runId,
        callId,
        alias,
        description: tool.description,
        arguments: args,
        policy: tool.approval,
        taint,
      },
      signal,
    );
    if (this.pending?.callId !== callId)
      return fail('cancelled', `tools.call('${alias}') was cancelled: the run ended`);
    this.pending = undefined;
    this.emitDecision(callId, alias, args, decision);
    if (decision.kind === 'deny') fail('denied', `tools.call('${alias}') was denied: ${decision.reason}`);
    if (decision.kind === 'cancelled') fail('cancelled', `tools.call('${alias}') was cancelled: ${decision.reason}`);
    const finalArgs = decision.kind === 'approve-edited' ? decision.arguments : args;

    const started = performance.now();
    let raw: string;
    try {
      raw = await this.options.runner.run(tool, finalArgs, signal);
    } catch (error) {
      const what = error instanceof ToolFailure || error instanceof Error ? error.message : String(error);
      return fail('run', `tools.call('${alias}') failed: ${what}`);
    }
    return this.deliver(callId, tool, raw, performance.now() - started, fail);
  }

  /**
   * Records the call that is waiting for a decision as cancelled (the run is ending). It never runs:
   * whatever the gate answers later is ignored.
   */
  cancelPending(reason: string): void {
    const pending = this.pending;
    if (!pending) return;
    this.pending = undefined;
    const at = new Date().toISOString();
    this.emitDecision(pending.callId, pending.alias, pending.args, { kind: 'cancelled', reason, source: 'policy', at });
    this.options.emit({
      type: 'tool-error',
      callId: pending.callId,
      alias: pending.alias,
      stage: 'cancelled',
      message: `tools.call('${pending.alias}') was cancelled: ${reason}`,
    });
  }

  private deliver(
    callId: string,
    tool: Pick<ToolSpec, 'alias' | 'trust' | 'outputSchema'>,
    raw: string,
    durationMs: number,
    fail: (stage: 'output', message: string) => never,
  ): JsonValue {
    const { alias, trust } = tool;
    const structured = tool.outputSchema !== undefined;
    let value: JsonValue = raw;
    if (structured) {
      try {
        value = JSON.parse(raw) as JsonValue;
      } catch (error) {
        fail(
          'output',
          `tools.call('${alias}'): the tool declares structured output but returned invalid JSON (${(error as Error).message})`,
        );
      }
      // A replayed output was validated when it was recorded.
      const invalid = this.options.replay ? undefined : this.options.catalog.validateOutput(alias, value);
      if (invalid)
        fail('output', `tools.call('${alias}'): the output does not match the tool's output schema: ${invalid}`);
    }
    this.options.emit({ type: 'tool-output', callId, alias, trust, output: raw, structured, durationMs });
    if (trust === 'trusted') return value;
    this.options.taint?.recordUntrustedOutput(callId, raw);
    return typeof value === 'string'
      ? wrapUntrusted(value, this.options.nonce)
      : wrapUntrustedStrings(value, this.options.nonce);
  }

  private emitDecision(callId: string, alias: string, proposed: JsonObject, decision: ApprovalDecision): void {
    const recorded: RecordedDecision = { kind: decision.kind, source: decision.source, at: decision.at };
    if ('reason' in decision && decision.reason !== undefined) recorded.reason = decision.reason;
    if (decision.kind === 'approve-edited') recorded.arguments = decision.arguments;
    this.options.emit({ type: 'approval-decision', callId, alias, proposedArguments: proposed, decision: recorded });
  }

  private replayed(
    callId: string,
    alias: string,
    args: JsonObject,
    fail: (stage: 'unknown-tool' | 'validation' | 'denied' | 'cancelled' | 'run' | 'output', message: string) => never,
  ): JsonValue {
    const recorded = this.options.replay!.nextDispatch(alias, args);
    if (recorded.decision) {
      this.options.emit({
        type: 'approval-decision',
        callId,
        alias,
        proposedArguments: args,
        decision: { ...recorded.decision, source: 'replay' },
      });
    }
    if (recorded.outcome.kind === 'error') return fail(recorded.outcome.stage, recorded.outcome.message);
    const { output, trust, structured } = recorded.outcome;
    return this.deliver(callId, { alias, trust, ...(structured && { outputSchema: {} }) }, output, 0, fail);
  }
}
