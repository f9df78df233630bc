import type { JsonObject } from '../../../common/json.js';
import type { ToolCatalog } from '../tools/tool-spec.js';
import { toolDefinitionChange, toolDefinitionDigest, type DefinedTool } from '../tools/tool-definition.js';
import type {
  ApprovalDecision,
  ApprovalGate,
  ApprovalRequest,
  DecisionOrigin,
  DecisionSource,
} from './approval-types.js';
import type { TaintSpan } from '../../../common/run-events.js';
import { planDecision, type GatePlan, type GateRuleSource } from './gate-plan.js';
import type { Approver, PendingCall, PendingDefinitionChange, PersonDecision } from './approver.js';
import { errorMessage } from '../../../common/error-message.js';
import { ask, digestOf, nested, whenAborted, withScope } from './decision-scope.js';

/** Spans of `a`, then those of `b` not already there. */
function unionSpans(a: TaintSpan[], b: TaintSpan[]): TaintSpan[] {
  const seen = new Set(a.map((span) => JSON.stringify(span)));
  return [...a, ...b.filter((span) => !seen.has(JSON.stringify(span)))];
}

/** What the gate reports, for the transcript and the studio. */
export type GateEvent =
  | { type: 'approval-pending'; pending: PendingCall }
  | { type: 'approval-edit-rejected'; request: ApprovalRequest; arguments: JsonObject; message: string }
  | {
      type: 'approval-resolved';
      request: ApprovalRequest;
      decision: ApprovalDecision;
      /** The arguments the script proposed (an approve-edited decision also holds the edited ones). */
      proposed: JsonObject;
      /** Whether a person (or the approver standing in for one) was asked. */
      asked: boolean;
    };

/** Options of {@link ApprovalGateImpl}. */
export interface ApprovalGateOptions {
  approver: Approver;
  onEvent?(event: GateEvent): void;
  /**
   * The run's catalog: edited arguments are validated against the tool's schema, and a request
   * without `taintCheck` gets the tool's setting. Without it, edits are only checked to be objects.
   */
  catalog?: Pick<ToolCatalog, 'get' | 'validateArguments'>;
  /** Clock for decision times. Default: the system clock. */
  now?: () => Date;
  /** How many invalid edits in a row before the call is denied. Default 3. */
  maxRejectedEdits?: number;
  /** The person's approval rules (main/core/rules); without them only the tool's policy and taint decide. */
  rules?: GateRuleSource;
  /** The run's taint tracker, for the sink rule (arguments marked as sinks ask at a lower threshold). */
  taint?: { checkSinks(args: JsonObject, sinks: readonly string[]): TaintSpan[] };
}

/** One asking of a person in flight: the definition its card shows, and how to withdraw it. */
interface Asking {
  alias: string;
  /** The definition the card shows; undefined when the gate's catalog does not have the tool. */
  spec: DefinedTool | undefined;
  digest: string | undefined;
  /** Ends the asking so the gate asks again with the current definition (idempotent). */
  withdraw(): void;
}

/** The key of a decision bound to no definition (the gate has no catalog entry for the tool). */
const NO_DEFINITION = '';

/**
 * The approval gate. In order (planDecision in main/core/approval/gate-plan.ts; docs/catalogs.md,
 * "The order"):
 * - the signal is already aborted: `cancelled`;
 * - the person's rules, when the run has them: a deny rule denies, an ask rule asks, a confirmed
 *   allow rule runs the call unless a sink or a non-tolerant argument carries untrusted text; a
 *   rules file that cannot be read makes every call ask;
 * - `deny`: denied by policy, the person is never asked;
 * - `auto` and not tainted: approved by policy;
 * - `ask`, not tainted, and the person chose "allow for this run" for this alias earlier in this
 *   run, under the same tool definition: approved by policy with reason `allowed for this run`;
 * - otherwise (`ask`, or tainted `auto`/allowed `ask` with taintCheck on): the person decides.
 * A tool with taintCheck off is treated as untainted. Every decision carries its time and source
 * and is reported with the proposed arguments.
 *
 * Consent is bound to content: the gate looks the tool up in its catalog when it decides and
 * binds the call to the digest of that definition (`toolDefinitionDigest`: description, schemas,
 * annotations, trust, taint check and what runs). "Allow for this run" covers that definition
 * only: when the server or the catalog redefines the alias, the next call asks again, and its card
 * says what changed. An allowance comes back if the definition returns to exactly what was
 * allowed (the person allowed that content; a server's behaviour was never bound by it anyway).
 * A card whose tool changes while it is open is withdrawn and asked again with the change shown
 * ({@link ApprovalGateImpl.definitionsChanged}); a decision that lets the call run is re-checked
 * against the current definition first, and does not count when it changed. A denial always
 * counts.
 */
