/**
 * The approval card of one waiting call, shown where the call is (the conversation, a tool trial):
 * the same card as in the Approvals panel, with the same arming (it tracks its own moves on screen,
 * the view's scrolling included), the same deliberate-act rules, and decisions that leave every
 * view at once (approvals-store.ts). Focus goes to `focusAfter` once the card leaves while focus
 * is in it, never to the page.
 */
import type { Theme } from '../shell/theme';
import { ApprovalCard } from './ApprovalCard';
import { approvalKey, cardOrigins } from './approval-card-logic';
import { approvalsStore, usePendingApproval } from './approvals-store';
import { useRunOrigins } from './run-origins';
import { useCardMotion } from './use-card-arming';
import './approvals.css';

export function InlineApproval({
  runId,
  callId,
  theme,
  scroller,
  focusAfter,
}: {
  runId: string;
  callId: string;
  theme: Theme;
  /** The view's scrolling box (the person's scrolling of it moves the card without disarming it). */
  scroller: () => HTMLElement | null;
  /** Where focus goes when the card leaves while focus is in it. */
  focusAfter: () => void;
}) {
  const approval = usePendingApproval(runId, callId);
  const origins = cardOrigins(approval ? [approval] : [], useRunOrigins());
  const key = approval ? `${approvalKey(approval)} ${approval.askedAt}` : '';
  const { panel, list, moved } = useCardMotion(key, approval !== undefined, { scroller });
  if (!approval) return null;
  return (
    <div
      ref={panel}
      className="inline-approval"
      role="group"
      aria-label={`Decide ${approval.alias} ${approval.callId} here`}
    >
      <div ref={list}>
        <ApprovalCard
          approval={approval}
          origin={origins.get(approval.runId) ?? { agent: undefined, runId: approval.runId }}
          place=""
          moved={moved.get(approvalKey(approval)) ?? 0}
          theme={theme}
          onDecide={(decision) => approvalsStore.decide(approval, decision)}
          onDecided={(text) => approvalsStore.noteDecision(text)}
          onFocusLost={focusAfter}
        />
      </div>
    </div>
  );
}
