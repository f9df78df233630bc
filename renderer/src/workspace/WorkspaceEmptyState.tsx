import { useCallback, useEffect, useRef, useState } from 'react';
import type { RecentWorkspaces } from '../../../common/studio-schemas.js';
import { call, describeError } from '../shell/studio-api';
import { openRecentWorkspace } from './use-workspace';
import './workspace.css';

/** A stored ISO time as the person's locale writes it. */
function whenText(at: string): string {
  const date = new Date(at);
  return Number.isNaN(date.getTime()) ? at : date.toLocaleString();
}

/**
 * The workspaces opened lately, newest first: each opens with one press, or is forgotten. One
 * that is gone (moved, deleted, replaced) is shown as such, with only Forget. Main keeps the list
 * and checks each again when it is opened.
 */
function RecentWorkspacesList({ busy }: { busy: boolean }) {
  const [recent, setRecent] = useState<RecentWorkspaces | null>(null);
  const [error, setError] = useState<string | null>(null);
  const list = useRef<HTMLUListElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);

  const refresh = useCallback(async () => {
    try {
      setRecent(await call('workspace:recent', {}));
    } catch (failure) {
      setError(describeError(failure));
    }
  }, []);
  useEffect(() => {
    // refresh() sets state only once main has answered (after an await), never synchronously.
    // eslint-disable-next-line react-hooks/set-state-in-effect
    void refresh();
  }, [refresh]);

  // After a Forget, its row and button are gone: focus goes to the row that took its place, or
  // the heading when none is left.
  const focusRow = useRef<number | null>(null);
  useEffect(() => {
    const index = focusRow.current;
    if (index === null) return;
    focusRow.current = null;
    const rows = list.current?.querySelectorAll<HTMLElement>('li') ?? [];
    const next = rows[Math.min(index, rows.length - 1)]?.querySelector<HTMLElement>('button');
    (next ?? heading.current)?.focus();
  }, [recent]);

  const forget = async (index: number, path: string): Promise<void> => {
    try {
      focusRow.current = index;
      setRecent(await call('workspace:forget-recent', { path }));
      setError(null);
    } catch (failure) {
      setError(describeError(failure));
    }
  };

  const workspaces = recent?.workspaces ?? [];
  // Shown once there was something to show; forgetting the last one leaves the heading (and focus) in place.
  const [listed, setListed] = useState(false);
  if (workspaces.length > 0 && !listed) setListed(true);
  if (!listed && workspaces.length === 0 && error === null && !recent?.problem) return null;
  return (
    <section className="recent-workspaces" aria-labelledby="recent-workspaces-title">
      <h3 id="recent-workspaces-title" ref={heading} tabIndex={-1}>
        Recent workspaces
      </h3>
      {recent?.problem ? <p className="muted small">The list could not be read: {recent.problem}</p> : null}
      {error !== null ? (
        <p role="alert" className="error-text">
          {error}
        </p>
      ) : null}
      {workspaces.length === 0 && listed ? <p className="muted">No recent workspaces are left.</p> : null}
      <ul className="recent-list" ref={list}>
        {workspaces.map((entry, index) => (
          <li key={entry.path} className="recent-item" data-path={entry.path}>
            {entry.exists ? (
              <button
                type="button"
                className="recent-open"
                disabled={busy}
                onClick={() => void openRecentWorkspace(entry.path)}
              >
                <span className="visually-hidden">Open </span>
                <span className="recent-name">{entry.name}</span>
                <span className="recent-path">{entry.path}</span>
              </button>
            ) : (
              <span className="recent-open recent-gone">
                <span className="recent-name">{entry.name}</span>
                <span className="recent-path">{entry.path}</span>
              </span>
            )}
            <span className="recent-when small">
              {entry.exists ? `Opened ${whenText(entry.lastOpened)}` : 'Not found: moved, deleted or replaced'}
            </span>
            <button
              type="button"
              className="button button-small"
              aria-label={`Forget ${entry.name} (${entry.path})`}
              onClick={() => void forget(index, entry.path)}
            >
              Forget
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** What the main area shows before a workspace is open: what a workspace is, and how to begin. */
export function WorkspaceEmptyState({
  busy,
  error,
  onOpenExample,
  onChooseFolder,
}: {
  busy: boolean;
  error: string | null;
  onOpenExample: () => void;
  onChooseFolder: () => void;
}) {
  return (
    <section className="empty-state" aria-labelledby="empty-state-title">
      <h2 id="empty-state-title">Open a workspace to start</h2>
      <p>
        A workspace is a folder that holds your agent scripts (<code>.lua</code>), a tool catalog, a model catalog and
        the history of your runs. They are plain files, so you can review them and keep them in git.
      </p>
      <div className="button-row empty-state-actions">
        <button type="button" className="button button-primary button-large" onClick={onOpenExample} disabled={busy}>
          Open the example workspace
        </button>
        <button type="button" className="button button-large" onClick={onChooseFolder} disabled={busy}>
          Open a folder…
        </button>
      </div>
      <p className="muted">
        The examples run offline: each agent ships with a recording of a real run, replayed without any provider key.
      </p>
      {error ? (
        <p role="alert" className="error-text">
          {error}
        </p>
      ) : null}
      <RecentWorkspacesList busy={busy} />
      <ol className="empty-state-steps">
        <li>
          <strong>Write an agent</strong> in Lua: <code>models.chat</code> asks a model, <code>tools.call</code>{' '}
          dispatches a tool.
        </li>
        <li>
          <strong>Run it</strong> and watch the conversation as it happens.
        </li>
        <li>
          <strong>Decide every tool call</strong> whose policy is <code>ask</code>: approve, edit, or deny with a
          reason.
        </li>
      </ol>
    </section>
  );
}
