/** What the center shows for a workspace with no agents yet: how to get a first one. */
export function NoAgentsState({
  workspaceName,
  busy,
  onNewAgent,
  onOpenExample,
}: {
  workspaceName: string;
  busy: boolean;
  onNewAgent: () => void;
  onOpenExample: () => void;
}) {
  return (
    <section className="empty-state" aria-labelledby="no-agents-title">
      <h2 id="no-agents-title">No agents in {workspaceName} yet</h2>
      <p>
        An agent is a Lua script in <code>agents/</code>. It asks models with <code>models.chat</code> and calls the
        tools of <code>tools.yaml</code> with <code>tools.call</code>; every call waits for you when its policy says so.
      </p>
      <div className="button-row empty-state-actions">
        <button type="button" className="button button-primary button-large" onClick={onNewAgent}>
          New agent…
        </button>
        <button type="button" className="button button-large" onClick={onOpenExample} disabled={busy}>
          Open the example workspace
        </button>
      </div>
      <p className="muted">
        A new agent starts from a template that tours the host API and runs offline, with no key. The example workspace
        is a copy of three agents with recordings of real runs, opened in place of this folder (this folder is left as
        it is).
      </p>
    </section>
  );
}
