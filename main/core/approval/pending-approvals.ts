import type { ApprovalRequest, DecisionSource } from './approval-types.js';
import type { Approver, PendingCall, PersonDecision } from './approver.js';

/** What the queue reports, for the studio's pending list and OS notifications. */
export type PendingApprovalEvent =
  | { type: 'approval-pending'; pending: PendingCall }
  | {
      type: 'approval-resolved';
      request: ApprovalRequest;
      /** The person's decision, or `cancelled` when the run stopped first. */
      decision: PersonDecision | { kind: 'cancelled'; reason: string };
    };

/** The outcome of {@link PendingApprovals.resolve}. */
export type ResolveResult = { ok: true } | { ok: false; error: string };

interface Entry {
  pending: PendingCall;
  settle(decision: PersonDecision): void;
}

/**
 * The calls waiting for a person, across runs. The studio lists them and resolves them; the
 * {@link QueueApprover} puts them here. A resolve with invalid edited arguments is refused with
 * the validation message and the call stays pending; so is one that would let the call run after
 * its tool's definition changed (see {@link PendingCall.recheckDefinition}).
 */
export class PendingApprovals {
  private readonly entries: Entry[] = [];
  private readonly listeners = new Set<(event: PendingApprovalEvent) => void>();

  constructor(options: { onEvent?(event: PendingApprovalEvent): void } = {}) {
    if (options.onEvent) this.listeners.add(options.onEvent);
  }

  /** Pending calls, oldest first. */
  list(): PendingCall[] {
    return this.entries.map((entry) => entry.pending);
  }

  /** Adds a listener; returns its removal. */
  subscribe(listener: (event: PendingApprovalEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Decides pending call `callId` (of run `runId` when several runs have that call id). Refuses
   * unknown or ambiguous ids, invalid edited arguments, and a decision that lets the call run when
   * its tool changed since the card was shown; the call then stays pending (a changed tool's call
   * is asked again at once, with the change shown).
   */
  resolve(callId: string, decision: PersonDecision, runId?: string): ResolveResult {
    const matches = this.entries.filter(
      (entry) =>
        entry.pending.request.callId === callId && (runId === undefined || entry.pending.request.runId === runId),
    );
    if (matches.length === 0) return { ok: false, error: `no call "${callId}" is waiting for approval` };
    if (matches.length > 1) return { ok: false, error: `several runs have a pending call "${callId}"; name the run` };
    const entry = matches[0] as Entry;
    if (decision.kind === 'approve-edited') {
      const problem = entry.pending.validateEdit(decision.arguments);
      if (problem !== undefined)
        return { ok: false, error: `edited arguments for "${entry.pending.request.alias}" rejected: ${problem}` };
    }
    if (decision.kind === 'deny' && typeof decision.reason !== 'string')
      return { ok: false, error: 'a denial needs a reason' };
    // A decision that lets the call run is for the tool definition the card shows: when the tool
    // changed since, the gate asks again (the new card takes this one's place) and this is refused.
    if (decision.kind !== 'deny') {
      const changed = entry.pending.recheckDefinition?.();
      if (changed !== undefined) return { ok: false, error: changed };
    }
    this.remove(entry);
    entry.settle(decision);
    this.emit({ type: 'approval-resolved', request: entry.pending.request, decision });
    return { ok: true };
  }

  /**
   * Puts `pending` in the queue until someone resolves it. When `signal` aborts, the call leaves
   * the queue (reported as cancelled) and the promise rejects.
   */
  enqueue(pending: PendingCall, signal: AbortSignal): Promise<PersonDecision> {
    return new Promise<PersonDecision>((resolve, reject) => {
      const onAbort = () => {
        if (!this.remove(entry)) return;
        const reason = signal.reason instanceof Error ? signal.reason.message : 'the run was stopped';
        this.emit({ type: 'approval-resolved', request: pending.request, decision: { kind: 'cancelled', reason } });
        reject(new Error(`cancelled: ${reason}`));
      };
      const entry: Entry = {
        pending,
        settle: (decision) => {
          signal.removeEventListener('abort', onAbort);
          resolve(decision);
        },
      };
      if (signal.aborted) {
        reject(new Error('cancelled: the run was stopped'));
        return;
      }
      // A repeated ask for the same call (the gate asks again because the tool changed while the
      // card was open) takes the earlier entry's place; the earlier asking then ends quietly.
      const previous = this.entries.findIndex(
        (other) =>
          other.pending.request.callId === pending.request.callId &&
          other.pending.request.runId === pending.request.runId,
      );
      if (previous >= 0) this.entries[previous] = entry;
      else this.entries.push(entry);
      signal.addEventListener('abort', onAbort, { once: true });
      this.emit({ type: 'approval-pending', pending });
    });
  }

  private remove(entry: Entry): boolean {
    const index = this.entries.indexOf(entry);
    if (index < 0) return false;
    this.entries.splice(index, 1);
    return true;
  }

  private emit(event: PendingApprovalEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}

/** The person is whoever resolves the queue: the studio's pending-approvals pane. */
export class QueueApprover implements Approver {
  constructor(
    private readonly queue: PendingApprovals,
    readonly source: DecisionSource = 'studio',
  ) {}

  ask(pending: PendingCall, signal: AbortSignal): Promise<PersonDecision> {
    return this.queue.enqueue(pending, signal);
  }
}
