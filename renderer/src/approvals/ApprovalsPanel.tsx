import { useEffect, useState, type KeyboardEvent } from 'react';
import type { PendingApproval, StudioDecision } from '../../../common/studio-schemas.js';
import { call, describeError } from '../shell/studio-api';
import { isTyping } from '../shell/keyboard';
import type { Theme } from '../shell/theme';
import { ApprovalCard } from './ApprovalCard';
import { approvalKey, cardIndexFor, cardOrigins, changedWhileOpenNotice } from './approval-card-logic';
import { watchPersonInput } from './deliberate-focus';
import { useRunOrigins } from './run-origins';
import { useCardMotion } from './use-card-arming';
import './approvals.css';

/** Sends a person's decision on `approval` to main: undefined once taken, else why it was not. */
async function sendDecision(approval: PendingApproval, decision: StudioDecision): Promise<string | undefined> {
  try {
    await call('approval:decide', { runId: approval.runId, callId: approval.callId, decision });
    return undefined;
  } catch (failure) {
    return describeError(failure);
  }
}

/**
 * Every call waiting for a decision. Nothing here ever moves focus on its own when a card arrives:
 * the person clicks or Tabs into a card (arrow keys move between cards), and a card acts on
 * A / E / D / Shift+L only then, and only once it is armed (`data-armed`). Each card names the
 * agent whose run asks (and, when several runs of one agent wait, when its run started).
 */
export function ApprovalsPanel({ approvals, theme }: { approvals: PendingApproval[]; theme: Theme }) {
  const [lastDecision, setLastDecision] = useState('');
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
              decide={(decision) => sendDecision(approval, decision)}
              onDecided={setLastDecision}
              onFocusLost={() => panel.current?.focus()}
            />
          ))}
        </div>
      )}
    </div>
  );
}
