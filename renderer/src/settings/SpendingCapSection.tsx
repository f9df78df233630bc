/** Credentials → Spending cap: the tokens and dollars a run of the studio may spend, kept by main. */
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import type { SpendingCapSetting } from '../../../common/studio-schemas.js';
import { call, describeError } from '../shell/studio-api';

/** What the fields hold as typed, and the problem with each (by field). */
function parseField(text: string, label: string): { value: number | null; problem: string | null } {
  const trimmed = text.trim();
  if (trimmed === '') return { value: null, problem: null };
  const value = Number(trimmed);
  if (!Number.isFinite(value) || value <= 0)
    return { value: null, problem: `${label}: type a positive number, or leave it empty for no cap.` };
  return { value, problem: null };
}

function capText(cap: Pick<SpendingCapSetting, 'maxTokens' | 'maxCost'>): string {
  const parts = [
    ...(cap.maxTokens !== null ? [`${cap.maxTokens} tokens`] : []),
    ...(cap.maxCost !== null ? [`$${cap.maxCost}`] : []),
  ];
  return parts.length === 0
    ? 'No cap: a run is not stopped for what it spends.'
    : `A run stops at the round that reaches ${parts.join(' or ')}${parts.length > 1 ? ', whichever comes first' : ''}.`;
}

export function SpendingCapSection() {
  const id = useId();
  const [cap, setCap] = useState<SpendingCapSetting | null>(null);
  const [tokens, setTokens] = useState('');
  const [dollars, setDollars] = useState('');
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // What the person typed before the saved cap was read is theirs: the read never overwrites it.
  const typed = useRef({ tokens: false, dollars: false });

  useEffect(() => {
    let live = true;
    call('settings:spending-cap', {})
      .then((read) => {
        if (!live) return;
        setCap(read);
        if (!typed.current.tokens) setTokens(read.maxTokens === null ? '' : String(read.maxTokens));
        if (!typed.current.dollars) setDollars(read.maxCost === null ? '' : String(read.maxCost));
      })
      .catch((failure: unknown) => live && setError(describeError(failure)));
    return () => {
      live = false;
    };
  }, []);

  const tokensField = parseField(tokens, 'Tokens per run');
  const dollarsField = parseField(dollars, 'US dollars per run');

  const save = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
    if (tokensField.problem || dollarsField.problem) return;
    setBusy(true);
    setMessage(null);
    setError(null);
    try {
      const saved = await call('settings:set-spending-cap', {
        maxTokens: tokensField.value,
        maxCost: dollarsField.value,
      });
      setCap(saved);
      setMessage(`Saved. ${capText(saved)}`);
    } catch (failure) {
      setError(describeError(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="spending-cap" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>Spending cap</h3>
      <p className="muted small">
        For every run the studio starts. The round that reaches the cap is recorded, then the run ends with status
        limit. Dollars are reckoned at the model&apos;s price (models.yaml&apos;s price:, else PromptForge&apos;s price
        table); a model with no price ends a run capped in dollars before anything is sent. Kept on this computer, not
        in the workspace.
      </p>
      {cap?.problem ? (
        <p className="error-text" role="alert">
          The cap could not be read, so no run starts until it is fixed: {cap.problem}
        </p>
      ) : null}
      <form className="spending-cap-form" onSubmit={(event) => void save(event)} noValidate>
        <div className="form-field">
          <label htmlFor={`${id}-tokens`}>Tokens per run</label>
          <input
            id={`${id}-tokens`}
            className="text-input"
            inputMode="numeric"
            value={tokens}
            onChange={(event) => {
              typed.current.tokens = true;
              setTokens(event.target.value);
            }}
            placeholder="no cap"
            aria-invalid={tokensField.problem !== null}
            aria-describedby={tokensField.problem ? `${id}-tokens-problem` : undefined}
          />
          {tokensField.problem ? (
            <p id={`${id}-tokens-problem`} className="error-text small">
              {tokensField.problem}
            </p>
          ) : null}
        </div>
        <div className="form-field">
          <label htmlFor={`${id}-dollars`}>US dollars per run</label>
          <input
            id={`${id}-dollars`}
            className="text-input"
            inputMode="decimal"
            value={dollars}
            onChange={(event) => {
              typed.current.dollars = true;
              setDollars(event.target.value);
            }}
            placeholder="no cap"
            aria-invalid={dollarsField.problem !== null}
            aria-describedby={dollarsField.problem ? `${id}-dollars-problem` : undefined}
          />
          {dollarsField.problem ? (
            <p id={`${id}-dollars-problem`} className="error-text small">
              {dollarsField.problem}
            </p>
          ) : null}
        </div>
        <button
          type="submit"
          className="button"
          disabled={busy || cap === null || tokensField.problem !== null || dollarsField.problem !== null}
        >
          Save cap
        </button>
      </form>
      {cap && !cap.problem && message === null ? <p className="muted small">{capText(cap)}</p> : null}
      {message ? (
        <p className="muted small" role="status">
          {message}
        </p>
      ) : null}
      {error ? (
        <p className="error-text" role="alert">
          {error}
        </p>
      ) : null}
    </section>
  );
}
