import { countStrings, hasProtoKey, type JsonObject, type JsonValue } from '../../../common/json.js';
import {
  ENVELOPE_TAG_PREFIX,
  rewrapRecordedEnvelope,
  wrapUntrusted,
  wrapUntrustedStrings,
} from '../../../common/envelope.js';
import type { RecordedDecision, RunEventBody } from '../../../common/run-events.js';
import type { TaintSpan } from '../../../common/run-events.js';
import type { ApprovalDecision, ApprovalGate } from '../approval/approval-types.js';
import { ToolFailure, type ToolCatalog, type ToolRunner, type ToolSpec, type Trust } from '../tools/tool-spec.js';
import type { ReplayRecording } from './replay.js';
import { guessName, shownName } from '../did-you-mean.js';
import { ScriptError } from './run-errors.js';
import { errorMessage } from '../../../common/error-message.js';
import { toolDefinitionDigest } from '../tools/tool-definition.js';

/** Tracks a run's untrusted outputs and flags arguments that repeat them (taint-aware approvals). */
export interface TaintChecker {
  /** Records an untrusted output: a text, or a structured value (its keys and string values). */
  recordUntrustedOutput(outputId: string, output: string | JsonValue): void;
  check(args: JsonObject): TaintSpan[];
}

/**
 * The most strings (object keys and string values) one call's arguments may hold. Every one is
 * checked for taint on the host's main thread, at roughly 10-20 µs each, so a call with hundreds of
 * thousands of keys would stall the studio for seconds; ten thousand is far more than any tool's
 * arguments need.
 */
const MAX_ARGUMENT_STRINGS = 10_000;

/** What a dispatcher needs from its run. */
export interface ToolDispatcherOptions {
  runId: string;
  nonce: string;
  catalog: ToolCatalog;
  runner: ToolRunner;
  gate: ApprovalGate;
  taint?: TaintChecker;
  replay?: ReplayRecording;
  /** Told which call is running (its tool runs), and `undefined` when it ends: an MCP server's questions name it. */
  onRunning?(call: { callId: string; alias: string } | undefined): void;
  /** Finds the model's requested call a dispatch answers (see ModelDriver.claimRequested). */
  claimRequested?(alias: string, args: JsonObject): string | undefined;
  emit(event: RunEventBody): void;
}

type FailStage = 'unknown-tool' | 'validation' | 'denied' | 'cancelled' | 'run' | 'output';
/** How trusted a call's outcome is, and which earlier outputs its arguments carried. */
interface Provenance {
  trust: Trust;
  taintedBy: string[];
}
/** Records the call's failure and throws it to the script; `signIn` names the MCP server a sign-in would mend it for. */
type Fail = (stage: FailStage, message: string, provenance?: Provenance, signIn?: string) => never;

/**
 * The host side of `tools.call`: counts every attempt, checks the alias and the arguments, asks the
 * approval gate, runs the tool, turns structured output into a table and wraps untrusted output in
 * the run's envelope. In replay mode the outcome comes from the recording instead of the tool, but
 * its trust still comes from the run's catalog: a recorded `trust` label only lowers it, and a
 * recorded approval decision is reported (source `replay`) and never counts for a live call.
 *
 * Taint follows the data: a call whose final arguments carry tainted spans produces untrusted
 * output (wrapped, flagged `trust: 'untrusted'` with `taintedBy`, and recorded so taint chains),
 * whatever the tool's own trust. The tool-produced part of an untrusted call's error is wrapped
 * and recorded the same way; the host's own words stay outside the envelope.
 */
export class ToolDispatcher {
  /** tools.calls, host side: every attempted dispatch per alias. */
  readonly counts: Record<string, number> = {};
  private sequence = 0;
  /** How many texts the script marked with `untrusted()`. */
  private scriptUntrusted = 0;
  /** The call waiting for a decision, if any. */
  private pending: { callId: string; alias: string; args: JsonObject } | undefined;

  constructor(private readonly options: ToolDispatcherOptions) {}

