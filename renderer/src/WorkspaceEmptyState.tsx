/** What the main area shows before a workspace is open: what a workspace is, and what comes next. */
export function WorkspaceEmptyState() {
  return (
    <section className="empty-state" aria-labelledby="empty-state-title">
      <h2 id="empty-state-title">Open a workspace to start</h2>
      <p>
        A workspace is a folder that holds your agent scripts (<code>.lua</code>), a tool catalog, a model catalog and
        the history of your runs. They are plain files, so you can review them and keep them in git.
      </p>
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
      <p className="muted">
        The examples folder ships agents with recorded runs, so they replay offline before you add any provider key.
      </p>
    </section>
  );
}
