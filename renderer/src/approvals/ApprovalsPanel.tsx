import { useEffect, type KeyboardEvent } from 'react';
import { isTyping } from '../shell/keyboard';
import type { Theme } from '../shell/theme';
import { ApprovalCard } from './ApprovalCard';
import { approvalKey, cardIndexFor, cardOrigins, changedWhileOpenNotice } from './approval-card-logic';
import { watchPersonInput } from './deliberate-focus';
import { useRunOrigins } from './run-origins';
import { useCardMotion } from './use-card-arming';
import { approvalsStore, useApprovalsSnapshot } from './approvals-store';
import { RulesNotice } from '../rules/RulesNotice';
import './approvals.css';

/**
 * Every call waiting for a decision. Nothing here ever moves focus on its own when a card arrives:
 * the person clicks or Tabs into a card (arrow keys move between cards), and a card acts on
 * A / E / D / Shift+L only then, and only once it is armed (`data-armed`). Each card names the
 * agent whose run asks (and, when several runs of one agent wait, when its run started). The same
 * cards show in the conversation and the tool trial (approvals-store.ts): a decision taken there
 * shows here as the last one.
 */
export function ApprovalsPanel({ theme, onOpenRules }: { theme: Theme; onOpenRules: () => void }) {
  const { pending: approvals, lastDecision } = useApprovalsSnapshot();
  useEffect(() => watchPersonInput(), []);
  const origins = cardOrigins(approvals, useRunOrigins());
  const keys = approvals.map(approvalKey);
  // Each card's moves on screen (use-card-arming.ts): a card that moved waits again.
  const { panel, list, moved } = useCardMotion(`${keys.join(' ')}|${lastDecision !== ''}`, approvals.length > 0);

  const moveBetweenCards = (event: KeyboardEvent<HTMLDivElement>): void => {
    if (!['ArrowDown', 'ArrowUp', 'Home', 'End'].includes(event.key) || isTyping(event.nativeEvent)) return;
    if (event.ctrlKey || event.metaKey || event.altKey || event.shiftKey) return;
    const cards = [...(panel.current?.querySelectorAll<HTMLElement>('.approval-card') ?? [])];
    if (cards.length === 0) return;
    const from = cards.findIndex((card) => card === event.target);
    // Only from the panel itself or from a card, so arrows inside an argument editor stay its own.
    if (from < 0 && event.target !== panel.current && event.target !== event.currentTarget) return;
    event.preventDefault();
    cards[cardIndexFor(event.key, from, cards.length)]!.focus();
  };

  return (
    <div
      ref={panel}
      className="approvals-panel"
      role="region"
      aria-label="Pending approvals"
      tabIndex={-1}
      onKeyDown={moveBetweenCards}
    >
      <p className="visually-hidden" role="status">
        {lastDecision}
      </p>
      <p className="visually-hidden" role="status">
        {changedWhileOpenNotice(approvals)}
      </p>
      <RulesNotice onOpenRules={onOpenRules} />
      {approvals.length === 0 ? (
        <div className="panel-empty">
          <p className="muted">No call is waiting for a decision.</p>
          <p className="muted small">
            Tools whose policy is <code>ask</code>, and calls whose arguments carry untrusted text, pause here.
          </p>
          {lastDecision !== '' ? <p className="last-decision small">Last decision: {lastDecision}</p> : null}
        </div>
      ) : (
        <div ref={list} className="approvals-list">
          <p className="muted small keyboard-hint">
            Click or Tab into a card, then: <kbd>A</kbd> approve · <kbd>E</kbd> edit · <kbd>D</kbd> deny ·{' '}
            <kbd>Shift+L</kbd> allow for this run. A new or moved card waits a moment before it accepts keys and clicks.
          </p>
          {lastDecision !== '' ? <p className="last-decision small">Last decision: {lastDecision}</p> : null}
          {approvals.map((approval, index) => (
            <ApprovalCard
              key={approvalKey(approval)}
              approval={approval}
              origin={origins.get(approval.runId) ?? { agent: undefined, runId: approval.runId }}
              place={keys.slice(0, index).join(' ')}
              moved={moved.get(approvalKey(approval)) ?? 0}
              theme={theme}
              onDecide={(decision) => approvalsStore.decide(approval, decision)}
              onDecided={(text) => approvalsStore.noteDecision(text)}
              onFocusLost={() => panel.current?.focus()}
            />
          ))}
        </div>
      )}
    </div>
  );
}
