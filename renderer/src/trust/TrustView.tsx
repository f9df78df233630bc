import { type ReactNode, useCallback, useEffect, useRef, useState } from 'react';
import type { TrustList } from '../../../common/trust-schemas.js';
import { call, describeError, useStudioEvent } from '../shell/studio-api';
import { ResultMessages } from '../settings/ResultMessages';
import { ReviewTrustButton } from './ReviewTrustButton';
import { useWorkspaceTrust } from './trust-store';
import { countOf } from './trust-text';
import '../settings/settings.css';
import './trust.css';

/** A stored ISO time as the person's locale writes it, in a `<time>`. */
function When({ at }: { at: string }) {
  const date = new Date(at);
  return <time dateTime={at}>{Number.isNaN(date.getTime()) ? at : date.toLocaleString()}</time>;
}

/** Revoke, then "Yes, revoke" / "Keep": one slip of the mouse revokes nothing. */
function RevokeControl({ what, onRevoke }: { what: string; onRevoke: () => Promise<void> }) {
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  if (!confirming)
    return (
      <button
        type="button"
        className="button button-small button-danger"
        aria-label={`Revoke ${what}`}
        onClick={() => setConfirming(true)}
      >
        Revoke
      </button>
    );
  return (
    <span className="confirm-inline" role="group" aria-label={`Confirm revoking ${what}`}>
      <span className="small">Revoke it?</span>
      <button
        type="button"
        className="button button-small button-danger"
        disabled={busy}
        aria-label={`Yes, revoke ${what}`}
        onClick={() => {
          setBusy(true);
          void onRevoke().finally(() => {
            setBusy(false);
            setConfirming(false);
          });
        }}
      >
        Yes, revoke
      </button>
      <button type="button" className="button button-small" disabled={busy} onClick={() => setConfirming(false)}>
        Keep
      </button>
    </span>
  );
}

