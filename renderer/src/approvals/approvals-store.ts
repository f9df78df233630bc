/**
 * The calls waiting for the person, one store for the window: the Approvals panel, the
 * conversation and the tool trial show the same cards from it, and a decision taken in any of them
 * leaves every other at once (the card is dropped as soon as main took the decision, before its
 * `approval-resolved` arrives). Also what the last decision was, in words, wherever it was taken.
 */
import { useSyncExternalStore } from 'react';
import type { PendingApproval, StudioDecision } from '../../../common/studio-schemas.js';
import { call, describeError } from '../shell/studio-api';
import { approvalKey } from './approval-card-logic';

/** What the store holds, replaced as a whole on every change. */
export interface ApprovalsSnapshot {
  /** The waiting calls, in arrival order. */
  pending: PendingApproval[];
  /** The last decision taken in this window, in words ('' before any). */
  lastDecision: string;
}

class ApprovalsStore {
  private snapshot: ApprovalsSnapshot = { pending: [], lastDecision: '' };
  private readonly listeners = new Set<() => void>();

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  readonly getSnapshot = (): ApprovalsSnapshot => this.snapshot;

  private set(patch: Partial<ApprovalsSnapshot>): void {
    this.snapshot = { ...this.snapshot, ...patch };
    for (const listener of this.listeners) listener();
  }

  /** `approval-pending`: a new card, or a call asked again in its card's place. */
  arrived(approval: PendingApproval): void {
    const key = approvalKey(approval);
    const { pending } = this.snapshot;
    this.set({
      pending: pending.some((item) => approvalKey(item) === key)
        ? pending.map((item) => (approvalKey(item) === key ? approval : item))
        : [...pending, approval],
    });
  }

  /** `approval-resolved`, or a decision main took: the card leaves every view. */
  resolved(ref: { runId: string; callId: string }): void {
    const key = approvalKey(ref);
    if (!this.snapshot.pending.some((item) => approvalKey(item) === key)) return;
    this.set({ pending: this.snapshot.pending.filter((item) => approvalKey(item) !== key) });
  }

  /** The waiting calls as main lists them (a workspace opened, the window reloaded). */
  reset(pending: PendingApproval[]): void {
    this.set({ pending });
  }

  /** Says what was just decided (shown in the Approvals panel, announced to screen readers). */
  noteDecision(text: string): void {
    this.set({ lastDecision: text });
  }

  /** Sends the person's decision to main: undefined once taken (the card leaves every view), else why it was not. */
  async decide(approval: PendingApproval, decision: StudioDecision): Promise<string | undefined> {
    try {
      await call('approval:decide', { runId: approval.runId, callId: approval.callId, decision });
    } catch (failure) {
      return describeError(failure);
    }
    this.resolved(approval);
    return undefined;
  }
}

/** The window's store of waiting calls. */
export const approvalsStore = new ApprovalsStore();

/** The waiting calls and the last decision; re-renders when either changes. */
export function useApprovalsSnapshot(): ApprovalsSnapshot {
  return useSyncExternalStore(approvalsStore.subscribe, approvalsStore.getSnapshot);
}

/** The waiting call `callId` of run `runId`, while it waits. */
export function usePendingApproval(runId: string, callId: string): PendingApproval | undefined {
  const { pending } = useApprovalsSnapshot();
  return pending.find((item) => item.runId === runId && item.callId === callId);
}