export class ApprovalGateImpl implements ApprovalGate {
  /** Run id → alias → the definitions allowed for the run (digest → that definition). */
  private readonly allowedForRun = new Map<string, Map<string, Map<string, DefinedTool | undefined>>>();
  /** Run id → alias → the definition the tool's last card in that run showed. */
  private readonly lastShown = new Map<string, Map<string, DefinedTool>>();
  private readonly asking = new Set<Asking>();
  private readonly now: () => Date;

  constructor(private readonly options: ApprovalGateOptions) {
    this.now = options.now ?? (() => new Date());
  }

  async decide(given: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> {
    // The definition the call is asked under: the catalog's, now.
    const spec = this.definitionOf(given.alias);
    const { definitionDigest: _callers, ...rest } = given;
    const request: ApprovalRequest = spec ? { ...rest, definitionDigest: toolDefinitionDigest(spec) } : rest;
    const policy = (kind: 'approve' | 'deny', reason: string): ApprovalDecision =>
      kind === 'approve'
        ? { kind: 'approve', source: 'policy', at: this.timestamp(), reason, ...digestOf(request) }
        : { kind: 'deny', source: 'policy', at: this.timestamp(), reason };

    if (signal.aborted) return this.finish(request, this.cancelled(signal), false);
    const rules = this.options.rules;
    const verdict = rules && !rules.broken ? rules.verdict(request, spec) : undefined;
    const sinks = verdict?.marks.sinks ?? [...(spec?.sinks ?? [])];
    const sinkTaint = sinks.length > 0 ? (this.options.taint?.checkSinks(request.arguments, sinks) ?? []) : [];
    const plan = planDecision({
      request,
      taintCheck: this.taintCheckOf(request),
      ...(verdict && { verdict }),
      ...(rules?.broken && { rulesBroken: { file: rules.file } }),
      sinkTaint,
      allowedForRun: () =>
        this.isAllowedForRun(request.runId, request.alias, request.definitionDigest ?? NO_DEFINITION),
    });
    const origin = (decidedBy: NonNullable<DecisionOrigin['decidedBy']>, ruleId?: string): DecisionOrigin => ({
      decidedBy,
      ...(ruleId !== undefined && { rule: ruleId }),
      // Said when a rule covers the call (decided, outranked, unconfirmed or not matched), not for every call.
      ...(verdict &&
        (verdict.rule || verdict.unconfirmed || verdict.considered.length > 0) && { ruleNote: verdict.note.text }),
    });
    if (plan.kind === 'deny')
      return this.finish(request, policy('deny', plan.reason), false, origin(plan.decidedBy, plan.ruleId));
    if (plan.kind === 'approve') {
      if (plan.ruleId !== undefined) rules?.used(plan.ruleId, request.alias, this.timestamp());
      return this.finish(request, policy('approve', plan.reason), false, origin(plan.decidedBy, plan.ruleId));
    }
    const shown: ApprovalRequest = { ...request, taint: unionSpans(request.taint, plan.taint) };
    return this.askPerson(shown, spec, plan.reason, signal, { plan, sinks });
  }

  /**
   * Whether the person chose "allow for this run" for `alias` in run `runId`, under the definition
   * whose digest is `digest` (default: the gate's catalog's current definition of the tool).
   */
  isAllowedForRun(runId: string, alias: string, digest?: string): boolean {
    const key = digest ?? this.digestNow(alias);
    return this.allowedForRun.get(runId)?.get(alias)?.has(key) ?? false;
  }

  /** Drops a finished run's "allow for this run" memory and the definitions its cards showed. */
  forgetRun(runId: string): void {
    this.allowedForRun.delete(runId);
    this.lastShown.delete(runId);
  }

  /**
   * Re-checks every call waiting for a person against the catalog's current definitions: each one
   * whose tool changed since its card was shown is withdrawn and asked again, its card saying what
   * changed (a tool that left the catalog stays asked as shown; a decision to run it is refused).
   * Call it when the catalog's definitions change. Returns how many calls were asked again.
   */
  definitionsChanged(): number {
    let withdrawn = 0;
    for (const asking of this.asking) {
      if (asking.spec === undefined) continue;
      const now = this.definitionOf(asking.alias);
      if (now === undefined || toolDefinitionDigest(now) === asking.digest) continue;
      asking.withdraw();
      withdrawn += 1;
    }
    return withdrawn;
  }

  private async askPerson(
    first: ApprovalRequest,
    firstSpec: DefinedTool | undefined,
    reason: PendingCall['reason'],
    signal: AbortSignal,
    context: { plan: Extract<GatePlan, { kind: 'ask' }>; sinks: string[] },
  ): Promise<ApprovalDecision> {
    const { plan } = context;
    const noteText = plan.note?.text;
    const byApprover: DecisionOrigin = {
      decidedBy: 'approver',
      ...(plan.note?.ruleId !== undefined && { rule: plan.note.ruleId }),
      ...(noteText !== undefined && { ruleNote: noteText }),
    };
    const approver = this.options.approver;
    const maxRejected = this.options.maxRejectedEdits ?? 3;
    let request = first;
    let spec = firstSpec;
    let change = this.changeSinceEarlier(request, spec);
    let rejectedEdit: string | undefined;
    let rejectedEdits = 0;
    /** The asking this one replaces (its tool changed while it was open): ended once the new one is out. */
    let replaced: AbortController | undefined;
    for (;;) {
      const asked = new AbortController();
      const onStop = () => asked.abort(signal.reason);
      signal.addEventListener('abort', onStop, { once: true });
      let withdraw!: () => void;
      const withdrawn = new Promise<'withdrawn'>((resolve) => (withdraw = () => resolve('withdrawn')));
      const asking: Asking = { alias: request.alias, spec, digest: request.definitionDigest, withdraw };
      const alias = request.alias;
      const pending: PendingCall = {
        request,
        reason,
        askedAt: this.timestamp(),
        ...(rejectedEdit !== undefined ? { rejectedEdit } : {}),
        taintCheck: this.taintCheckOf(request),
        validateEdit: (args) => this.validateEdit(alias, args),
        ...(change !== undefined ? { definitionChange: change } : {}),
        recheckDefinition: () => this.recheck(asking),
        ...(plan.note && { rule: plan.note }),
        ...(context.sinks.length > 0 && { sinks: context.sinks }),
        ...(spec?.annotations && { annotations: spec.annotations }),
      };
      this.asking.add(asking);
      if (spec) nested(this.lastShown, request.runId).set(request.alias, spec);
      this.options.onEvent?.({ type: 'approval-pending', pending });
      let outcome: PersonDecision | 'aborted' | 'withdrawn';
      try {
        const answer = ask(approver, pending, asked.signal);
        // The new asking is out (a queue puts it in the old card's place): now end the old one.
        replaced?.abort(new Error(`tool "${request.alias}" changed; the call is asked again`));
        replaced = undefined;
        outcome = await Promise.race([answer, withdrawn, whenAborted(asked.signal)]);
      } catch (error) {
        if (signal.aborted) return this.finish(request, this.cancelled(signal), true, { decidedBy: 'cancelled' });
        return this.finish(
          request,
          {
            kind: 'deny',
            reason: `no decision could be obtained: ${errorMessage(error)}`,
            source: approver.source ?? 'studio',
            at: this.timestamp(),
          },
          true,
          byApprover,
        );
      } finally {
        this.asking.delete(asking);
        signal.removeEventListener('abort', onStop);
      }
      if (outcome === 'aborted' || signal.aborted)
        return this.finish(request, this.cancelled(signal), true, { decidedBy: 'cancelled' });
      const at = this.timestamp();

      // A decision that lets the call run counts only for the definition its card showed; a
      // withdrawn asking is asked again with the current one. A denial always counts.
      if (outcome === 'withdrawn') replaced = asked;
      if (spec !== undefined && (outcome === 'withdrawn' || outcome.kind !== 'deny')) {
        const now = this.definitionOf(request.alias);
        if (now === undefined) {
          replaced?.abort(new Error(`tool "${request.alias}" left the catalog`));
          return this.finish(
            request,
            {
              kind: 'deny',
              reason: `tool "${request.alias}" is no longer in this run's catalog (it was removed while the call waited); the decision was not applied`,
              source: 'policy',
              at,
            },
            true,
            byApprover,
          );
        }
        const digest = toolDefinitionDigest(now);
        if (digest !== request.definitionDigest) {
          change = { since: 'open', ...toolDefinitionChange(spec, now) };
          request = { ...request, description: now.description, policy: now.approval, definitionDigest: digest };
          spec = now;
          rejectedEdit = undefined;
          if (now.approval === 'deny') {
            replaced?.abort(new Error(`tool "${request.alias}" changed`));
            return this.finish(
              request,
              {
                kind: 'deny',
                reason: `tool "${request.alias}" changed while the call waited, and now has approval: deny`,
                source: 'policy',
                at,
              },
              true,
              byApprover,
            );
          }
          continue;
        }
        // Withdrawn, but the definition is back to what the card showed: asked again as it was.
        if (outcome === 'withdrawn') continue;
      }
      if (outcome === 'withdrawn') continue;

      const person = outcome;
      const source: DecisionSource = person.source ?? approver.source ?? 'studio';
      const bound = digestOf(request);
      // A person's yes (never an --approve flag's) confirms the allow rule on this definition.
      if (
        plan.confirmRule !== undefined &&
        source !== 'policy' &&
        person.kind !== 'deny' &&
        request.definitionDigest !== undefined
      )
        await Promise.all([
          this.options.rules?.confirmed(plan.confirmRule, {
            alias: request.alias,
            digest: request.definitionDigest,
            at,
          }),
          spec && this.options.rules?.remember(request.definitionDigest, spec),
        ]).catch(() => undefined);
      switch (person.kind) {
        case 'approve':
          return this.finish(
            request,
            {
              kind: 'approve',
              source,
              at,
              ...(person.reason !== undefined ? { reason: person.reason } : {}),
              ...bound,
            },
            true,
            byApprover,
          );
        case 'deny':
          return this.finish(
            request,
            { kind: 'deny', reason: person.reason.trim() || 'denied', source, at },
            true,
            byApprover,
          );
        case 'allow-for-run': {
          // The latest allowed definition last: a later change is described against it.
          const allowed = nested(nested(this.allowedForRun, request.runId), request.alias);
          allowed.delete(request.definitionDigest ?? NO_DEFINITION);
          allowed.set(request.definitionDigest ?? NO_DEFINITION, spec);
          return this.finish(request, { kind: 'allow-for-run', source, at, ...bound }, true, byApprover);
        }
        case 'approve-edited': {
          const problem = this.validateEdit(request.alias, person.arguments);
          if (problem === undefined) {
            return this.finish(
              request,
              {
                kind: 'approve-edited',
                arguments: structuredClone(person.arguments),
                proposed: request.arguments,
                source,
                at,
                ...bound,
              },
              true,
              byApprover,
            );
          }
          this.options.onEvent?.({
            type: 'approval-edit-rejected',
            request,
            arguments: person.arguments,
            message: problem,
          });
          rejectedEdit = problem;
          rejectedEdits += 1;
          if (rejectedEdits >= maxRejected) {
            return this.finish(
              request,
              { kind: 'deny', reason: `edited arguments were rejected: ${problem}`, source, at },
              true,
              byApprover,
            );
          }
          break;
        }
        default:
          return this.finish(
            request,
            { kind: 'deny', reason: 'the approver gave an unknown decision', source, at },
            true,
            byApprover,
          );
      }
    }
  }

  /** See {@link PendingCall.recheckDefinition}. */
  private recheck(asking: Asking): string | undefined {
    if (asking.spec === undefined) return undefined;
    const now = this.definitionOf(asking.alias);
    if (now === undefined)
      return `tool "${asking.alias}" is no longer in this run's catalog, so the call cannot run now; deny it, or wait until the tool is back`;
    if (toolDefinitionDigest(now) === asking.digest) return undefined;
    asking.withdraw();
    return `tool "${asking.alias}" changed while its card was open, so the decision was not applied; the card now shows what changed: decide again`;
  }

  /**
   * How the tool differs from the definition the person allowed for this run (when that is not
   * the current one), else from the one its last card in this run showed; undefined when neither.
   */
  private changeSinceEarlier(
    request: ApprovalRequest,
    spec: DefinedTool | undefined,
  ): PendingDefinitionChange | undefined {
    if (spec === undefined) return undefined;
    const allowed = this.allowedForRun.get(request.runId)?.get(request.alias);
    const lastAllowed = allowed ? [...allowed.values()].at(-1) : undefined;
    if (lastAllowed !== undefined && !allowed?.has(request.definitionDigest ?? NO_DEFINITION))
      return { since: 'allowed', ...toolDefinitionChange(lastAllowed, spec) };
    const seen = this.lastShown.get(request.runId)?.get(request.alias);
    if (seen !== undefined && toolDefinitionDigest(seen) !== request.definitionDigest)
      return { since: 'seen', ...toolDefinitionChange(seen, spec) };
    return undefined;
  }

  private definitionOf(alias: string): DefinedTool | undefined {
    return this.options.catalog?.get(alias);
  }

  private digestNow(alias: string): string {
    const spec = this.definitionOf(alias);
    return spec ? toolDefinitionDigest(spec) : NO_DEFINITION;
  }

  private validateEdit(alias: string, args: unknown): string | undefined {
    if (typeof args !== 'object' || args === null || Array.isArray(args))
      return 'edited arguments must be a JSON object';
    return this.options.catalog?.validateArguments(alias, args as JsonObject);
  }

  private cancelled(signal: AbortSignal): ApprovalDecision {
    const why =
      signal.reason instanceof Error
        ? signal.reason.message
        : typeof signal.reason === 'string'
          ? signal.reason
          : 'the run was stopped';
    return { kind: 'cancelled', reason: why, source: 'policy', at: this.timestamp() };
  }

  private finish(
    request: ApprovalRequest,
    given: ApprovalDecision,
    asked: boolean,
    origin: DecisionOrigin = given.kind === 'cancelled' ? { decidedBy: 'cancelled' } : {},
  ): ApprovalDecision {
    const scoped = withScope(request, given, this.taintCheckOf(request));
    const ruleScope =
      origin.decidedBy === 'rule' && scoped.kind === 'approve'
        ? { scope: `this call (rule "${origin.rule}" allows it)` }
        : {};
    const decision: ApprovalDecision = { ...scoped, ...ruleScope, ...origin };
    this.options.onEvent?.({ type: 'approval-resolved', request, decision, proposed: request.arguments, asked });
    return decision;
  }

  private taintCheckOf(request: ApprovalRequest): boolean {
    return request.taintCheck ?? this.options.catalog?.get(request.alias)?.taintCheck ?? true;
  }

  private timestamp(): string {
    return this.now().toISOString();
  }
}
