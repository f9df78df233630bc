/**
 * A sampling request of an MCP server as an approval card: the server, the messages it wants the
 * model to answer (its words, untrusted), the model that would answer and the token limit;
 * Approve, Edit (the messages, the system prompt, the limit) or Deny with a reason. The same rules
 * as a tool call's card: it acts only once armed, and its keys (A, E, D) only after the person
 * clicked or tabbed into it.
 */
import { useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';
import { MAX_SAMPLING_TOKENS, type PendingSampling, type SamplingDecision } from '../../../common/mcp-person.js';
import { decisionFor } from '../approvals/approval-card-logic';
import { CardShell, useDeliberateFocus } from '../approvals/CardShell';
import type { RunOrigin } from '../approvals/run-origins';
import { useCardArming } from '../approvals/use-card-arming';
import { isTyping } from '../shell/keyboard';
import { call, describeError } from '../shell/studio-api';
import { editedTokens } from './elicitation-form';
import { QuestionHeading, UntrustedText } from './question-parts';
import { useCardPress } from './use-card-press';

export interface SamplingCardProps {
  pending: PendingSampling;
  origin: RunOrigin | undefined;
  place: string;
  moved: number;
  onDecided: (announcement: string) => void;
  onFocusLost: () => void;
}

type Mode =
  | { kind: 'idle' }
  | { kind: 'edit'; messages: PendingSampling['messages']; system: string; tokens: string }
  | { kind: 'deny'; reason: string };

export function SamplingCard({ pending, origin, place, moved, onDecided, onFocusLost }: SamplingCardProps) {
  const card = useRef<HTMLElement>(null);
  const { armed, arming, shown } = useCardArming(card, pending.askedAt, place, moved);
  const [mode, setMode] = useState<Mode>({ kind: 'idle' });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const denyInput = useRef<HTMLInputElement>(null);
  const focus = useDeliberateFocus();
  const deliberate = focus.deliberate;
  const focusLost = useRef(onFocusLost);
  useLayoutEffect(() => {
    focusLost.current = onFocusLost;
  });
  useLayoutEffect(() => {
    const element = card.current;
    return () => {
      if (element?.contains(document.activeElement)) focusLost.current();
    };
  }, []);
  useEffect(() => {
    if (mode.kind === 'deny') denyInput.current?.focus();
  }, [mode.kind]);

  const send = async (decision: SamplingDecision, announcement: string): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      await call('mcp:decide-sampling', { id: pending.id, decision });
      onDecided(announcement);
    } catch (failure) {
      setError(describeError(failure));
      setBusy(false);
    }
  };
  const idleAgain = (): void => {
    setMode({ kind: 'idle' });
    card.current?.focus();
  };
  const actions = {
    approve: () => void send({ kind: 'approve' }, `Approved by you: sampling for ${pending.server}.`),
    edit: () =>
      setMode({
        kind: 'edit',
        messages: pending.messages,
        system: pending.systemPrompt ?? '',
        tokens: String(pending.maxTokens),
      }),
    deny: () => setMode({ kind: 'deny', reason: '' }),
  };
  // The approval card's rules for a press (use-card-press.ts): a press that does not act says why.
  const press = useCardPress(armed, busy);
  const onClick = press.onClick;
  const inactive = busy || !armed;
  const onKeyDown = (event: KeyboardEvent<HTMLElement>): void => {
    if (mode.kind !== 'idle' || isTyping(event.nativeEvent)) return;
    const decision = decisionFor(event);
    if (decision === undefined || decision === 'allowForRun') return;
    event.preventDefault();
    if (press.keyMayAct(deliberate.current)) actions[decision]();
  };

  const titleId = `sampling-${pending.id}`;
  const about = `sampling for ${pending.server} ${pending.id}`;
  const tokens = mode.kind === 'edit' ? editedTokens(mode.tokens) : undefined;
  const editProblem =
    mode.kind !== 'edit'
      ? undefined
      : tokens && !tokens.ok
        ? tokens.problem
        : mode.messages.every((message) => message.text.trim() === '')
          ? 'The messages are empty.'
          : undefined;
  return (
    <CardShell
      cardRef={card}
      className="approval-card mcp-question-card"
      titleId={titleId}
      runId={pending.runId}
      callId={pending.id}
      armed={armed}
      shown={shown}
      arming={arming}
      armingTitle="This new or moved card accepts keys and clicks in a moment"
      keys={{ hint: 'Keys: A approve, E edit, D deny.', onKeyDown, focus }}
    >
      <QuestionHeading
        id={titleId}
        server={pending.server}
        what="asks your model for an answer"
        badge={<span className="reason-badge">sampling</span>}
        question={pending}
        origin={origin}
      />
      <dl className="details mcp-sampling-facts">
        <div className="details-row">
          <dt>Model</dt>
          <dd>
            <code>{pending.model.alias}</code>{' '}
            <span className="muted small">
              ({pending.model.provider}, {pending.model.modelId})
            </span>
          </dd>
        </div>
        <div className="details-row">
          <dt>Token limit</dt>
          <dd>
            {pending.maxTokens.toLocaleString('en')}
            {pending.requestedMaxTokens !== undefined ? (
              <span className="muted small">
                {' '}
                (the server asked for {pending.requestedMaxTokens.toLocaleString('en')}; at most{' '}
                {MAX_SAMPLING_TOKENS.toLocaleString('en')} are given)
              </span>
            ) : null}
          </dd>
        </div>
        {pending.temperature !== undefined ? (
          <div className="details-row">
            <dt>Temperature</dt>
            <dd>{pending.temperature}</dd>
          </div>
        ) : null}
      </dl>
      {mode.kind === 'edit' ? (
        <form
          className="mcp-sampling-edit"
          aria-label={`Edit ${about}`}
          onSubmit={(event) => {
            event.preventDefault();
            if (editProblem !== undefined || !tokens?.ok || !press.submitMayAct()) return;
            void send(
              {
                kind: 'approve-edited',
                // Only what the person changed goes as their words; the rest stays the server's.
                ...(JSON.stringify(mode.messages) !== JSON.stringify(pending.messages) && { messages: mode.messages }),
                ...(mode.system !== (pending.systemPrompt ?? '') && { systemPrompt: mode.system }),
                maxTokens: tokens.value,
              },
              `Approved with your edit: sampling for ${pending.server}.`,
            );
          }}
        >
          <p className="small muted">Your edit is sent as your own words, not as the server’s.</p>
          <div className="mcp-edit-field">
            <label className="small" htmlFor={`${titleId}-system`}>
              System prompt
            </label>
            <textarea
              id={`${titleId}-system`}
              className="text-input"
              rows={2}
              value={mode.system}
              onChange={(event) => setMode({ ...mode, system: event.target.value })}
            />
          </div>
          {mode.messages.map((message, index) => (
            <div key={index} className="mcp-edit-field">
              <label className="small" htmlFor={`${titleId}-message-${index}`}>
                Message {index + 1} ({message.role})
              </label>
              <textarea
                id={`${titleId}-message-${index}`}
                className="text-input"
                rows={3}
                value={message.text}
                onChange={(event) =>
                  setMode({
                    ...mode,
                    messages: mode.messages.map((old, at) =>
                      at === index ? { ...old, text: event.target.value } : old,
                    ),
                  })
                }
              />
            </div>
          ))}
          <div className="mcp-edit-field mcp-edit-tokens">
            <label className="small" htmlFor={`${titleId}-tokens`}>
              Token limit (at most {MAX_SAMPLING_TOKENS.toLocaleString('en')})
            </label>
            <input
              id={`${titleId}-tokens`}
              className="text-input"
              inputMode="numeric"
              value={mode.tokens}
              aria-invalid={tokens && !tokens.ok ? true : undefined}
              onChange={(event) => setMode({ ...mode, tokens: event.target.value })}
            />
          </div>
          {editProblem !== undefined ? <p className="error-text small">{editProblem}</p> : null}
          <div className="button-row">
            <button
              type="submit"
              className="button button-primary"
              aria-disabled={inactive || editProblem !== undefined}
              onClick={press.onSubmitClick}
            >
              Approve edited
            </button>
            <button type="button" className="button" onClick={idleAgain}>
              Cancel edit
            </button>
          </div>
        </form>
      ) : (
        <>
          {pending.systemPrompt !== undefined ? (
            <UntrustedText label="system prompt" text={pending.systemPrompt} />
          ) : null}
          {pending.messages.map((message, index) => (
            <UntrustedText key={index} label={`message ${index + 1} (${message.role})`} text={message.text} />
          ))}
        </>
      )}
      {mode.kind === 'deny' ? (
        <form
          className="deny-form"
          onSubmit={(event) => {
            event.preventDefault();
            const reason = mode.reason.trim();
            if (reason !== '' && press.submitMayAct())
              void send({ kind: 'deny', reason }, `Denied by you: sampling for ${pending.server}.`);
          }}
        >
          <label htmlFor={`${titleId}-reason`}>Reason for denying (required; the server sees it)</label>
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
              onClick={press.onSubmitClick}
            >
              Deny
            </button>
            <button type="button" className="button" onClick={idleAgain}>
              Cancel
            </button>
          </div>
        </form>
      ) : null}
      {mode.kind === 'idle' ? (
        <div className="button-row" role="group" aria-label={`Decide ${about}`}>
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
        </div>
      ) : null}
      <p className="arming-notice small" role="status" aria-live="polite">
        {press.notice}
      </p>
      {error ? (
        <p role="alert" className="error-text small">
          {error}
        </p>
      ) : null}
    </CardShell>
  );
}
