import { useCallback } from 'react';
import type { RunSummary } from '../../../common/studio-schemas.js';
import { call, useStudioEvent } from '../shell/studio-api';
import { approvalsStore, useApprovalsSnapshot } from './approvals-store';
import { notifyPendingApproval } from './notify-pending-approval';
import { runOrigins } from './run-origins';

/** What {@link useApprovals} gives: the calls waiting for a person, in arrival order. */
export interface Approvals {
  pending: ReturnType<typeof useApprovalsSnapshot>['pending'];
  /** "2 tool calls waiting for your approval", or '' when none waits. */
  pendingText: string;
  /**
   * Asks main for the waiting calls (after a workspace opened, or a window reload); `runs`, the
   * workspace's run history, names the agent of each waiting run.
   */
  reload: (runs: readonly RunSummary[]) => Promise<void>;
}

/**
 * Keeps the window's store of waiting calls (approvals-store.ts) up to date from main's
 * `approval-pending` and `approval-resolved` events; mount it once, in the shell. A new call also
 * raises an OS notification when the window is in the background (notify-pending-approval.ts); it
 * never takes focus.
 */
export function useApprovals(): Approvals {
  const { pending } = useApprovalsSnapshot();
  useStudioEvent('approval-pending', (approval) => {
    approvalsStore.arrived(approval);
    notifyPendingApproval(approval);
  });
  useStudioEvent('approval-resolved', (resolved) => approvalsStore.resolved(resolved));
  // Whether the person trusts a tool's server for rules is the rules file's: the cards follow it.
  useStudioEvent('rules-changed', () => {
    void call('approval:list', {}).then(
      (pending) => approvalsStore.reset(pending),
      () => undefined,
    );
  });
  // Which agent each run runs, for the cards (run-origins.ts).
  useStudioEvent('run-event', (event) => runOrigins.noteEvent(event));
  useStudioEvent('workspace-changed', (state) => runOrigins.noteSummaries(state.runs));
  const reload = useCallback(async (runs: readonly RunSummary[]) => {
    runOrigins.noteSummaries(runs);
    approvalsStore.reset(await call('approval:list', {}));
  }, []);
  const count = pending.length;
  const pendingText = count === 0 ? '' : `${count} tool call${count === 1 ? '' : 's'} waiting for your approval`;
  return { pending, pendingText, reload };
}
