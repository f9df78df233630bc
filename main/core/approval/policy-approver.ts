import type { Approver, PendingCall, PersonDecision } from './approver.js';

/**
 * The CLI's `--approve auto|deny`: answers every call the gate would ask a person about.
 * `auto` approves them (tainted calls included: that is what the flag asks for); `deny` denies
 * them with the reason "denied by --approve deny". Tools with policy `deny` never reach it. The
 * approval's reason says it was the run's flag, not the tool's policy: a replay of the run in the
 * studio then says so too (a tool whose policy is `ask` was approved without a person).
 */
/** Why a call was approved under `--approve auto`, as recorded. */
const AUTO_APPROVAL_REASON =
  "approved without asking anyone: the run was started with the terminal's --approve auto, whatever the tool's policy";

export class PolicyApprover implements Approver {
  readonly source = 'policy' as const;

  constructor(private readonly mode: 'auto' | 'deny') {}

  async ask(_pending: PendingCall): Promise<PersonDecision> {
    return this.mode === 'auto'
      ? { kind: 'approve', reason: AUTO_APPROVAL_REASON }
      : { kind: 'deny', reason: 'denied by --approve deny' };
  }
}
