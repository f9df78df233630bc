/**
 * The person's rules as a run's approval gate applies them (the gate's side: GateRuleSource and
 * planDecision in main/core/approval/gate-plan.ts): the verdict for a call, with what changed in a
 * tool since a rule was confirmed on it, and a person's confirmations recorded.
 */
import type { Confirmation, ServerIdentity } from '../../../common/approval-rules.js';
import type { RuleVerdict } from '../../../common/approval-rules.js';
import type { ApprovalRequest } from '../approval/approval-types.js';
import type { GateRuleSource } from '../approval/gate-plan.js';
import { toolDefinitionChange, type DefinedTool } from '../tools/tool-definition.js';
import { evaluateRules } from './rule-engine.js';
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
export class GateRules implements GateRuleSource {
  private set: RuleSet;

  constructor(readonly options: GateRulesOptions) {
    this.set = new RuleSet(options.snapshot.rules);
  }

  /**
   * The rules file changed while the run goes on (the studio watches it): calls decided from now on
   * follow `snapshot` (a copy is kept, so a confirmation recorded here changes no one else's).
   */
  update(snapshot: GateRulesOptions['snapshot']): void {
    this.options.snapshot = structuredClone(snapshot);
    this.set = new RuleSet(this.options.snapshot.rules);
  }

  /** Whether the rules file could not be read: then no rule applies and every call asks. */
  get broken(): boolean {
    return this.options.snapshot.state === 'broken';
  }

  get file(): string {
    return this.options.snapshot.file;
  }

  used(ruleId: string, alias: string, at: string): void {
    this.options.used?.(ruleId, alias, at);
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
