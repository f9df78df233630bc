import { json as jsonLanguage } from '@codemirror/lang-json';
import { useEffect, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import type { PendingApproval, StudioDecision } from '../../../common/studio-schemas.js';
import { call, describeError } from '../shell/studio-api';
import { CodeEditor } from '../editor/CodeEditor';
import { allowForRunScope, scopeSentence } from './approval-scope';
import { focusWasDeliberate, watchPersonInput } from './deliberate-focus';
import { useArgumentsCheck } from './use-arguments-check';
import { isTyping } from '../shell/keyboard';
import { TaintedJson } from '../run/TaintedJson';
import type { Theme } from '../shell/theme';
import './approvals.css';

type Mode = { kind: 'idle' } | { kind: 'edit'; text: string } | { kind: 'deny'; reason: string };

function approvalKey(approval: PendingApproval): string {
  return `${approval.runId}/${approval.callId}`;
}

/**
 * How long a new card ignores keys and clicks, like a browser's permission prompt: a key or click
 * meant for something else, in flight when the card appears, lands on nothing. The arming bar in
 * approvals.css (`.arm-bar`) runs for the same time.
 */
export const armDelayMs = 800;

/** Keys a focused, armed card acts on; `L` needs Shift, since it allows more than one call. */
function decisionFor(event: KeyboardEvent<HTMLElement>): keyof CardActions | undefined {
  if (event.ctrlKey || event.metaKey || event.altKey || event.repeat) return undefined;
  const key = event.key.toLowerCase();
  if (key === 'l') return event.shiftKey ? 'allowForRun' : undefined;
  if (event.shiftKey) return undefined;
  return ({ a: 'approve', e: 'edit', d: 'deny' } as const)[key];
}

function ApprovalCard({
  approval,
  theme,
  taintCheck,
  onDecided,
  onFocusLost,
}: {
  approval: PendingApproval;
  theme: Theme;
  /** The tool's taint-check setting (what "allow for this run" then covers). */
  taintCheck: boolean;
  onDecided: (announcement: string) => void;
  /** The card is going away (decided elsewhere or here) while focus is inside it. */
  onFocusLost: () => void;
}) {
  const [mode, setMode] = useState<Mode>({ kind: 'idle' });
  // Both belong to one asking of the call (\`askedAt\`): when the call is asked anew (an edit the
  // core refused comes back as the same card with \`rejectedEdit\`), the card is disarmed and idle
  // again in the same render, with no window in which an old \`armed\` could take a key.
  const [busyFor, setBusyFor] = useState<string | null>(null);
  const [armedFor, setArmedFor] = useState<string | null>(null);
  const busy = busyFor === approval.askedAt;
  const armed = armedFor === approval.askedAt;
  const [error, setError] = useState<string | null>(null);
  const denyInput = useRef<HTMLInputElement>(null);
  const card = useRef<HTMLElement>(null);
  /** Focus came in by the person's click or Tab/arrow, and has not left the card since. */
  const deliberate = useRef(false);
  const key = approvalKey(approval);
  const originalText = useMemo(() => JSON.stringify(approval.arguments, null, 2), [approval.arguments]);
  // The core's verdict (the validator the dispatcher runs for this run), asked while the person types.
  const check = useArgumentsCheck(approval.alias, mode.kind === 'edit' ? mode.text : undefined, approval.runId);
  const scope = allowForRunScope(approval.alias, taintCheck || approval.reason === 'tainted', undefined);
  const focusLost = useRef(onFocusLost);
  useEffect(() => {
    focusLost.current = onFocusLost;
  });

  // Armed a moment after the card arrives, and again after the call is asked anew (an edit the
  // core refused comes back as the same card with \`rejectedEdit\`).
  useEffect(() => {
    const askedAt = approval.askedAt;
    const timer = window.setTimeout(() => setArmedFor(askedAt), armDelayMs);
    return () => window.clearTimeout(timer);
  }, [approval.askedAt]);
  useLayoutEffect(() => {
    const element = card.current;
    return () => {
      if (element?.contains(document.activeElement)) focusLost.current();
    };
  }, []);

  const decide = async (decision: StudioDecision, announcement: string): Promise<void> => {
    setBusyFor(approval.askedAt);
    setError(null);
    try {
      await call('approval:decide', { runId: approval.runId, callId: approval.callId, decision });
      onDecided(announcement);
    } catch (failure) {
      setError(describeError(failure));
      setBusyFor(null);
    }
  };

  const idleAgain = (): void => {
    setMode({ kind: 'idle' });
    card.current?.focus();
  };

  const actions: CardActions = {
    approve: () => void decide({ kind: 'approve' }, `Approved by you: ${approval.alias} ${approval.callId}.`),
    edit: () => setMode({ kind: 'edit', text: originalText }),
    deny: () => setMode({ kind: 'deny', reason: '' }),
    allowForRun: () =>
      void decide(
        { kind: 'allow-for-run' },
        scopeSentence(allowForRunScope(approval.alias, taintCheck || approval.reason === 'tainted', 'by you')),
      ),
  };
  useEffect(() => {
    if (mode.kind === 'deny') denyInput.current?.focus();
  }, [mode.kind]);

  const onKeyDown = (event: KeyboardEvent<HTMLElement>): void => {
    const decision = decisionFor(event);
    if (decision === undefined || mode.kind !== 'idle' || isTyping(event.nativeEvent)) return;
    // Keys count only when the person put focus here, and only once the card is armed.
    event.preventDefault();
    if (!deliberate.current || !armed || busy) return;
    actions[decision]();
  };

  const taintSources = [...new Set(approval.taint.map((span) => span.sourceOutputId))];
  const titleId = `approval-${approval.runId}-${approval.callId}`;
  return (
    <article
      ref={card}
      className={`approval-card${armed ? '' : ' arming'}`}
      aria-labelledby={titleId}
      aria-describedby={`${titleId}-keys`}
      data-call-id={approval.callId}
      data-run-id={approval.runId}
      data-armed={armed ? 'true' : 'false'}
      tabIndex={0}
      onKeyDown={onKeyDown}
      onFocus={(event) => {
        deliberate.current = deliberate.current || focusWasDeliberate(event.currentTarget);
      }}
      onBlur={(event) => {
        if (!(event.relatedTarget instanceof Node && event.currentTarget.contains(event.relatedTarget)))
          deliberate.current = false;
      }}
    >
      {armed ? null : (
        <div className="arm-bar" aria-hidden="true" title="This new card accepts keys and clicks in a moment" />
      )}
      <p id={`${titleId}-keys`} className="visually-hidden">
        {armed
          ? 'Keys: A approve, E edit, D deny, Shift+L allow for this run.'
          : 'New card: keys and buttons wake up in a moment.'}
      </p>
      <header className="card-header">
        <h3 id={titleId}>
          <code>{approval.alias}</code> <span className="muted small">{approval.callId}</span>
        </h3>
        <span className={`reason-badge reason-${approval.reason}`}>
          {approval.reason === 'tainted' ? 'tainted arguments' : 'policy: ask'}
        </span>
      </header>
      <p className="approval-description">{approval.description}</p>
      {taintSources.length > 0 ? (
        <p className="taint-note">tainted by {taintSources.map((id) => `output ${id}`).join(', ')}</p>
      ) : null}
      {mode.kind === 'edit' ? (
        <div className="edit-arguments">
          <label className="small muted" htmlFor={`${titleId}-editor`}>
            Edit the arguments (JSON), checked against the tool&apos;s parameters
          </label>
          <div id={`${titleId}-editor`} className="json-editor">
            <CodeEditor
              documentKey={`${key}-edit`}
              initialText={originalText}
              theme={theme}
              ariaLabel={`Edited arguments for ${approval.alias}`}
              language={jsonLanguage()}
              onChange={(text) => setMode({ kind: 'edit', text })}
            />
          </div>
          {check.state === 'invalid' ? (
            <ul className="problem-list" aria-live="polite" aria-label="Argument problems">
              {check.problems.map((problem) => (
                <li key={problem} className="error-text small">
                  {problem}
                </li>
              ))}
            </ul>
          ) : check.state === 'valid' ? (
            <p className="ok-text small">The arguments fit the tool&apos;s parameters.</p>
          ) : (
            <p className="muted small">Checking the arguments…</p>
          )}
          <div className="button-row">
            <button
              type="button"
              className="button button-primary"
              disabled={busy || check.state !== 'valid'}
              onClick={() => {
                if (check.state === 'valid')
                  void decide(
                    { kind: 'approve-edited', arguments: check.value },
                    `Approved with edited arguments by you: ${approval.alias} ${approval.callId}.`,
                  );
              }}
            >
              Approve edited
            </button>
            <button type="button" className="button" onClick={idleAgain}>
              Cancel edit
            </button>
          </div>
        </div>
      ) : (
        <TaintedJson value={approval.arguments} taint={approval.taint} />
      )}
      {approval.rejectedEdit ? (
        <p className="error-text small">Previous edit refused: {approval.rejectedEdit}</p>
      ) : null}
      {mode.kind === 'deny' ? (
        <form
          className="deny-form"
          onSubmit={(event) => {
            event.preventDefault();
            const reason = mode.reason.trim();
            if (reason !== '')
              void decide({ kind: 'deny', reason }, `Denied by you: ${approval.alias} ${approval.callId}.`);
          }}
        >
          <label htmlFor={`${titleId}-reason`}>Reason for denying (required; the script sees it)</label>
          <div className="button-row">
            <input
              id={`${titleId}-reason`}
              ref={denyInput}
              className="text-input"
              value={mode.reason}
              onChange={(event) => setMode({ kind: 'deny', reason: event.target.value })}
              onKeyDown={(event) => {
                if (event.key === 'Escape') {
                  event.stopPropagation();
                  idleAgain();
                }
              }}
            />
            <button type="submit" className="button button-danger" disabled={busy || mode.reason.trim() === ''}>
              Deny
            </button>
            <button type="button" className="button" onClick={idleAgain}>
              Cancel
            </button>
          </div>
        </form>
      ) : null}
      {mode.kind === 'idle' ? (
        <>
          <div className="button-row" role="group" aria-label={`Decide ${approval.alias} ${approval.callId}`}>
            <button type="button" className="button button-primary" disabled={busy || !armed} onClick={actions.approve}>
              <kbd>A</kbd> Approve
            </button>
            <button type="button" className="button" disabled={busy || !armed} onClick={actions.edit}>
              <kbd>E</kbd> Edit then approve
            </button>
            <button type="button" className="button button-danger" disabled={busy || !armed} onClick={actions.deny}>
              <kbd>D</kbd> Deny…
            </button>
            <button
              type="button"
              className="button"
              disabled={busy || !armed}
              onClick={actions.allowForRun}
              aria-describedby={`${titleId}-scope`}
            >
              <kbd>Shift+L</kbd> Allow for this run
            </button>
          </div>
          <p id={`${titleId}-scope`} className="allow-scope small muted">
            {scope.before}
            <code>{scope.alias}</code>
            {scope.after}
          </p>
        </>
      ) : null}
      {error ? (
        <p role="alert" className="error-text small">
          {error}
        </p>
      ) : null}
    </article>
  );
}

interface CardActions {
  approve(): void;
  edit(): void;
  deny(): void;
  allowForRun(): void;
}

/**
 * Every call waiting for a decision. Nothing here ever moves focus on its own when a card arrives:
 * the person clicks or Tabs into a card (arrow keys move between cards), and a card acts on
 * A / E / D / Shift+L only then, and only once it is armed (`data-armed`).
 */
export function ApprovalsPanel({
  approvals,
  theme,
  taintCheckOf,
}: {
  approvals: PendingApproval[];
  theme: Theme;
  /** The tool's taint-check setting; true when unknown. */
  taintCheckOf: (alias: string) => boolean;
}) {
  const panel = useRef<HTMLDivElement>(null);
  const [lastDecision, setLastDecision] = useState('');
  useEffect(() => watchPersonInput(), []);

  const moveBetweenCards = (event: KeyboardEvent<HTMLDivElement>): void => {
    if (!['ArrowDown', 'ArrowUp', 'Home', 'End'].includes(event.key) || isTyping(event.nativeEvent)) return;
    if (event.ctrlKey || event.metaKey || event.altKey || event.shiftKey) return;
    const cards = [...(panel.current?.querySelectorAll<HTMLElement>('.approval-card') ?? [])];
    if (cards.length === 0) return;
    const from = cards.findIndex((card) => card === event.target);
    const to =
      event.key === 'Home'
        ? 0
        : event.key === 'End'
          ? cards.length - 1
          : from < 0
            ? 0
            : Math.min(cards.length - 1, Math.max(0, from + (event.key === 'ArrowDown' ? 1 : -1)));
    // Only from the panel itself or from a card, so arrows inside an argument editor stay its own.
    if (from < 0 && event.target !== panel.current && event.target !== event.currentTarget) return;
    event.preventDefault();
    cards[to]!.focus();
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
      {approvals.length === 0 ? (
        <div className="panel-empty">
          <p className="muted">No call is waiting for a decision.</p>
          <p className="muted small">
            Tools whose policy is <code>ask</code>, and calls whose arguments carry untrusted text, pause here.
          </p>
          {lastDecision !== '' ? <p className="last-decision small">Last decision: {lastDecision}</p> : null}
        </div>
      ) : (
        <div className="approvals-list">
          <p className="muted small keyboard-hint">
            Click or Tab into a card, then: <kbd>A</kbd> approve · <kbd>E</kbd> edit · <kbd>D</kbd> deny ·{' '}
            <kbd>Shift+L</kbd> allow for this run. A new card waits a moment before it accepts keys.
          </p>
          {lastDecision !== '' ? <p className="last-decision small">Last decision: {lastDecision}</p> : null}
          {approvals.map((approval) => (
            <ApprovalCard
              key={approvalKey(approval)}
              approval={approval}
              theme={theme}
              taintCheck={taintCheckOf(approval.alias)}
              onDecided={setLastDecision}
              onFocusLost={() => panel.current?.focus()}
            />
          ))}
        </div>
      )}
    </div>
  );
}
