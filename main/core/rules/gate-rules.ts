/**
 * The approval gate's policy step with rules: one documented order (docs/catalogs.md, "The
 * order"): deny rules > ask rules > allow rules (a tainted sink or taint outside tolerant arguments
 * raising an allow to ask) > the tool's policy (tools.yaml in a trusted workspace; restricted mode
 * already made every `auto` ask) > the taint rule > the approver. A rules file that cannot be read
 * makes every call ask.
 */
import type { Confirmation, RuleNote, ServerIdentity } from '../../../common/approval-rules.js';
import type { ApprovalRequest, TaintSpan } from '../approval/approval-types.js';
import { toolDefinitionChange, type DefinedTool } from '../tools/tool-definition.js';
import { underAny } from '../approval/taint-tracker.js';
import { evaluateRules, type RuleVerdict } from './rule-engine.js';
import { RuleSet, type RuleCall } from './rule-match.js';
import type { RulesSnapshot } from './rule-store.js';

/** What a run's gate knows of the person's rules. */
export interface GateRulesOptions {
  snapshot: Pick<RulesSnapshot, 'state' | 'rules' | 'file'>;
  /** The workspace's real path. */
  workspace?: string;
  /** How an MCP tool's server is reached (its identity for rules), from the run's tools.yaml. */
  serverOf?(spec: DefinedTool): ServerIdentity | undefined;
  /** Records a person's confirmation of a rule on a tool definition (RuleStore.confirm). */
  confirm?(ruleId: string, confirmation: Confirmation): Promise<void>;
  /** Told each time a rule decides a call (the usage log; kept off the rules file). */
  used?(ruleId: string, alias: string, at: string): void;
  /** The definitions rules were confirmed on, by digest: to say what changed since. */
  definitions?: ReadonlyMap<string, DefinedTool>;
  /** Keeps a definition a person just confirmed a rule on. */
  remember?(digest: string, tool: DefinedTool): Promise<void>;
}

/** The rules as a run's gate applies them. */
export class GateRules {
  private set: RuleSet;

  constructor(readonly options: GateRulesOptions) {
    this.set = new RuleSet(options.snapshot.rules);
  }

  /** Whether the rules file could not be read: then no rule applies and every call asks. */
  get broken(): boolean {
    return this.options.snapshot.state === 'broken';
  }

  /** The call as the rules see it. */
  callOf(request: ApprovalRequest, spec: DefinedTool | undefined): RuleCall {
    const server = spec && spec.settings.kind === 'mcp' ? this.options.serverOf?.(spec) : undefined;
    return {
      alias: request.alias,
      arguments: request.arguments,
      ...(this.options.workspace !== undefined && { workspace: this.options.workspace }),
      ...(spec && { definition: spec }),
      ...(request.definitionDigest !== undefined && { digest: request.definitionDigest }),
      ...(server && { server }),
    };
  }

  verdict(request: ApprovalRequest, spec: DefinedTool | undefined): RuleVerdict {
    const verdict = evaluateRules(this.set, this.callOf(request, spec), toolMarks(spec));
    // A tool that changed under a rule: say what changed since the definition it was confirmed on.
    const earlier = verdict.note.unconfirmed?.confirmedOn.filter((known) => known.alias === request.alias).at(-1);
    const before = earlier && this.options.definitions?.get(earlier.digest);
    if (before && spec) {
      const change = toolDefinitionChange(before, spec);
      verdict.note = { ...verdict.note, text: `${verdict.note.text}. ${change.summary}`, changes: change.details };
    }
    return verdict;
  }

  /** A person said yes to a call an unconfirmed allow rule covered: the rule now covers its definition. */
  async confirmed(ruleId: string, confirmation: Confirmation): Promise<void> {
    const rules = this.options.snapshot.rules.rules ?? [];
    const rule = rules.find((candidate) => candidate.id === ruleId);
    if (rule && !(rule.confirmed ?? []).some((known) => known.digest === confirmation.digest)) {
      rule.confirmed = [...(rule.confirmed ?? []), confirmation];
      this.set = new RuleSet(this.options.snapshot.rules);
    }
    await this.options.confirm?.(ruleId, confirmation);
  }

  /** Keeps the definition a person confirmed a rule on (for "what changed" later). */
  async remember(digest: string, tool: DefinedTool): Promise<void> {
    await this.options.remember?.(digest, tool);
  }
}

/** A tool's own markings: sinks always (stricter), tolerant only as the run's catalog has it (restricted mode drops them). */
function toolMarks(spec: DefinedTool | undefined): { sinks?: string[]; tolerant?: string[] } {
  return { ...(spec?.sinks && { sinks: spec.sinks }), ...(spec?.tolerant && { tolerant: spec.tolerant }) };
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