/** A table of what the person may revoke: its columns, then a last one of Revoke controls. */
function RevocableTable({ label, columns, children }: { label: string; columns: string[]; children: ReactNode }) {
  return (
    <table className="data-table trust-table" aria-label={label}>
      <thead>
        <tr>
          {columns.map((column) => (
            <th key={column} scope="col">
              {column}
            </th>
          ))}
          <th scope="col">
            <span className="visually-hidden">Revoke</span>
          </th>
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
}

/** The open workspace's trust, in a sentence, with its review. */
function OpenWorkspaceTrust() {
  const { trust } = useWorkspaceTrust();
  if (!trust) return null;
  const sentence =
    trust.state === 'trusted'
      ? 'is trusted: its command tools, MCP servers and secrets may run.'
      : trust.state === 'empty'
        ? 'runs nothing of its own and sends no secrets: there is nothing to trust.'
        : 'is in Restricted mode: its command tools, MCP servers and secrets are off, and every tool call asks.';
  return (
    <section className="trust-section" aria-labelledby="trust-open-title">
      <h3 id="trust-open-title">The open workspace</h3>
      <p>
        <code className="trust-path">{trust.path}</code> {sentence}
      </p>
      <ReviewTrustButton className="button">
        {trust.state === 'restricted' ? 'Review and trust…' : 'Review what it runs…'}
      </ReviewTrustButton>
    </section>
  );
}

/**
 * Trust: which workspace folders the person trusts (each revocable), which provider-key origins
 * they approved (each revocable), and where these decisions are kept and logged. Workspace trust
 * is about folders; a tool's `trust:` setting and an output's trust badge are other things.
 */
export function TrustView() {
  const [list, setList] = useState<TrustList | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  // A revoked row goes, and the button that had focus with it: focus moves to what was done.
  const messageRef = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (message !== null) messageRef.current?.focus();
  }, [message]);

  const refresh = useCallback(async () => {
    try {
      setList(await call('trust:list', {}));
      setError(null);
    } catch (failure) {
      setError(describeError(failure));
    }
  }, []);
  useEffect(() => {
    // refresh() sets state only once main has answered (after an await), never synchronously.
    // eslint-disable-next-line react-hooks/set-state-in-effect
    void refresh();
  }, [refresh]);
  // Trusting (from the banner) or a change on disk changes the list.
  useStudioEvent('trust-changed', () => void refresh());

  /** Runs one of the person's actions; the list main answers with replaces the shown one. */
  const act = async (request: () => Promise<{ list: TrustList; done: string }>): Promise<void> => {
    try {
      const { list: next, done } = await request();
      setList(next);
      setError(null);
      setMessage(done);
    } catch (failure) {
      setError(describeError(failure));
    }
  };
  const revoke = (request: () => Promise<TrustList>, done: string): Promise<void> =>
    act(async () => ({ list: await request(), done }));

  return (
    <section className="settings-view trust-view" aria-labelledby="trust-title">
      <h2 id="trust-title">Trust</h2>
      <p className="muted">
        A workspace folder runs its own command tools and MCP servers, and sends its secrets, only once you trusted it
        after reading what it would run. A provider key goes to a server that is not its provider&apos;s own only once
        you approved that origin. Both are kept outside every workspace, and revoking one takes effect at once.
      </p>
      <ResultMessages message={message} error={error} messageRef={messageRef} />
      <OpenWorkspaceTrust />
      {list === null && error === null ? <p className="muted">Reading what you trust…</p> : null}
      {list ? (
        <>
          <section className="trust-section" aria-labelledby="trust-files-title">
            <h3 id="trust-files-title">Where this is kept</h3>
            <dl className="details">
              <div className="details-row">
                <dt>Config folder</dt>
                <dd>
                  <code className="trust-path">{list.configDirectory}</code>
                </dd>
              </div>
              <div className="details-row">
                <dt>Decision log</dt>
                <dd>
                  <code className="trust-path">{list.logFile}</code>
                </dd>
              </div>
            </dl>
          </section>
          <section className="trust-section" aria-labelledby="trust-workspaces-title">
            <h3 id="trust-workspaces-title">Trusted workspaces</h3>
            {list.workspaces.length === 0 ? (
              <p className="muted">
                No workspace is trusted yet. Open a folder, read what it would run, and trust it from the banner.
              </p>
            ) : (
              <RevocableTable label="Trusted workspaces" columns={['Folder', 'Trusted', 'What it runs']}>
                {list.workspaces.map((workspace) => (
                  <tr key={workspace.path} data-path={workspace.path}>
                    <th scope="row">
                      <code className="trust-path">{workspace.path}</code>
                    </th>
                    <td>
                      <When at={workspace.trustedAt} />
                    </td>
                    <td>{countOf(workspace.items, 'item')}</td>
                    <td>
                      <RevokeControl
                        what={`trust in ${workspace.path}`}
                        onRevoke={() =>
                          revoke(
                            () => call('trust:revoke', { path: workspace.path }),
                            `Stopped trusting ${workspace.path}: it is in Restricted mode from now on.`,
                          )
                        }
                      />
                    </td>
                  </tr>
                ))}
              </RevocableTable>
            )}
          </section>
          {list.wantedKeyOrigins.length > 0 ? (
            <section className="trust-section" aria-labelledby="trust-wanted-title">
              <h3 id="trust-wanted-title">Origins this workspace&apos;s models want</h3>
              <p className="muted">
                These models send their requests to a server that is not their provider&apos;s own. A run asks about one
                only when you start it yourself, and not again once you said no; allow it here when you mean it.
              </p>
              <table className="data-table trust-table" aria-label="Origins this workspace's models want">
                <thead>
                  <tr>
                    <th scope="col">Model</th>
                    <th scope="col">Goes to</th>
                    <th scope="col">Now</th>
                    <th scope="col">
                      <span className="visually-hidden">Allow</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {list.wantedKeyOrigins.map((entry) => (
                    <tr key={entry.model} data-model={entry.model}>
                      <th scope="row">
                        {entry.model}
                        <div className="muted small">{entry.label}</div>
                      </th>
                      <td>
                        <code className="trust-path">{entry.origin}</code>
                      </td>
                      <td>{entry.declined ? 'You said no (not asked again)' : 'Not allowed'}</td>
                      <td>
                        <button
                          type="button"
                          className="button button-small"
                          aria-label={`Allow ${entry.model}'s requests to ${entry.origin}…`}
                          onClick={() =>
                            void act(async () => {
                              const result = await call('trust:allow-key-origin', { model: entry.model });
                              return {
                                list: result.list,
                                done: result.allowed
                                  ? `${entry.model} may send its requests, with your ${entry.label} key, to ${entry.origin}.`
                                  : `Nothing was allowed: ${entry.model}'s requests still do not go to ${entry.origin}.`,
                              };
                            })
                          }
                        >
                          Allow…
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </section>
          ) : null}
          <section className="trust-section" aria-labelledby="trust-origins-title">
            <h3 id="trust-origins-title">Approved key origins</h3>
            {list.keyOrigins.length === 0 ? (
              <p className="muted">
                No key origin is approved. When a model in models.yaml sends its requests to a server that is not its
                provider&apos;s own, the studio asks before your key goes there; what you allow is listed here.
              </p>
            ) : (
              <RevocableTable label="Approved key origins" columns={['Key', 'Goes to', 'Approved']}>
                {list.keyOrigins.map((entry) => (
                  <tr key={`${entry.provider} ${entry.origin}`} data-origin={entry.origin}>
                    <th scope="row">
                      {entry.label} key<div className="muted small">{entry.provider}</div>
                    </th>
                    <td>
                      <code className="trust-path">{entry.origin}</code>
                    </td>
                    <td>
                      <When at={entry.approvedAt} />
                    </td>
                    <td>
                      <RevokeControl
                        what={`the ${entry.label} key for ${entry.origin}`}
                        onRevoke={() =>
                          revoke(
                            () => call('trust:revoke-key-origin', { provider: entry.provider, origin: entry.origin }),
                            `Your ${entry.label} key no longer goes to ${entry.origin}; the studio asks again first.`,
                          )
                        }
                      />
                    </td>
                  </tr>
                ))}
              </RevocableTable>
            )}
          </section>
        </>
      ) : null}
    </section>
  );
}
