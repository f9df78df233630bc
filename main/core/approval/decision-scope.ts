/** What an approval decision covers, in words (`scope`), and the gate's small helpers. */
import type { JsonObject } from '../../../common/json.js';
import type { ApprovalDecision, ApprovalRequest } from './approval-types.js';
import type { Approver, PendingCall, PersonDecision } from './approver.js';

/** The inner map of `outer` at `key`, made when missing. */
export function nested<K, V>(outer: Map<string, Map<K, V>>, key: string): Map<K, V> {
  let inner = outer.get(key);
  if (!inner) {
    inner = new Map();
    outer.set(key, inner);
  }
  return inner;
}

/** `approver.ask`, with a synchronous throw as a rejection. */
export function ask(approver: Approver, pending: PendingCall, signal: AbortSignal): Promise<PersonDecision> {
  try {
    return approver.ask(pending, signal);
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}

export function digestOf(request: ApprovalRequest): { definitionDigest?: string } {
  return request.definitionDigest !== undefined ? { definitionDigest: request.definitionDigest } : {};
}

/**
 * Adds `scope` to a decision that lets the call run: exactly what it allows, in words, for the
 * transcript, the studio and the CLI. "Allow for this run" covers the tool's later untainted calls
 * under the same definition only; a later call carrying untrusted text still asks (unless the tool
 * has taintCheck off), and so does any call once the tool is redefined.
 */
export function withScope(request: ApprovalRequest, decision: ApprovalDecision, taintCheck: boolean): ApprovalDecision {
  const tool = `tool "${request.alias}"`;
  const tainted = taintCheck && request.taint.length > 0;
  const thisCall = tainted ? 'this call only (its arguments carry untrusted text)' : 'this call only';
  switch (decision.kind) {
    case 'approve':
      if (decision.source === 'policy' && decision.reason === 'allowed for this run')
        return {
          ...decision,
          scope: `this untainted call of ${tool}, under an earlier "allow for this run"; tainted calls still ask`,
        };
      if (decision.source === 'policy' && request.policy === 'auto' && !tainted)
        return { ...decision, scope: `this call (${tool} has approval: auto)` };
      return { ...decision, scope: thisCall };
    case 'approve-edited':
      return { ...decision, scope: `${thisCall}, with the edited arguments` };
    case 'allow-for-run': {
      const later =
        request.policy === 'auto'
          ? `later untainted calls of ${tool} run anyway (approval: auto)`
          : `every later untainted call of ${tool} in this run runs without asking, while the tool's definition stays as it is now`;
      const still = taintCheck
        ? 'calls whose arguments carry untrusted text still ask'
        : `${tool} has taintCheck off, so tainted calls are covered too`;
      return { ...decision, scope: `this call; ${later}; ${still}`, taintCheck };
    }
    case 'deny':
    case 'cancelled':
      return decision;
  }
}

/** Whether a decision lets the call run, and with which arguments. */
export function approvedArguments(request: ApprovalRequest, decision: ApprovalDecision): JsonObject | undefined {
  switch (decision.kind) {
    case 'approve':
    case 'allow-for-run':
      return request.arguments;
    case 'approve-edited':
      return decision.arguments;
    case 'deny':
    case 'cancelled':
      return undefined;
  }
}

/** Resolves `aborted` when `signal` aborts (at once when it already has). */
export function whenAborted(signal: AbortSignal): Promise<'aborted'> {
  if (signal.aborted) return Promise.resolve('aborted');
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve('aborted'), { once: true }));
}