  /**
   * Records text the script itself marked with `untrusted()`, as `untrusted()#N`: a later call
   * whose arguments repeat it is tainted, as if a tool had returned it.
   */
  recordScriptUntrusted(text: string): void {
    this.scriptUntrusted += 1;
    this.options.taint?.recordUntrustedOutput(`untrusted()#${this.scriptUntrusted}`, text);
  }

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

    const fail: Fail = (stage, message, provenance, signIn) => {
      const marks = provenance?.trust === 'untrusted' && {
        trust: provenance.trust,
        ...(provenance.taintedBy.length > 0 && { taintedBy: provenance.taintedBy }),
      };
      emit({ type: 'tool-error', callId, alias, stage, message, ...marks, ...(signIn !== undefined && { signIn }) });
      throw new ScriptError(message);
    };

    if (payload.argsError !== undefined) fail('validation', `tools.call('${alias}'): ${String(payload.argsError)}`);
    if (Array.isArray(payload.args) && payload.args.length > 0)
      fail('validation', `tools.call('${alias}'): args must be a table of named arguments, not a list`);
    // JSON.parse keeps a "__proto__" key as a plain key, and the tool would receive it, but every
    // copy on the way to the approval card (the contract's schemas) drops it: the person would
    // approve arguments they never saw. Such a call is refused before anyone is asked.
    if (hasProtoKey(args))
      fail(
        'validation',
        `tools.call('${alias}'): the arguments hold a key named "__proto__", which cannot be shown for approval as it is; rename the key`,
      );
    if (countStrings(args, MAX_ARGUMENT_STRINGS) > MAX_ARGUMENT_STRINGS)
      fail(
        'validation',
        `tools.call('${alias}'): the arguments hold more than ${MAX_ARGUMENT_STRINGS} strings (keys and string values); pass fewer, larger strings, or one JSON text`,
      );

    // A replay answers every call from its recording; a live fork only those up to its step.
    if (this.options.replay?.answersNextDispatch()) return this.replayed(callId, alias, args, fail);

    if (!this.options.catalog.get(alias)) await this.options.catalog.prepare?.([alias]);
    const tool = this.options.catalog.get(alias);
    // A near name of the catalog is offered whether or not a failed server may own the alias (one
    // with an empty prefix may own every alias: a typo is then "not available" too).
    const meant = tool
      ? ''
      : guessName(
          alias,
          this.options.catalog.list().map((known) => known.alias),
          'value',
          '',
        ).meant;
    const unavailable = tool ? undefined : this.options.catalog.unavailable?.(alias);
    if (unavailable) {
      // A tool that is not in the catalog has no trust of its own: what its server said is untrusted.
      const { message, quotesTool } = this.failureMessage(
        callId,
        `tools.call: tool "${shownName(alias)}" is not available: `,
        new ToolFailure(unavailable.reason, unavailable.toolText),
        'untrusted',
      );
      return fail(
        'unknown-tool',
        `${message}${meant}`,
        quotesTool ? { trust: 'untrusted', taintedBy: [] } : undefined,
        unavailable.signIn,
      );
    }
    if (!tool)
      return fail(
        'unknown-tool',
        `tools.call: unknown tool "${shownName(alias)}" (not in this agent's catalog)${meant}`,
      );
    const invalid = this.options.catalog.validateArguments(alias, args);
    // The catalog's message may already start with "invalid arguments:"; say it once.
    if (invalid)
      fail(
        'validation',
        `tools.call('${alias}'): ${invalid.startsWith('invalid arguments') ? invalid : `invalid arguments: ${invalid}`}`,
      );

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
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- the run's end clears it during the wait
    if (this.pending?.callId !== callId)
      return fail('cancelled', `tools.call('${alias}') was cancelled: the run ended`);
    this.pending = undefined;
    this.emitDecision(callId, alias, args, decision);
    if (decision.kind === 'deny') fail('denied', `tools.call('${alias}') was denied: ${decision.reason}`);
    if (decision.kind === 'cancelled') fail('cancelled', `tools.call('${alias}') was cancelled: ${decision.reason}`);
    const finalArgs = decision.kind === 'approve-edited' ? decision.arguments : args;
    // What runs is the definition the decision was made on: a tool redefined (or moved to another
    // server) while the person decided is not run under the old consent.
    const approved = this.options.catalog.get(alias);
    if (!approved)
      fail('denied', `tools.call('${alias}') was not run: the tool is no longer in the catalog it was approved in`);
    if (decision.definitionDigest !== undefined && toolDefinitionDigest(approved) !== decision.definitionDigest)
      fail(
        'denied',
        `tools.call('${alias}') was not run: the tool's definition changed after it was approved; call it again to be asked about the new one`,
      );
    const stillValid = this.options.catalog.validateArguments(alias, finalArgs);
    if (stillValid)
      fail('validation', `tools.call('${alias}'): invalid arguments for the tool as it is now: ${stillValid}`);
    const provenance = this.provenance(approved.trust, finalArgs === args ? taint : undefined, finalArgs);

