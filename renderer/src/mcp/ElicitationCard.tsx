/**
 * One elicitation of an MCP server waiting for the person: a form built from its fields (the
 * trial's schema form, checked by the core as the person types), or a URL that main opens in the
 * system browser when the person presses Open. The server's words are shown as untrusted text.
 * Its buttons act only once the card is armed, like an approval card's (a press it ignores says why).
 */
import { CardShell } from '../approvals/CardShell';
import { useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { ElicitationAnswer, PendingElicitation } from '../../../common/mcp-person.js';
import type { RunOrigin } from '../approvals/run-origins';
import { useCardArming } from '../approvals/use-card-arming';
import { call, describeError } from '../shell/studio-api';
import { SchemaForm } from '../tool-trial/SchemaForm';
import { elicitationSchema, initialAnswer } from './elicitation-form';
import { QuestionHeading, UntrustedText } from './question-parts';
import { useAnswerCheck } from './use-answer-check';
import { useCardPress } from './use-card-press';

export interface ElicitationCardProps {
  pending: PendingElicitation;
  origin: RunOrigin | undefined;
  /** The cards above this one: when it changes, the card moved. */
  place: string;
  /** How often the panel saw the card move on screen: each move arms again. */
  moved: number;
  onAnswered: (announcement: string) => void;
  /** The card is going away while focus is inside it. */
  onFocusLost: () => void;
}

export function ElicitationCard({ pending, origin, place, moved, onAnswered, onFocusLost }: ElicitationCardProps) {
  const card = useRef<HTMLElement>(null);
  const { armed, arming, shown } = useCardArming(card, pending.askedAt, place, moved);
  const fields = useMemo(() => pending.fields ?? [], [pending.fields]);
  const schema = useMemo(() => elicitationSchema(fields), [fields]);
  const [values, setValues] = useState<Record<string, unknown>>(() => initialAnswer(fields));
  const check = useAnswerCheck(pending.id, pending.mode === 'form' ? values : undefined);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
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

  const send = async (answer: ElicitationAnswer, announcement: string): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      await call('mcp:answer', { id: pending.id, answer });
      onAnswered(announcement);
    } catch (failure) {
      setError(describeError(failure));
      setBusy(false);
    }
  };
  // The approval card's rules for a press: only on an armed card, never a double click's second.
  const press = useCardPress(armed, busy);
  const onClick = press.onClick;
  const inactive = busy || !armed;
  const sendForm = (): void =>
    void send({ action: 'accept', content: values as never }, `Answer sent to ${pending.server}.`);

  const titleId = `elicitation-${pending.id}`;
  const about = `${pending.server} ${pending.id}`;
  const url = pending.mode === 'url';
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
      armingTitle="This new or moved card accepts clicks in a moment"
    >
      <QuestionHeading
        id={titleId}
        server={pending.server}
        what={url ? 'asks you to open a page' : 'asks you'}
        badge={<span className="reason-badge">{url ? 'URL' : 'form'}</span>}
        question={pending}
        origin={origin}
      />
      <UntrustedText label="the server's message" text={pending.message} />
      {url ? (
        <div className="mcp-url">
          <p className="small">
            It would open <strong className="mcp-url-host">{pending.urlHost}</strong> in your browser:
          </p>
          <code className="mcp-url-text" aria-label={`URL of ${about}`}>
            {pending.url}
          </code>
          <p className="muted small">
            The studio opens it in your system browser only when you press Open. The server asked for it, not your
            agent.
          </p>
        </div>
      ) : (
        <form
          className="mcp-elicitation-form"
          aria-label={`Answer to ${about}`}
          onSubmit={(event) => {
            event.preventDefault();
            // Enter in a field submits: the same rules as the button.
            if (check.state === 'valid' && press.submitMayAct()) sendForm();
          }}
        >
          <SchemaForm
            schema={schema}
            value={values}
            problems={check.state === 'invalid' ? check.problems : []}
            onChange={setValues}
          />
          <p className="small muted" aria-live="polite">
            {check.state === 'checking'
              ? 'Checking the answer…'
              : check.state === 'valid'
                ? 'The answer fits the form.'
                : 'Fix the fields marked above.'}
          </p>
        </form>
      )}
      <div className="button-row" role="group" aria-label={`Answer ${about}`}>
        {url ? (
          <button
            type="button"
            className="button button-primary"
            aria-disabled={inactive}
            onClick={onClick(() => void send({ action: 'accept' }, `Opened ${pending.urlHost} for ${pending.server}.`))}
          >
            Open in browser
          </button>
        ) : (
          <button
            type="button"
            className="button button-primary"
            aria-disabled={inactive || check.state !== 'valid'}
            onClick={onClick(() => {
              if (check.state === 'valid') sendForm();
            })}
          >
            Send answer
          </button>
        )}
        <button
          type="button"
          className="button"
          aria-disabled={inactive}
          onClick={onClick(() => void send({ action: 'decline' }, `Declined ${pending.server}'s question.`))}
        >
          Decline
        </button>
        <button
          type="button"
          className="button"
          aria-disabled={inactive}
          onClick={onClick(() => void send({ action: 'cancel' }, `Cancelled ${pending.server}'s question.`))}
        >
          Cancel
        </button>
      </div>
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
