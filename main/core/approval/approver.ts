import type { JsonObject } from '../../../common/json.js';
import type { RuleNote } from '../../../common/approval-rules.js';
import type { ToolDefinitionChange } from '../tools/tool-definition.js';
import type { ApprovalRequest, DecisionSource } from './approval-types.js';

/**
 * How the tool's definition differs from one the person decided on before, and which: the one
 * they allowed for this run (`allowed`), the one the last card of the tool in this run showed
 * (`seen`), or the one this same call's card showed while it was open (`open`).
 */
export type PendingDefinitionChange = ToolDefinitionChange & { since: 'allowed' | 'seen' | 'open' };

/** A call waiting for a person, as shown in the studio's pending list or on the terminal. */
export interface PendingCall {
  request: ApprovalRequest;
  /** Why a person is asked: the tool's policy is `ask`, or the arguments are tainted. */
  reason: 'policy' | 'tainted';
  /** ISO time the call started waiting. */
  askedAt: string;
  /** Set when the person's previous edit was rejected: what was wrong with it. */
  rejectedEdit?: string;
  /**
   * The tool's taint check as this run's gate applies it (from the run's own catalog, not the
   * workspace's current tools.yaml): what "allow for this run" then covers.
   */
  taintCheck: boolean;
  /**
   * Validates edited arguments against the tool's parameter schema: undefined when valid, else a
   * message naming the bad field. A function, so it is dropped when the call is serialized.
   */
  validateEdit(args: JsonObject): string | undefined;
  /**
   * Set when the tool's definition differs from one the person decided on before: what changed,
   * in words, for the card ("This tool changed since you allowed it").
   */
  definitionChange?: PendingDefinitionChange;
  /**
   * Checks the tool's definition against the one this asking shows (`request.definitionDigest`).
   * Undefined while it is the same. Otherwise a message saying why a decision that lets the call
   * run cannot be taken now; when the tool changed, the gate withdraws this asking and asks again
   * with the change shown. A queue calls it before settling such a decision (a denial always
   * counts). A function, so it is dropped when the call is serialized.
   */
  recheckDefinition?(): string | undefined;
  /**
   * Which rule is part of why the call asks, or why none applied: e.g. the allow rule that would
   * have applied but was never confirmed on this tool definition (a person's yes confirms it; an
   * `--approve` flag's never does), or a tainted sink under an allow rule.
   */
  rule?: RuleNote;
  /** The argument pointers marked as sinks for this call (they ask on any untrusted text). */
  sinks?: string[];
  /** The MCP tool's annotations as its server gave them: hints for the card, never a policy. */
  annotations?: JsonObject;
}

/** What a person decided about one call. The gate adds the time and the source. */
export type PersonDecision = (
  | { kind: 'approve'; reason?: string }
  | { kind: 'approve-edited'; arguments: JsonObject }
  | { kind: 'deny'; reason: string }
  | { kind: 'allow-for-run' }
) & {
  /** Overrides the approver's source (e.g. a PolicyApprover answers as `policy`). */
  source?: DecisionSource;
};

/**
 * The person behind the gate: the studio (through {@link PendingApprovals}), the terminal, or a
 * CLI flag. `ask` resolves with their decision; it should stop waiting when `signal` aborts (the
 * gate then records `cancelled` itself). A rejection counts as a denial.
 */
export interface Approver {
  /** Recorded as the decision's source. Default `studio`. */
  readonly source?: DecisionSource;
  ask(pending: PendingCall, signal: AbortSignal): Promise<PersonDecision>;
}
