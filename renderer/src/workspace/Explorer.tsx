import type { CatalogFile, WorkspaceState } from '../../../common/studio-schemas.js';
import { McpServersList } from './McpServersList';
import './workspace.css';

/** What the center area shows. */
export type CenterView =
  | { kind: 'agent'; path: string }
  | { kind: 'catalog'; file: CatalogFile }
  | { kind: 'credentials' }
  | { kind: 'history' }
  | { kind: 'none' };

function ProblemBadge({ count, label }: { count: number; label: string }) {
  if (count === 0) return null;
  return (
    <span className="problem-badge" aria-label={`${count} ${label}`} title={`${count} ${label}`}>
      {count}
    </span>
  );
}

function agentName(path: string): string {
  return path.replace(/^agents\//, '').replace(/\.lua$/, '');
}

/** The left column: agents, tools, models and runs of the open workspace. */
export function Explorer({
  workspace,
  view,
  runningRunIds,
  onSelect,
  onOpenRun,
}: {
  workspace: WorkspaceState | null;
  view: CenterView;
  runningRunIds: ReadonlySet<string>;
  onSelect: (view: CenterView) => void;
  onOpenRun: (runId: string) => void;
}) {
  if (workspace === null) {
    return (
      <nav className="explorer" aria-label="Workspace explorer">
        {['Agents', 'Tools', 'Models', 'Runs'].map((section) => (
          <section key={section} className="explorer-section" aria-label={section}>
            <h2>{section}</h2>
            <p className="muted">No workspace open</p>
          </section>
        ))}
      </nav>
    );
  }
  const problemsIn = (file: string): number =>
    workspace.problems.filter((p) => p.file === file && p.severity === 'error').length;
  const isCurrent = (candidate: CenterView): boolean => JSON.stringify(candidate) === JSON.stringify(view);
  const item = (candidate: CenterView, base = 'explorer-item') => ({
    className: `${base}${isCurrent(candidate) ? ' current' : ''}`,
    'aria-current': isCurrent(candidate) ? ('page' as const) : undefined,
    onClick: () => onSelect(candidate),
  });

  return (
    <nav className="explorer" aria-label="Workspace explorer">
      <div className="workspace-name" title={workspace.root}>
        {workspace.name}
      </div>
      <section className="explorer-section" aria-label="Agents">
        <h2>Agents</h2>
        <ul className="explorer-list">
          {workspace.agents.map((agent) => (
            <li key={agent}>
              <button type="button" {...item({ kind: 'agent', path: agent })} aria-label={`Agent ${agentName(agent)}`}>
                <span className="item-icon" aria-hidden="true">
                  ◆
                </span>
                <span className="item-label">{agentName(agent)}</span>
                {workspace.recordings[agent] ? (
                  <span className="tag" title="has a recording: runs offline">
                    rec
                  </span>
                ) : null}
              </button>
            </li>
          ))}
          {workspace.agents.length === 0 ? <li className="muted small">No agents in agents/</li> : null}
        </ul>
      </section>
      <section className="explorer-section" aria-label="Tools">
        <h2>
          <button
            type="button"
            {...item({ kind: 'catalog', file: 'tools.yaml' }, 'section-link')}
            aria-label="Edit tools.yaml"
          >
            Tools <span className="muted">tools.yaml</span>
          </button>
          <ProblemBadge count={problemsIn('tools.yaml')} label="problems in tools.yaml" />
        </h2>
        <ul className="explorer-list">
          {workspace.tools.map((tool) => (
            <li key={tool.alias} className="explorer-entry" title={tool.description}>
              <span className="item-label">{tool.alias}</span>
              {tool.approval !== 'auto' ? (
                <span className={`tag approval-${tool.approval}`}>{tool.approval}</span>
              ) : null}
              {tool.trust === 'untrusted' ? <span className="tag trust-untrusted">untrusted</span> : null}
            </li>
          ))}
        </ul>
        <McpServersList workspaceRoot={workspace.root} />
      </section>
      <section className="explorer-section" aria-label="Models">
        <h2>
          <button
            type="button"
            {...item({ kind: 'catalog', file: 'models.yaml' }, 'section-link')}
            aria-label="Edit models.yaml"
          >
            Models <span className="muted">models.yaml</span>
          </button>
          <ProblemBadge count={problemsIn('models.yaml')} label="problems in models.yaml" />
        </h2>
        <ul className="explorer-list">
          {workspace.models.map((model) => (
            <li key={model.alias} className="explorer-entry" title={`${model.provider} ${model.model}`}>
              <span className="item-label">{model.alias}</span>
              <span className="muted small">{model.provider}</span>
              {workspace.defaultModel === model.alias ? <span className="tag">default</span> : null}
            </li>
          ))}
        </ul>
        {problemsIn('promptforge.yaml') > 0 ? (
          <p className="error-text small">promptforge.yaml has {problemsIn('promptforge.yaml')} problem(s)</p>
        ) : null}
      </section>
      <section className="explorer-section" aria-label="Runs">
        <h2>
          <button type="button" {...item({ kind: 'history' }, 'section-link')} aria-label="Open run history">
            Runs <span className="muted">history</span>
          </button>
        </h2>
        <ul className="explorer-list">
          {workspace.runs.slice(0, 8).map((run) => (
            <li key={run.runId}>
              <button
                type="button"
                className="explorer-item"
                onClick={() => onOpenRun(run.runId)}
                aria-label={`Open run ${run.runId}`}
                title={run.runId}
              >
                <span
                  className={`status-dot status-${runningRunIds.has(run.runId) ? 'running' : run.status}`}
                  aria-hidden="true"
                />
                <span className="item-label">{agentName(run.script.replace(/^.*\//, ''))}</span>
                <span className="muted small">{new Date(run.startedAt).toLocaleTimeString()}</span>
              </button>
            </li>
          ))}
          {workspace.runs.length === 0 ? <li className="muted small">No runs yet</li> : null}
        </ul>
      </section>
    </nav>
  );
}
