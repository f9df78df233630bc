/**
 * The approval gate's policy step: one documented order (docs/catalogs.md, "The order"): deny
 * rules > ask rules > allow rules (a tainted sink or taint outside tolerant arguments raising an
 * allow to ask) > the tool's policy (tools.yaml in a trusted workspace; restricted mode already made
 * every `auto` ask) > the taint rule > the approver. A rules file that cannot be read makes every
 * call ask. The rules themselves are evaluated by main/core/rules (GateRules implements
 * {@link GateRuleSource}).
 */
import type { Confirmation, RuleNote, RuleVerdict } from '../../../common/approval-rules.js';
import type { DefinedTool } from '../tools/tool-definition.js';
import type { TaintSpan } from '../../../common/run-events.js';
import type { ApprovalRequest } from './approval-types.js';
import { underAny } from './taint-tracker.js';

/** What the gate needs of the person's rules. */
export interface GateRuleSource {
  /** The rules file could not be read: no rule applies and every call asks. */
  readonly broken: boolean;
  /** The rules file, for messages. */
  readonly file: string;
  /** What the rules say about a call under `spec` (the catalog's definition now). */
  verdict(request: ApprovalRequest, spec: DefinedTool | undefined): RuleVerdict;
  /** A person said yes to a call an unconfirmed allow rule covered: record the definition. */
  confirmed(ruleId: string, confirmation: Confirmation): Promise<void>;
  /** Keeps the definition a person confirmed a rule on (to say what changed later). */
  remember(digest: string, tool: DefinedTool): Promise<void>;
  /** Told each time a rule decides a call. */
  used(ruleId: string, alias: string, at: string): void;
}

/** What the gate does with a call before any person is asked. */
export type GatePlan =
  | { kind: 'deny'; reason: string; decidedBy: 'rule' | 'policy'; ruleId?: string }
  | { kind: 'approve'; reason: string; decidedBy: 'rule' | 'policy' | 'allowed-for-run'; ruleId?: string }
  | {
      kind: 'ask';
      reason: 'policy' | 'tainted';
      /** Why, when a rule (or the lack of a readable rules file) is part of it. */
      note?: RuleNote;
      /** The spans that make the call tainted (the default rule's, outside tolerant arguments, and the sinks'). */
      taint: TaintSpan[];
      /** The allow rule a person's yes confirms on this definition. */
      confirmRule?: string;
    };

/** What {@link planDecision} needs. */
export interface PlanInput {
  request: ApprovalRequest;
  /** The tool's taint check (false: the default taint rule does not force approval). */
  taintCheck: boolean;
  verdict?: RuleVerdict;
  rulesBroken?: { file: string };
  /** Sink spans (tracker.checkSinks) for the verdict's sinks. */
  sinkTaint: TaintSpan[];
  allowedForRun(): boolean;
}

/** The documented order, as one pure function. */
export function planDecision(input: PlanInput): GatePlan {
  const { request, verdict } = input;
  if (input.rulesBroken) {
    if (request.policy === 'deny')
      return { kind: 'deny', reason: `tool "${request.alias}" has approval: deny`, decidedBy: 'policy' };
    return {
      kind: 'ask',
      reason: request.taint.length > 0 || input.sinkTaint.length > 0 ? 'tainted' : 'policy',
      note: {
        text: `your approval rules file ${input.rulesBroken.file} cannot be read, so no rule applies and every call asks`,
      },
      taint: [...request.taint, ...input.sinkTaint],
    };
  }
  if (verdict?.outcome === 'deny')
    return {
      kind: 'deny',
      reason: `denied by rule "${verdict.rule!.id}"`,
      decidedBy: 'rule',
      ruleId: verdict.rule!.id,
    };
  const marks = verdict?.marks ?? { sinks: [], tolerant: [], allowTainted: [] };
  const letThrough = verdict?.outcome === 'allow' ? marks.allowTainted : [];
  const sinkTaint = input.sinkTaint.filter((span) => !underAny(span.path, letThrough));
  // The default taint rule: spans in tolerant arguments do not count, unless also in a sink.
  const defaultTaint = input.taintCheck
    ? request.taint.filter(
        (span) =>
          span.sourceOutputId === 'envelope' ||
          ((!underAny(span.path, marks.tolerant) || underAny(span.path, marks.sinks)) &&
            !underAny(span.path, letThrough)),
      )
    : [];
  const taint = dedupe([...defaultTaint, ...sinkTaint]);
  const tainted = taint.length > 0;
  const taintWords = (): string =>
    sinkTaint.length > 0
      ? `sink ${[...new Set(sinkTaint.map((span) => span.path))].join(', ')} carries untrusted text`
      : 'its arguments carry untrusted text';
  if (verdict?.outcome === 'ask')
    return { kind: 'ask', reason: tainted ? 'tainted' : 'policy', note: verdict.note, taint };
  if (verdict?.outcome === 'allow') {
    if (!tainted)
      return {
        kind: 'approve',
        reason: `allowed by rule "${verdict.rule!.id}"`,
        decidedBy: 'rule',
        ruleId: verdict.rule!.id,
      };
    return {
      kind: 'ask',
      reason: 'tainted',
      note: {
        ruleId: verdict.rule!.id,
        text: `rule "${verdict.rule!.id}" (allow) matched, but ${taintWords()}; a rule lets a tainted sink through only when it names it under allowTainted`,
      },
      taint,
    };
  }
  const note = verdict?.unconfirmed || verdict?.considered.length ? verdict.note : undefined;
  const ask = (): GatePlan => ({
    kind: 'ask',
    reason: tainted ? 'tainted' : 'policy',
    ...(note && { note }),
    taint,
    ...(verdict?.unconfirmed && { confirmRule: verdict.unconfirmed.id }),
  });
  switch (request.policy) {
    case 'deny':
      return { kind: 'deny', reason: `tool "${request.alias}" has approval: deny`, decidedBy: 'policy' };
    case 'auto':
      return tainted ? ask() : { kind: 'approve', reason: 'approval: auto', decidedBy: 'policy' };
    case 'ask':
      return !tainted && input.allowedForRun()
        ? { kind: 'approve', reason: 'allowed for this run', decidedBy: 'allowed-for-run' }
        : ask();
    default:
      return { kind: 'deny', reason: `unknown approval policy "${String(request.policy)}"`, decidedBy: 'policy' };
  }
}

function dedupe(spans: TaintSpan[]): TaintSpan[] {
  const seen = new Map<string, TaintSpan>();
  for (const span of spans) seen.set(JSON.stringify(span), span);
  return [...seen.values()];
}
