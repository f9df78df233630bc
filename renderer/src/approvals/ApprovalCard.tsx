import { json as jsonLanguage } from '@codemirror/lang-json';
import { useEffect, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent, type MouseEvent } from 'react';
import type { PendingApproval, StudioDecision } from '../../../common/studio-schemas.js';
import { CodeEditor } from '../editor/CodeEditor';
import { isTyping } from '../shell/keyboard';
import type { Theme } from '../shell/theme';
import { TaintedJson } from '../run/TaintedJson';
import {
  approvalKey,
  decisionFor,
  ignoredNotice,
  type CardActions,
  type CardOrigin,
  type Ignored,
  type Mode,
} from './approval-card-logic';
import { AlwaysAllow } from './AlwaysAllow';
import { approvalsStore } from './approvals-store';
import { RuleLine, ServerClaims, SinksLine } from './CardFacts';
import { allowForRunScope, scopeSentence } from './approval-scope';
import { CardShell, useDeliberateFocus } from './CardShell';
import { watchPersonInput } from './deliberate-focus';
import { useArgumentsCheck } from './use-arguments-check';
import { useCardArming } from './use-card-arming';
import { DefinitionChange, Disclosure, SchemaBlock } from './DefinitionChange';

/** The props of {@link ApprovalCard}. */
export interface ApprovalCardProps {
  approval: PendingApproval;
  origin: CardOrigin;
  /** The cards above this one: when it changes, the card moved. */
  place: string;
  /** How often the panel saw the card move on screen (see ApprovalsPanel): each move arms again. */
  moved: number;
  theme: Theme;
  /** Sends the decision to main: resolves with undefined once taken, or with why it was not. */
  onDecide: (decision: StudioDecision) => Promise<string | undefined>;
  onDecided: (announcement: string) => void;
  /** The card is going away (decided elsewhere or here) while focus is inside it. */
  onFocusLost: () => void;
}

/**
 * One call waiting for a decision: what it is, its arguments, why it asks, and the decision
 * buttons. The one card of the studio: the Approvals panel, the conversation and the tool trial
 * all show it, each with its own host for where focus goes afterwards (see InlineApproval).
 */
