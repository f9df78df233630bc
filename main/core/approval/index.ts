export { ApprovalGateImpl, type ApprovalGateOptions, approvedArguments, type GateEvent } from './approval-gate.js';
export type { ApprovalDecision, ApprovalGate, ApprovalRequest, DecisionSource, TaintSpan } from './approval-types.js';
export type { Approver, PendingCall, PersonDecision } from './approver.js';
export { type PendingApprovalEvent, PendingApprovals, QueueApprover, type ResolveResult } from './pending-approvals.js';
export { PolicyApprover } from './policy-approver.js';
export { MIN_FRAGMENT_CHARS, MIN_SHORT_OUTPUT_CHARS, TaintTracker } from './taint-tracker.js';
