import { json as jsonLanguage } from '@codemirror/lang-json';
import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import type { PendingApproval, StudioDecision } from '../../common/studio-schemas.js';
import { call, describeError } from './studio-api';
import { CodeEditor } from './CodeEditor';
import { parseArguments } from './json-schema-check';
import { TaintedJson } from './TaintedJson';
import type { Theme } from './theme';

type Mode = { kind: 'idle' } | { kind: 'edit'; text: string } | { kind: 'deny'; reason: string };

function approvalKey(approval: PendingApproval): string {
  return `${approval.runId}/${approval.callId}`;
}

function ApprovalCard({
  approval,
  theme,
  registerActions,
}: {
  approval: PendingApproval;
  theme: Theme;
  registerActions: (key: string, actions: CardActions | null) => void;
}) {
  const [mode, setMode] = useState<Mode>({ kind: 'idle' });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const denyInput = useRef<HTMLInputElement>(null);
  const key = approvalKey(approval);
  const originalText = useMemo(() => JSON.stringify(approval.arguments, null, 2), [approval.arguments]);
  const parsed = mode.kind === 'edit' ? parseArguments(mode.text, approval.parameters) : undefined;

  const decide = async (decision: StudioDecision): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      await call('approval:decide', { runId: approval.runId, callId: approval.callId, decision });
    } catch (failure) {
      setError(describeError(failure));
      setBusy(false);
    }
  };

  const actions: CardActions = {
    approve: () => void decide({ kind: 'approve' }),
    edit: () => setMode({ kind: 'edit', text: originalText }),
    deny: () => {
      setMode({ kind: 'deny', reason: '' });
    },
    allowForRun: () => void decide({ kind: 'allow-for-run' }),
  };
  const latestActions = useRef(actions);
  useEffect(() => {
    latestActions.current = actions;
  });
  useEffect(() => {
    registerActions(key, {
      approve: () => latestActions.current.approve(),
      edit: () => latestActions.current.edit(),
      deny: () => latestActions.current.deny(),
      allowForRun: () => latestActions.current.allowForRun(),
    });
    return () => registerActions(key, null);
  }, [key, registerActions]);
  useEffect(() => {
    if (mode.kind === 'deny') denyInput.current?.focus();
  }, [mode.kind]);

  const taintSources = [...new Set(approval.taint.map((span) => span.sourceOutputId))];
  const titleId = `approval-${approval.runId}-${approval.callId}`;
  return (
    <article className="approval-card" aria-labelledby={titleId} data-call-id={approval.callId} tabIndex={-1}>
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
          {parsed && !parsed.ok ? (
            <ul className="problem-list" aria-live="polite" aria-label="Argument problems">
              {parsed.problems.map((problem) => (
                <li key={problem} className="error-text small">
                  {problem}
                </li>
              ))}
            </ul>
          ) : (
            <p className="ok-text small">The arguments fit the tool&apos;s parameters.</p>
          )}
          <div className="button-row">
            <button
              type="button"
              className="button button-primary"
              disabled={busy || !parsed?.ok}
              onClick={() => {
                if (parsed?.ok)
                  void decide({ kind: 'approve-edited', arguments: parsed.value as Record<string, never> });
              }}
            >
              Approve edited
            </button>
            <button type="button" className="button" onClick={() => setMode({ kind: 'idle' })}>
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
            if (mode.reason.trim() !== '') void decide({ kind: 'deny', reason: mode.reason.trim() });
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
                  setMode({ kind: 'idle' });
                }
              }}
            />
            <button type="submit" className="button button-danger" disabled={busy || mode.reason.trim() === ''}>
              Deny
            </button>
            <button type="button" className="button" onClick={() => setMode({ kind: 'idle' })}>
              Cancel
            </button>
          </div>
        </form>
      ) : null}
      {mode.kind === 'idle' ? (
        <div className="button-row" role="group" aria-label={`Decide ${approval.alias} ${approval.callId}`}>
          <button type="button" className="button button-primary" disabled={busy} onClick={actions.approve}>
            <kbd>A</kbd> Approve
          </button>
          <button type="button" className="button" disabled={busy} onClick={actions.edit}>
            <kbd>E</kbd> Edit then approve
          </button>
          <button type="button" className="button button-danger" disabled={busy} onClick={actions.deny}>
            <kbd>D</kbd> Deny…
          </button>
          <button type="button" className="button" disabled={busy} onClick={actions.allowForRun}>
            <kbd>L</kbd> Allow for this run
          </button>
        </div>
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

/** Whether a key event comes from a text field (editors live in shadow roots: look at the real origin). */
function isTyping(event: Event): boolean {
  const target = event.composedPath()[0];
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || target.tagName === 'INPUT' || target.tagName === 'TEXTAREA';
}

/** Every call waiting for a decision; keyboard: A approve, E edit, D deny, L allow for this run. */
export function ApprovalsPanel({ approvals, theme }: { approvals: PendingApproval[]; theme: Theme }) {
  const actions = useRef(new Map<string, CardActions>());
  const list = useRef<HTMLDivElement>(null);
  const hasCards = approvals.length > 0;
  // Opening the tab puts the keyboard on the cards, so A/E/D/L work at once.
  useEffect(() => {
    if (hasCards) list.current?.focus();
  }, [hasCards]);
  const registerActions = useMemo(
    () => (key: string, value: CardActions | null) => {
      if (value) actions.current.set(key, value);
      else actions.current.delete(key);
    },
    [],
  );

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>): void => {
    if (isTyping(event.nativeEvent) || event.ctrlKey || event.metaKey || event.altKey) return;
    const card = (event.target as HTMLElement).closest<HTMLElement>('.approval-card');
    const target = card ? approvals.find((approval) => approval.callId === card.dataset['callId']) : approvals[0];
    if (!target) return;
    const cardActions = actions.current.get(approvalKey(target));
    const handler = {
      a: cardActions?.approve,
      e: cardActions?.edit,
      d: cardActions?.deny,
      l: cardActions?.allowForRun,
    }[event.key.toLowerCase()];
    if (handler) {
      event.preventDefault();
      handler();
    }
  };

  if (approvals.length === 0) {
    return (
      <div className="panel-empty">
        <p className="muted">No call is waiting for a decision.</p>
        <p className="muted small">
          Tools whose policy is <code>ask</code>, and calls whose arguments carry untrusted text, pause here.
        </p>
      </div>
    );
  }
  return (
    <div
      ref={list}
      className="approvals-list"
      role="region"
      aria-label="Pending approvals"
      tabIndex={0}
      onKeyDown={onKeyDown}
    >
      <p className="muted small keyboard-hint">
        Keys (when this panel has focus): <kbd>A</kbd> approve · <kbd>E</kbd> edit · <kbd>D</kbd> deny · <kbd>L</kbd>{' '}
        allow for this run
      </p>
      {approvals.map((approval) => (
        <ApprovalCard key={approvalKey(approval)} approval={approval} theme={theme} registerActions={registerActions} />
      ))}
    </div>
  );
}
