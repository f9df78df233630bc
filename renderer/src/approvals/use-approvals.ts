import { useCallback, useState } from 'react';
import type { PendingApproval } from '../../../common/studio-schemas.js';
import { call, useStudioEvent } from '../shell/studio-api';
import type { RunSummary } from '../../../common/studio-schemas.js';
import { notifyPendingApproval } from './notify-pending-approval';
import { runOrigins } from './run-origins';

function approvalKey(approval: { runId: string; callId: string }): string {
  return `${approval.runId}/${approval.callId}`;
}

/** What {@link useApprovals} gives: the calls waiting for a person, in arrival order. */
export interface Approvals {
  pending: PendingApproval[];
  /** "2 tool calls waiting for your approval", or '' when none waits. */
  pendingText: string;
  /**
   * Asks main for the waiting calls (after a workspace opened, or a window reload); `runs`, the
   * workspace's run history, names the agent of each waiting run.
   */
  reload: (runs: readonly RunSummary[]) => Promise<void>;
}

/**
 * The calls waiting for approval, kept up to date from main's `approval-pending` and
 * `approval-resolved` events. A new call also raises an OS notification when the window is in the
 * background (notify-pending-approval.ts); it never takes focus.
 */
export function useApprovals(): Approvals {
  const [pending, setPending] = useState<PendingApproval[]>([]);
  useStudioEvent('approval-pending', (approval) => {
    setPending((current) =>
      current.some((item) => approvalKey(item) === approvalKey(approval))
        ? current.map((item) => (approvalKey(item) === approvalKey(approval) ? approval : item))
        : [...current, approval],
    );
    notifyPendingApproval(approval);
  });
  useStudioEvent('approval-resolved', (resolved) => {
    setPending((current) => current.filter((item) => approvalKey(item) !== approvalKey(resolved)));
  });
  // Which agent each run runs, for the cards (run-origins.ts).
  useStudioEvent('run-event', (event) => runOrigins.noteEvent(event));
  useStudioEvent('workspace-changed', (state) => runOrigins.noteSummaries(state.runs));
  const reload = useCallback(async (runs: readonly RunSummary[]) => {
    runOrigins.noteSummaries(runs);
    setPending(await call('approval:list', {}));
  }, []);
  const count = pending.length;
  const pendingText = count === 0 ? '' : `${count} tool call${count === 1 ? '' : 's'} waiting for your approval`;
  return { pending, pendingText, reload };
}
