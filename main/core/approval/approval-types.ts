import type { JsonObject } from '../../../common/json.js';
import type { ApprovalPolicy } from '../tools/tool-spec.js';
import type { DecidedBy } from '../../../common/approval-rules.js';
import type { TaintSpan } from '../../../common/run-events.js';

/** A dispatched call that needs (or may need) a decision. */
export interface ApprovalRequest {
  runId: string;
  /** Unique per dispatch within the run, e.g. `call-3`. */
  callId: string;
  alias: string;
  description: string;
  arguments: JsonObject;
  policy: ApprovalPolicy;
  /** Non-empty when the arguments are tainted. */
  taint: TaintSpan[];
  /**
   * The tool's `taintCheck` setting. When false, taint does not force a person's approval. When
   * absent the gate reads it from its catalog, else assumes true.
   */
  taintCheck?: boolean;
  /**
   * The digest (`toolDefinitionDigest`, tools/tool-definition.ts) of the tool definition the call is asked under. The
   * gate sets it from its catalog when it decides (a caller's value is replaced), and a decision
   * that covers later calls is bound to it. Absent when the gate has no catalog entry for the tool.
   */
  definitionDigest?: string;
}

/** Who made a decision. */
export type DecisionSource = 'studio' | 'cli-prompt' | 'policy';

/**
 * The outcome for one call. `at` is an ISO timestamp. `scope` (set by the gate on every decision
 * that lets a call run) says in words exactly what it allows, e.g. that "allow for this run"
 * covers the tool's later untainted calls while tainted ones still ask. `definitionDigest` (on the
 * decisions that let a call run, when the gate knows the tool) is the definition the decision was
 * made under: the one to run.
 */
export type ApprovalDecision = DecisionOrigin &
  (
    | {
        kind: 'approve';
        source: DecisionSource;
        at: string;
        reason?: string;
        scope?: string;
        definitionDigest?: string;
      }
    | {
        kind: 'approve-edited';
        /** The edited arguments: these run. */
        arguments: JsonObject;
        source: DecisionSource;
        at: string;
        /** The arguments as proposed by the script, kept for the record. */
        proposed?: JsonObject;
        scope?: string;
        definitionDigest?: string;
      }
    | {
        kind: 'allow-for-run';
        source: DecisionSource;
        at: string;
        scope?: string;
        /** The tool's taint check as the gate applied it (set with `scope`). */
        taintCheck?: boolean;
        definitionDigest?: string;
      }
    | { kind: 'deny'; reason: string; source: DecisionSource; at: string }
    | { kind: 'cancelled'; reason: string; source: DecisionSource; at: string }
  );

/**
 * What made a decision (set by the gate on every decision): a rule (`rule` names it), the tool's
 * policy, "allow for this run", the approver (a person, or `--approve` answering for one), or the
 * run ending. `ruleNote` says, in words, which rule applied or why none did.
 */
export interface DecisionOrigin {
  decidedBy?: DecidedBy;
  rule?: string;
  ruleNote?: string;
}

/**
 * Decides every dispatched call before it runs. Implementations apply the tool's policy, the
 * taint rule and any "allow for this run" memory, and ask a person only when needed.
 */
export interface ApprovalGate {
  /** Resolves with the decision. When `signal` aborts (run stopped), resolves `cancelled`. */
  decide(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision>;
}
