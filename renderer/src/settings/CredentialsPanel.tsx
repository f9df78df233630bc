import { useCallback, useEffect, useRef, useState } from 'react';
import type { KeyStatus, WorkspaceSecretStatus } from '../../../common/studio-schemas.js';
import { call, describeError, useStudioEvent } from '../shell/studio-api';
import { ResultMessages } from './ResultMessages';
import { KeyInput } from './KeyInput';
import type { KeyTarget } from '../../../common/contract.js';
import { useKeyEntry } from './use-key-entry';
import { parseScopedSecretName, secretNoun } from './secret-name';
import { SpendingCapSection } from './SpendingCapSection';
import './settings.css';

/**
 * A row's action finished (`text` says what it did, `set` whether the entry is set now), or started
 * (`null`: the last result is cleared).
 */
type OnChanged = (text: string | null, after?: { target: KeyTarget; set: boolean }) => void;

type Status =
  | { kind: 'loading' }
  | { kind: 'ready'; available: boolean; error: string | null; keys: KeyStatus[]; secrets: WorkspaceSecretStatus[] };

/**
 * The write-only controls of one keychain entry: a password field with Set / Replace, and Delete
 * after a confirmation. `noun` names the entry in buttons and messages ("OpenAI key",
 * "search-proxy secret"); `fieldLabel` labels the field.
 */
function KeyControls({
  target,
  noun,
  fieldLabel,
  inputId,
  set,
  onChanged,
}: {
  target: KeyTarget;
  noun: string;
  fieldLabel: string;
  inputId: string;
  set: boolean;
  onChanged: OnChanged;
}) {
  const entry = useKeyEntry(target);
  const { key } = entry;
  const [deleting, setDeleting] = useState(false);
  const busy = entry.busy || deleting;
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [deleteError, setError] = useState<string | null>(null);
  // The row says what its last action did: a cancelled delete is not hidden by an older store's error.
  const [lastAction, setLastAction] = useState<'set' | 'delete' | null>(null);
  const error = lastAction === 'delete' ? deleteError : entry.error;

  const submit = async (): Promise<void> => {
    setError(null);
    setLastAction('set');
    onChanged(null);
    const result = await entry.submit();
    if (result)
      onChanged(`${result.replaced ? 'Replaced' : 'Stored'} the ${noun} in the keychain.`, { target, set: true });
  };

  const remove = async (): Promise<void> => {
    setDeleting(true);
    setError(null);
    setLastAction('delete');
    onChanged(null);
    try {
      const result = await call('keys:delete', target);
      onChanged(result.deleted ? `Deleted the ${noun}.` : `There was no ${noun} to delete.`, { target, set: false });
    } catch (failure) {
      setError(describeError(failure));
    } finally {
      setDeleting(false);
      setConfirmDelete(false);
    }
  };

  return (
    <>
      <form
        className="key-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (key.trim() !== '') void submit();
        }}
      >
        <label htmlFor={inputId} className="visually-hidden">
          {fieldLabel}
        </label>
        <KeyInput id={inputId} entry={entry} placeholder={set ? 'new key to replace' : 'paste key'} />
        <button
          type="submit"
          className="button"
          disabled={busy || key.trim() === ''}
          aria-label={`${set ? 'Replace' : 'Set'} ${noun}`}
        >
          {set ? 'Replace' : 'Set'}
        </button>
        {set && !confirmDelete ? (
          <button
            type="button"
            className="button button-danger"
            disabled={busy}
            onClick={() => setConfirmDelete(true)}
            aria-label={`Delete ${noun}`}
          >
            Delete
          </button>
        ) : null}
        {confirmDelete ? (
          <span className="confirm-inline" role="group" aria-label={`Confirm deleting the ${noun}`}>
            <span className="small">Delete it?</span>
            <button
              type="button"
              className="button button-danger"
              onClick={() => void remove()}
              aria-label={`Confirm delete ${noun}`}
            >
              Yes, delete
            </button>
            <button type="button" className="button" onClick={() => setConfirmDelete(false)}>
              Keep
            </button>
          </span>
        ) : null}
      </form>
      {error ? (
        <p className="error-text small" role="alert">
          {error}
        </p>
      ) : null}
    </>
  );
}

/** "set" / "not set", labelled for screen readers. */
function SetBadge({ set, label }: { set: boolean; label: string }) {
  return (
    <span className={`key-status ${set ? 'key-set' : 'key-unset'}`} aria-label={label}>
      {set ? 'set' : 'not set'}
    </span>
  );
}

function KeyRow({ status, onChanged }: { status: KeyStatus; onChanged: (message: string | null) => void }) {
  return (
    <tr data-provider={status.provider}>
      <th scope="row">
        {status.label}
        <div className="muted small">{status.provider}</div>
      </th>
      <td>
        {status.needsKey || status.set ? (
          <SetBadge set={status.set} label={`${status.label} key status`} />
        ) : (
          <span className="muted small">{status.envVar ? 'optional' : 'no key needed'}</span>
        )}
      </td>
      <td>{status.envVar ? <code>{status.envVar}</code> : <span className="muted small">—</span>}</td>
      <td>
        {status.needsKey || status.envVar !== null || status.set ? (
          <KeyControls
            target={{ provider: status.provider }}
            noun={`${status.label} key`}
            fieldLabel={`${status.label} API key`}
            inputId={`key-${status.provider}`}
            set={status.set}
            onChanged={onChanged}
          />
        ) : null}
      </td>
    </tr>
  );
}

