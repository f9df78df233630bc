import { useCallback, useEffect, useState } from 'react';
import type { KeyStatus } from '../../../common/studio-schemas.js';
import { call, describeError } from '../shell/studio-api';
import { useKeyEntry } from './use-key-entry';
import './settings.css';

type Status = { kind: 'loading' } | { kind: 'ready'; available: boolean; error: string | null; keys: KeyStatus[] };

function KeyRow({ status, onChanged }: { status: KeyStatus; onChanged: (message: string) => void }) {
  const entry = useKeyEntry(status.provider);
  const { key, setKey } = entry;
  const [deleting, setDeleting] = useState(false);
  const busy = entry.busy || deleting;
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [deleteError, setError] = useState<string | null>(null);
  const error = entry.error ?? deleteError;
  const inputId = `key-${status.provider}`;

  const submit = async (): Promise<void> => {
    setError(null);
    const result = await entry.submit();
    if (result) onChanged(`${result.replaced ? 'Replaced' : 'Stored'} the ${status.label} key in the keychain.`);
  };

  const remove = async (): Promise<void> => {
    setDeleting(true);
    setError(null);
    try {
      const result = await call('keys:delete', { provider: status.provider });
      onChanged(result.deleted ? `Deleted the ${status.label} key.` : `There was no ${status.label} key to delete.`);
    } catch (failure) {
      setError(describeError(failure));
    } finally {
      setDeleting(false);
      setConfirmDelete(false);
    }
  };

  return (
    <tr data-provider={status.provider}>
      <th scope="row">
        {status.label}
        <div className="muted small">{status.provider}</div>
      </th>
      <td>
        {status.needsKey || status.set ? (
          <span
            className={`key-status ${status.set ? 'key-set' : 'key-unset'}`}
            aria-label={`${status.label} key status`}
          >
            {status.set ? 'set' : 'not set'}
          </span>
        ) : (
          <span className="muted small">{status.envVar ? 'optional' : 'no key needed'}</span>
        )}
      </td>
      <td>{status.envVar ? <code>{status.envVar}</code> : <span className="muted small">—</span>}</td>
      <td>
        {status.needsKey || status.envVar !== null || status.set ? (
          <form
            className="key-form"
            onSubmit={(event) => {
              event.preventDefault();
              if (key.trim() !== '') void submit();
            }}
          >
            <label htmlFor={inputId} className="visually-hidden">
              {status.label} API key
            </label>
            <input
              id={inputId}
              type="password"
              className="text-input"
              autoComplete="off"
              spellCheck={false}
              placeholder={status.set ? 'new key to replace' : 'paste key'}
              value={key}
              onChange={(event) => setKey(event.target.value)}
            />
            <button
              type="submit"
              className="button"
              disabled={busy || key.trim() === ''}
              aria-label={`${status.set ? 'Replace' : 'Set'} ${status.label} key`}
            >
              {status.set ? 'Replace' : 'Set'}
            </button>
            {status.set && !confirmDelete ? (
              <button
                type="button"
                className="button button-danger"
                disabled={busy}
                onClick={() => setConfirmDelete(true)}
                aria-label={`Delete ${status.label} key`}
              >
                Delete
              </button>
            ) : null}
            {confirmDelete ? (
              <span className="confirm-inline" role="group" aria-label={`Confirm deleting the ${status.label} key`}>
                <span className="small">Delete it?</span>
                <button
                  type="button"
                  className="button button-danger"
                  onClick={() => void remove()}
                  aria-label={`Confirm delete ${status.label} key`}
                >
                  Yes, delete
                </button>
                <button type="button" className="button" onClick={() => setConfirmDelete(false)}>
                  Keep
                </button>
              </span>
            ) : null}
          </form>
        ) : null}
        {error ? (
          <p className="error-text small" role="alert">
            {error}
          </p>
        ) : null}
      </td>
    </tr>
  );
}

/** Settings → Credentials: keychain status per provider; set, replace and delete keys. Keys are write-only. */
export function CredentialsPanel() {
  const [status, setStatus] = useState<Status>({ kind: 'loading' });
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const refresh = useCallback(async () => {
    try {
      const result = await call('keys:status', {});
      setStatus({ kind: 'ready', ...result });
    } catch (failure) {
      setError(describeError(failure));
    }
  }, []);

  useEffect(() => {
    // refresh() sets state only once the keychain has answered (after an await), never synchronously.
    // eslint-disable-next-line react-hooks/set-state-in-effect
    void refresh();
  }, [refresh]);

  return (
    <section className="settings-view" aria-labelledby="credentials-title">
      <h2 id="credentials-title">Credentials</h2>
      <p className="muted">
        Provider keys live in the OS keychain. The studio can store, replace and delete a key, but never shows one: this
        page only learns whether a key is set.
      </p>
      {message ? (
        <p className="ok-text" role="status">
          {message}
        </p>
      ) : null}
      {error ? (
        <p className="error-text" role="alert">
          {error}
        </p>
      ) : null}
      {status.kind === 'loading' ? <p className="muted">Reading the keychain…</p> : null}
      {status.kind === 'ready' && !status.available ? (
        <p className="error-text" role="alert">
          The keychain is not available: {status.error}
        </p>
      ) : null}
      {status.kind === 'ready' && status.available ? (
        <table className="data-table credentials-table" aria-label="Provider keys">
          <thead>
            <tr>
              <th scope="col">Provider</th>
              <th scope="col">Key</th>
              <th scope="col">Environment variable</th>
              <th scope="col">Set / replace / delete</th>
            </tr>
          </thead>
          <tbody>
            {status.keys.map((key) => (
              <KeyRow
                key={key.provider}
                status={key}
                onChanged={(text) => {
                  setMessage(text);
                  void refresh();
                }}
              />
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
