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