/**
 * A secret by its scoped name (`NAME@DESTINATION`, see secret-name.ts): the name tools.yaml writes,
 * then where its value goes. One workspace's secret for one destination is one keychain entry.
 */
function SecretRow({ status, onChanged }: { status: WorkspaceSecretStatus; onChanged: OnChanged }) {
  const { name, destinationText } = parseScopedSecretName(status.name);
  const noun = secretNoun(status.name);
  return (
    <tr data-secret={status.name}>
      <th scope="row">
        <code>{name}</code>
        {destinationText !== null ? (
          <div className="muted small secret-destination">
            for <span className="secret-destination-value">{destinationText}</span>
          </div>
        ) : null}
      </th>
      <td>
        <ul className="secret-uses">
          {status.usedBy.map((use) => (
            <li key={use}>{use}</li>
          ))}
        </ul>
      </td>
      <td>
        <SetBadge set={status.set} label={`${noun} status`} />
      </td>
      <td>
        <KeyControls
          target={{ secret: status.name }}
          noun={noun}
          fieldLabel={`Value of the ${noun}`}
          inputId={`secret-${status.name}`}
          set={status.set}
          onChanged={onChanged}
        />
      </td>
    </tr>
  );
}

/** The secrets the open workspace's tools.yaml names, or how to name one. */
function SecretsSection({ secrets, onChanged }: { secrets: WorkspaceSecretStatus[]; onChanged: OnChanged }) {
  return (
    <section className="credentials-secrets" aria-labelledby="credentials-secrets-title">
      <h3 id="credentials-secrets-title">Secrets named in tools.yaml</h3>
      {secrets.length === 0 ? (
        <p className="muted">
          The open workspace names no secrets. To name one, write <code>{'{ secret: NAME }'}</code> as a header value of
          an http tool or an MCP server, or as an MCP server&apos;s <code>env</code> value in tools.yaml (see the
          tools.yaml and MCP servers sections of docs/catalogs.md); it then appears here.
        </p>
      ) : (
        <>
          <p className="muted small">
            Each secret is kept for this workspace and the place its value goes: the same name sent somewhere else is
            another secret, set on its own.
          </p>
          <table className="data-table credentials-table" aria-label="Secrets named in tools.yaml">
            <thead>
              <tr>
                <th scope="col">Secret</th>
                <th scope="col">Used by</th>
                <th scope="col">Value</th>
                <th scope="col">Set / replace / delete</th>
              </tr>
            </thead>
            <tbody>
              {secrets.map((secret) => (
                <SecretRow key={secret.name} status={secret} onChanged={onChanged} />
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}

/** `status` with the entry `target` set or not. */
function withEntrySet(status: Extract<Status, { kind: 'ready' }>, target: KeyTarget, set: boolean): Status {
  return 'provider' in target
    ? { ...status, keys: status.keys.map((key) => (key.provider === target.provider ? { ...key, set } : key)) }
    : {
        ...status,
        secrets: status.secrets.map((secret) => (secret.name === target.secret ? { ...secret, set } : secret)),
      };
}

/**
 * Settings → Credentials: keychain status per provider and per secret the open workspace's
 * tools.yaml names; set, replace and delete them. Keys are write-only.
 */
export function CredentialsPanel() {
  const [status, setStatus] = useState<Status>({ kind: 'loading' });
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  // Bumped by each change made here: a status read that started before it is out of date.
  const changes = useRef(0);
  const refresh = useCallback(async () => {
    const at = changes.current;
    try {
      const result = await call('keys:status', {});
      if (at === changes.current) setStatus({ kind: 'ready', ...result });
    } catch (failure) {
      setError(describeError(failure));
    }
  }, []);

  const changed: OnChanged = (text, after) => {
    setMessage(text);
    if (text === null) return;
    // The row shows what was just done at once; the keychain's own answer follows.
    if (after) {
      changes.current += 1;
      setStatus((was) => (was.kind === 'ready' ? withEntrySet(was, after.target, after.set) : was));
    }
    void refresh();
  };

  // An edit of tools.yaml can name or drop secrets.
  useStudioEvent('workspace-changed', () => void refresh());

  useEffect(() => {
    // refresh() sets state only once the keychain has answered (after an await), never synchronously.
    // eslint-disable-next-line react-hooks/set-state-in-effect
    void refresh();
  }, [refresh]);

  return (
    <section className="settings-view" aria-labelledby="credentials-title">
      <h2 id="credentials-title">Credentials</h2>
      <p className="muted">
        Provider keys, and the secrets the workspace&apos;s tools.yaml names, live in the OS keychain. The studio can
        store, replace and delete a key, but never shows one: this page only learns whether a key is set.
      </p>
      <ResultMessages message={message} error={error} />
      {status.kind === 'loading' ? <p className="muted">Reading the keychain…</p> : null}
      {status.kind === 'ready' && !status.available ? (
        <p className="error-text" role="alert">
          The keychain is not available: {status.error}
        </p>
      ) : null}
      {status.kind === 'ready' && status.available ? (
        <>
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
                <KeyRow key={key.provider} status={key} onChanged={changed} />
              ))}
            </tbody>
          </table>
          <SecretsSection secrets={status.secrets} onChanged={changed} />
        </>
      ) : null}
      <SpendingCapSection />
    </section>
  );
}
