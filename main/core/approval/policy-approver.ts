import type { Approver, PendingCall, PersonDecision } from './approver.js';

/**
 * The CLI's `--approve auto|deny`: answers every call the gate would ask a person about.
 * `auto` approves them (tainted calls included: that is what the flag asks for); `deny` denies
 * them with the reason "denied by --approve deny". Tools with policy `deny` never reach it.
 */
export class PolicyApprover implements Approver {
  readonly source = 'policy' as const;

  constructor(private readonly mode: 'auto' | 'deny') {}

  async ask(_pending: PendingCall): Promise<PersonDecision> {
    return this.mode === 'auto'
      ? { kind: 'approve', reason: 'approved by --approve auto' }
      : { kind: 'deny', reason: 'denied by --approve deny' };
  }
}