export function ApprovalCard({
  approval,
  origin,
  place,
  moved,
  theme,
  onDecide,
  onDecided,
  onFocusLost,
}: ApprovalCardProps) {
  const [mode, setMode] = useState<Mode>({ kind: 'idle' });
  // The busy state belongs to one asking of the call (\`askedAt\`), and arming to one \`arming\`
  // token (that asking, the cards above, and every other reason to arm again): when the call is
  // asked anew (an edit the core refused comes back as the same card with \`rejectedEdit\`) or the
  // card moves, it is disarmed in the same render, with no window in which an old \`armed\` could
  // take a key or a click.
  const [busyFor, setBusyFor] = useState<string | null>(null);
  const card = useRef<HTMLElement>(null);
  const { armed, arming, shown } = useCardArming(card, approval.askedAt, place, moved);
  const busy = busyFor === approval.askedAt;
  const [error, setError] = useState<string | null>(null);
  /** A press the card did not act on, and why: said on the card and to screen readers. */
  const [ignored, setIgnored] = useState<Ignored | null>(null);
  /** What saving a rule did, when the call still waits. */
  const [ruleOutcome, setRuleOutcome] = useState<string | null>(null);
  const denyInput = useRef<HTMLInputElement>(null);
  const focus = useDeliberateFocus();
  const deliberate = focus.deliberate;
  const key = approvalKey(approval);
  const originalText = useMemo(() => JSON.stringify(approval.arguments, null, 2), [approval.arguments]);
  // The core's verdict (the validator the dispatcher runs for this run), asked while the person types.
  const check = useArgumentsCheck(approval.alias, mode.kind === 'edit' ? mode.text : undefined, approval.runId);
  // The run's own taint check (from the core), not the workspace's current tools.yaml.
  const taintCheck = approval.taintCheck;
  const scope = allowForRunScope(approval.alias, taintCheck || approval.reason === 'tainted', undefined);
  // What brought focus here is watched wherever a card shows (the panel, the conversation, a trial).
  useEffect(() => watchPersonInput(), []);
  const focusLost = useRef(onFocusLost);
  useEffect(() => {
    focusLost.current = onFocusLost;
  });
  useLayoutEffect(() => {
    const element = card.current;
    return () => {
      if (element?.contains(document.activeElement)) focusLost.current();
    };
  }, []);

  const send = async (decision: StudioDecision, announcement: string): Promise<void> => {
    setBusyFor(approval.askedAt);
    setError(null);
    setIgnored(null);
    const problem = await onDecide(decision);
    if (problem === undefined) {
      onDecided(announcement);
      return;
    }
    setError(problem);
    setBusyFor(null);
  };

  const idleAgain = (): void => {
    setMode({ kind: 'idle' });
    card.current?.focus();
  };

  const actions: CardActions = {
    approve: () => void send({ kind: 'approve' }, `Approved by you: ${approval.alias} ${approval.callId}.`),
    edit: () => setMode({ kind: 'edit', text: originalText }),
    deny: () => setMode({ kind: 'deny', reason: '' }),
    allowForRun: () =>
      void send(
        { kind: 'allow-for-run' },
        scopeSentence(allowForRunScope(approval.alias, taintCheck || approval.reason === 'tainted', 'by you')),
      ),
    alwaysAllow: () => {
      setRuleOutcome(null);
      setMode({ kind: 'rule' });
    },
  };
  useEffect(() => {
    if (mode.kind === 'deny') denyInput.current?.focus();
  }, [mode.kind]);

  /**
   * A button's click acts only on an armed card, and never as the second click of a double click:
   * the first click may have decided the card that was here, and this one is in its place now.
   * A click that does not act says why (the buttons stay reachable while the card arms).
   */
  const onClick =
    (act: () => void) =>
    (event: MouseEvent<HTMLButtonElement>): void => {
      event.preventDefault();
      if (busy) return;
      if (event.detail > 1) return setIgnored('double');
      if (!armed) return setIgnored('arming');
      setIgnored(null);
      act();
    };

  const onKeyDown = (event: KeyboardEvent<HTMLElement>): void => {
    const decision = decisionFor(event);
    if (decision === undefined || mode.kind !== 'idle' || isTyping(event.nativeEvent)) return;
    // Keys count only when the person put focus here, and only once the card is armed; a key that
    // does not count is not dropped silently.
    event.preventDefault();
    if (busy) return;
    if (!deliberate.current) return setIgnored('focus');
    if (!armed) return setIgnored('arming');
    setIgnored(null);
    actions[decision]();
  };
  const notice = ignored === null ? '' : ignoredNotice(ignored, armed);
  const inactive = busy || !armed;

  const taintSources = [...new Set(approval.taint.map((span) => span.sourceOutputId))];
  const titleId = `approval-${approval.runId}-${approval.callId}`;
  return (
    <CardShell
      cardRef={card}
      className="approval-card"
      titleId={titleId}
      runId={approval.runId}
      callId={approval.callId}
      armed={armed}
      shown={shown}
      arming={arming}
      armingTitle="This new or moved card accepts keys and clicks in a moment"
      keys={{ hint: 'Keys: A approve, E edit, D deny, Shift+L allow for this run.', onKeyDown, focus }}
    >
      <header className="card-header">
        <h3 id={titleId}>
          <code>{approval.alias}</code> <span className="muted small">{approval.callId}</span>
        </h3>
        <span className={`reason-badge reason-${approval.reason}`}>
          {approval.reason === 'tainted' ? 'tainted arguments' : 'policy: ask'}
        </span>
      </header>
      <p id={`${titleId}-origin`} className="approval-origin small">
        {origin.agent !== undefined ? (
          <>
            Agent <code>{origin.agent}</code>
            {origin.startedAt !== undefined ? `, run started ${origin.startedAt}` : ''}
            {origin.runId !== undefined ? ` (${origin.runId})` : ''}
          </>
        ) : (
          <>
            Run <code>{origin.runId}</code>
          </>
        )}
      </p>
      <p className="approval-description">{approval.description}</p>
      {approval.definitionChange ? <DefinitionChange change={approval.definitionChange} titleId={titleId} /> : null}
      {taintSources.length > 0 ? (
        <p className="taint-note">tainted by {taintSources.map((id) => `output ${id}`).join(', ')}</p>
      ) : null}
      <RuleLine approval={approval} />
      <SinksLine sinks={approval.sinks} />
      <ServerClaims annotations={approval.annotations} trusted={approval.annotationsTrusted} />
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
              aria-disabled={inactive || check.state !== 'valid'}
              onClick={onClick(() => {
                if (check.state === 'valid')
                  void send(
                    { kind: 'approve-edited', arguments: check.value },
                    `Approved with edited arguments by you: ${approval.alias} ${approval.callId}.`,
                  );
                else setError('Not approved: the edited arguments do not fit the tool’s parameters yet.');
              })}
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
      <Disclosure label="Parameter schema of the tool">
        <SchemaBlock schema={approval.parameters} label={`Parameter schema of ${approval.alias}`} />
      </Disclosure>
      {approval.rejectedEdit ? (
        <p className="error-text small">Previous edit refused: {approval.rejectedEdit}</p>
      ) : null}
      {mode.kind === 'deny' ? (
        <form
          className="deny-form"
          onSubmit={(event) => {
            event.preventDefault();
            const reason = mode.reason.trim();
            if (busy) return;
            if (!armed) return setIgnored('arming');
            if (reason === '') setError('A denial needs a reason: type it, then Deny.');
            else void send({ kind: 'deny', reason }, `Denied by you: ${approval.alias} ${approval.callId}.`);
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
            <button
              type="submit"
              className="button button-danger"
              aria-disabled={inactive || mode.reason.trim() === ''}
              onClick={(event) => {
                // Never the second click of a double click (see onClick).
                if (event.detail > 1) {
                  event.preventDefault();
                  setIgnored('double');
                }
              }}
            >
              Deny
            </button>
            <button type="button" className="button" onClick={idleAgain}>
              Cancel
            </button>
          </div>
        </form>
      ) : null}
      {mode.kind === 'rule' ? (
        <AlwaysAllow
          approval={approval}
          onCancel={idleAgain}
          onSaved={(outcome) => {
            if (outcome.approved) {
              // The call ran: its card leaves every view now (main's approval-resolved follows).
              approvalsStore.resolved(approval);
              onDecided(`${outcome.note} (${approval.alias} ${approval.callId})`);
              return;
            }
            setRuleOutcome(outcome.note);
            idleAgain();
          }}
        />
      ) : null}
      {mode.kind === 'idle' ? (
        <>
          <div className="button-row" role="group" aria-label={`Decide ${approval.alias} ${approval.callId}`}>
            <button
              type="button"
              className="button button-primary"
              aria-disabled={inactive}
              onClick={onClick(actions.approve)}
            >
              <kbd>A</kbd> Approve
            </button>
            <button type="button" className="button" aria-disabled={inactive} onClick={onClick(actions.edit)}>
              <kbd>E</kbd> Edit then approve
            </button>
            <button
              type="button"
              className="button button-danger"
              aria-disabled={inactive}
              onClick={onClick(actions.deny)}
            >
              <kbd>D</kbd> Deny…
            </button>
            <button
              type="button"
              className="button"
              aria-disabled={inactive}
              onClick={onClick(actions.allowForRun)}
              aria-describedby={`${titleId}-scope`}
            >
              <kbd>Shift+L</kbd> Allow for this run
            </button>
            <button type="button" className="button" aria-disabled={inactive} onClick={onClick(actions.alwaysAllow)}>
              Always allow…
            </button>
          </div>
          <p id={`${titleId}-scope`} className="allow-scope small muted">
            {scope.before}
            <code>{scope.alias}</code>
            {scope.after}
          </p>
          {ruleOutcome ? (
            <p className="small muted" role="status">
              {ruleOutcome}
            </p>
          ) : null}
        </>
      ) : null}
      <p className="arming-notice small" role="status" aria-live="polite">
        {notice}
      </p>
      {error ? (
        <p role="alert" className="error-text small">
          {error}
        </p>
      ) : null}
    </CardShell>
  );
}
