/** One dispatched tool call in the conversation: its arguments, its state, who decided it, its output. */
import { useRef } from 'react';
import { decidedPhrase, describeDecision, studioReason } from '../approvals/approval-scope';
import { DrawnPlain } from '../approvals/DefinitionChange';
import { InlineApproval } from '../approvals/InlineApproval';
import { McpLogin } from '../mcp/McpLogin';
import { InertText } from '../shell/InertText';
import type { Theme } from '../shell/theme';
import type { ConversationItem, DispatchState } from './conversation-builder';
import { DISPATCH_ID_HINT, EditedInFork, ForkFromHere, formatMs, stateLabels, type OnFork } from './conversation-parts';
import { TaintedJson } from './TaintedJson';

/**
 * A call that waits for the person carries its approval card right here (the same card as in the
 * Approvals panel); once decided, the card goes and the call says who decided, and by which rule.
 */
export function DispatchCard({
  runId,
  item,
  live,
  edited,
  taintCheck,
  theme,
  scroller,
  onFork,
}: {
  runId: string;
  item: Extract<ConversationItem, { kind: 'dispatch' }>;
  live: boolean;
  edited: boolean;
  /** The tool's taint check in tools.yaml now: only for decisions recorded without their own. */
  taintCheck: boolean;
  theme: Theme;
  /** The conversation's scrolling box. */
  scroller: () => HTMLElement | null;
  onFork?: OnFork | undefined;
}) {
  const article = useRef<HTMLElement>(null);
  const inFlight = live && (item.state === 'requested' || item.state === 'approved' || item.state === 'edited');
  const shown: DispatchState | 'running' = inFlight ? 'running' : item.state;
  // Who decided and what it covered; a denial's reason is shown on its own line below.
  const decisionNote =
    item.decision && item.decision.kind !== 'deny'
      ? describeDecision(item.decision, item.alias, (item.decision.taintCheck ?? taintCheck) || item.taint.length > 0)
      : undefined;
  return (
    <article
      ref={article}
      className={`conversation-card dispatch state-${shown.replace(' ', '-')}`}
      aria-label={`Tool call ${item.callId}`}
      // Where focus goes after the person decides the call on its card here.
      tabIndex={-1}
    >
      <header className="card-header">
        <span className="card-title">
          <code>{item.alias}</code>{' '}
          <span className="muted" title={DISPATCH_ID_HINT}>
            {item.callId}
          </span>
        </span>
        <span className={`state-badge state-${shown.replace(' ', '-')}`} data-state={shown}>
          {inFlight || item.state === 'awaiting approval' ? <span className="spinner" aria-hidden="true" /> : null}
          {stateLabels[shown]}
        </span>
        {edited ? <EditedInFork /> : null}
        {onFork && item.step !== undefined ? (
          <ForkFromHere
            step={item.step}
            label={`${item.alias} ${item.callId}`}
            onFork={() =>
              onFork({
                step: item.step!,
                kind: 'tool',
                label: `tool ${item.alias} (${item.callId})`,
                text: item.output?.text ?? '',
              })
            }
          />
        ) : null}
      </header>
      {/* Drawn as on the approval card: hidden and direction-changing characters as escapes, tainted spans marked. */}
      {item.arguments !== null ? <TaintedJson value={item.arguments} taint={item.taint} /> : null}
      {item.taint.length > 0 ? (
        <p className="taint-note">
          tainted by {[...new Set(item.taint.map((t) => `output ${t.sourceOutputId}`))].join(', ')}
        </p>
      ) : null}
      {decisionNote ? (
        <p className="decision-note small">
          {decisionNote.before}
          {decisionNote.alias !== '' ? <code>{decisionNote.alias}</code> : null}
          {decisionNote.after}
        </p>
      ) : null}
      {item.decision?.ruleNote ? (
        <p className="decision-rule small muted">
          Rule: <DrawnPlain text={item.decision.ruleNote} />
        </p>
      ) : null}
      {item.state === 'awaiting approval' && live ? (
        <InlineApproval
          runId={runId}
          callId={item.callId}
          theme={theme}
          scroller={scroller}
          focusAfter={() => article.current?.focus()}
        />
      ) : null}
      {item.decision?.kind === 'approve-edited' && item.decision.arguments !== undefined ? (
        <div>
          <p className="small muted">edited arguments</p>
          <TaintedJson value={item.decision.arguments} taint={[]} />
        </div>
      ) : null}
      {item.decision?.kind === 'deny' && item.decision.reason ? (
        <p className="deny-reason">
          Denied {decidedPhrase(item.decision.source)}: {studioReason(item.decision.reason)}
        </p>
      ) : null}
      {item.output ? (
        <div className="tool-output">
          <div className="output-header">
            <span className={`trust-badge trust-${item.output.trust}`}>{item.output.trust}</span>
            <span className="muted small">
              output{item.output.structured ? ' (structured)' : ''} · {formatMs(item.output.durationMs)}
            </span>
          </div>
          <InertText className="inert-text code-block" text={item.output.text} />
        </div>
      ) : null}
      {item.error && item.state !== 'denied' ? (
        <p className="error-text small">
          {item.error.stage}: {item.error.message}
        </p>
      ) : null}
      {item.error?.signIn !== undefined ? (
        <McpLogin server={item.error.signIn} version={`${runId}:${item.callId}`} onFailedCall />
      ) : null}
    </article>
  );
}