    const started = performance.now();
    let raw: string;
    this.options.onRunning?.({ callId, alias });
    try {
      raw = await this.options.runner.run(approved, finalArgs, signal);
    } catch (error) {
      const { message, quotesTool } = this.failureMessage(
        callId,
        `tools.call('${alias}') failed: `,
        error,
        provenance.trust,
      );
      const signIn = error instanceof ToolFailure ? error.signIn : undefined;
      return fail('run', message, quotesTool ? provenance : undefined, signIn);
    } finally {
      this.options.onRunning?.(undefined);
    }
    return this.deliver(callId, approved, provenance, raw, performance.now() - started, fail);
  }

  /** The outcome's trust: untrusted when the tool is, or when the arguments carry tainted spans. */
  private provenance(trust: Trust, known: TaintSpan[] | undefined, args: JsonObject): Provenance {
    const spans = known ?? this.options.taint?.check(args) ?? [];
    const taintedBy = [...new Set(spans.map((span) => span.sourceOutputId))];
    return { trust: trust === 'untrusted' || taintedBy.length > 0 ? 'untrusted' : 'trusted', taintedBy };
  }

  /**
   * `prefix` and the failure (`tools.call('x') failed: ...`). For an untrusted outcome the text the
   * tool produced (a ToolFailure's `toolText`, or the whole message of an unexpected error) goes
   * inside the envelope and into the taint tracker; a ToolFailure's own words are host text and stay
   * outside.
   */
  private failureMessage(
    callId: string,
    prefix: string,
    error: unknown,
    trust: Trust,
  ): { message: string; quotesTool: boolean } {
    let host: string;
    let toolText: string | undefined;
    if (error instanceof ToolFailure) {
      const cut = error.toolText !== undefined && error.message.endsWith(error.toolText);
      // Tool text that does not end the message cannot be told from the host's words: all of it is the tool's.
      host = cut
        ? error.message.slice(0, error.message.length - error.toolText.length)
        : error.toolText
          ? ''
          : error.message;
      toolText = cut ? error.toolText : error.toolText ? error.message : undefined;
    } else {
      host = '';
      toolText = errorMessage(error);
    }
    if (toolText === undefined) return { message: `${prefix}${host}`, quotesTool: false };
    return { message: `${prefix}${host}${this.toolPart(callId, toolText, trust)}`, quotesTool: true };
  }

  /**
   * Text of a message that quotes what the tool produced (a JSON parse error's excerpt, a schema
   * mismatch naming values): as it is for a trusted outcome, else wrapped and recorded as taint.
   */
  private toolPart(callId: string, text: string, trust: Trust): string {
    if (trust === 'trusted') return text;
    this.options.taint?.recordUntrustedOutput(callId, text);
    return wrapUntrusted(text, this.options.nonce);
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
    tool: Pick<ToolSpec, 'alias' | 'outputSchema'>,
    provenance: Provenance,
    raw: string,
    durationMs: number,
    fail: Fail,
    recorded = false,
  ): JsonValue {
    const { alias } = tool;
    const { trust, taintedBy } = provenance;
    const structured = tool.outputSchema !== undefined;
    let value: JsonValue = raw;
    if (structured) {
      try {
        value = JSON.parse(raw) as JsonValue;
      } catch (error) {
        fail(
          'output',
          `tools.call('${alias}'): the tool declares structured output but returned invalid JSON (${this.toolPart(callId, errorMessage(error), trust)})`,
          provenance,
        );
      }
      // A replayed output was validated when it was recorded.
      const invalid = recorded ? undefined : this.options.catalog.validateOutput(alias, value);
      if (invalid)
        fail(
          'output',
          `tools.call('${alias}'): the output does not match the tool's output schema: ${this.toolPart(callId, invalid, trust)}`,
          provenance,
        );
    }
    this.options.emit({
      type: 'tool-output',
      callId,
      alias,
      trust,
      output: raw,
      structured,
      durationMs,
      ...(taintedBy.length > 0 && { taintedBy }),
    });
    if (trust === 'trusted') return value;
    // What the script receives: the text, or the decoded keys and strings of structured output.
    this.options.taint?.recordUntrustedOutput(callId, value);
    return typeof value === 'string'
      ? wrapUntrusted(value, this.options.nonce)
      : wrapUntrustedStrings(value, this.options.nonce);
  }

  private emitDecision(callId: string, alias: string, proposed: JsonObject, decision: ApprovalDecision): void {
    const recorded: RecordedDecision = { kind: decision.kind, source: decision.source, at: decision.at };
    if ('reason' in decision) recorded.reason = decision.reason;
    if ('scope' in decision) recorded.scope = decision.scope;
    if (decision.kind === 'approve-edited') recorded.arguments = decision.arguments;
    if (decision.kind === 'allow-for-run' && decision.taintCheck !== undefined)
      recorded.taintCheck = decision.taintCheck;
    if (decision.decidedBy !== undefined) recorded.decidedBy = decision.decidedBy;
    if (decision.rule !== undefined) recorded.rule = decision.rule;
    if (decision.ruleNote !== undefined) recorded.ruleNote = decision.ruleNote;
    this.options.emit({ type: 'approval-decision', callId, alias, proposedArguments: proposed, decision: recorded });
  }

  private replayed(callId: string, alias: string, args: JsonObject, fail: Fail): JsonValue {
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
    // The recording is an input, not an authority: how far an outcome is trusted comes from this
    // run's catalog (a tool it does not have, removed since the recording, is untrusted) and from
    // the taint of the arguments. A recorded label can only lower that, never raise it.
    const provenance = this.provenance(this.options.catalog.get(alias)?.trust ?? 'untrusted', undefined, args);
    if (recorded.outcome.kind === 'error') {
      const { stage, message } = recorded.outcome;
      if (!message.includes(`<${ENVELOPE_TAG_PREFIX}`)) {
        // An untrusted call's failure may quote the tool, and a recording may have lost (or been
        // stripped of) the envelope that marked the quote: the whole text counts as tainted, so a
        // later call repeating it is asked about.
        if (provenance.trust === 'untrusted' && (stage === 'run' || stage === 'output'))
          this.options.taint?.recordUntrustedOutput(callId, message);
        return fail(stage, message, provenance);
      }
      // A recorded envelope carries the recording's nonce: give it this run's, and treat what it
      // wraps as untrusted output again.
      this.options.taint?.recordUntrustedOutput(callId, message);
      return fail(stage, rewrapRecordedEnvelope(message, this.options.nonce), { ...provenance, trust: 'untrusted' });
    }
    const { output, trust, structured } = recorded.outcome;
    return this.deliver(
      callId,
      { alias, ...(structured && { outputSchema: {} }) },
      { ...provenance, trust: trust === 'untrusted' ? trust : provenance.trust },
      output,
      0,
      fail,
      true,
    );
  }
}
