import type { CatalogFile, WorkspaceState } from '../../../common/studio-schemas.js';
import { McpServersList } from './McpServersList';
import { agentNameOf } from '../../../common/agent-name.js';
import type { HeaderViewKind } from '../shell/header-views';
import { ToolClaims } from '../approvals/ToolClaims';
import { useRovingList } from '../shell/use-roving-list';
import { FileTree } from './FileTree';
import { ToolTags } from './ToolTags';
import './workspace.css';

/** What the center area shows. */
export type CenterView =
  | { kind: 'agent'; path: string }
  | { kind: 'catalog'; file: CatalogFile }
  /** "Try a tool": the trial view of a catalog tool (builtin, command, http or an MCP alias). */
  | { kind: 'tool'; alias: string }
  /** A view opened from the header (Tests, Credentials, Trust): see shell/header-views.tsx. */
  | { kind: HeaderViewKind }
  | { kind: 'history' }
  /** A workspace file in the read-only viewer (the file tree, quick open). */
  /** `focus`: focus goes into its text once shown (a file just made). */
  | { kind: 'file'; path: string; focus?: boolean }
  | { kind: 'none' };

function ProblemBadge({ count, label }: { count: number; label: string }) {
  if (count === 0) return null;
  return (
    <span className="problem-badge" aria-label={`${count} ${label}`} title={`${count} ${label}`}>
      {count}
    </span>
  );
}

/** The left column: agents, tools, models and runs of the open workspace. */
export function Explorer({
  workspace,
  view,
  runningRunIds,
  onSelect,
  onOpenRun,
  unsaved,
  onNewAgent,
}: {
  workspace: WorkspaceState | null;
  view: CenterView;
  runningRunIds: ReadonlySet<string>;
  onSelect: (view: CenterView) => void;
  onOpenRun: (runId: string) => void;
  /** Agents open with unsaved edits (marked ●). */
  unsaved: ReadonlySet<string>;
  onNewAgent: () => void;
}) {
  // One tab stop per list; arrows, Home / End and a letter move inside it (shell/use-roving-list.ts).
  const agents = useRovingList(workspace?.agents ?? [], view.kind === 'agent' ? view.path : undefined);
  // An MCP tool is listed once, under its server (McpServersList), not here too.
  const ownTools = (workspace?.tools ?? []).filter((tool) => tool.kind !== 'mcp');
  const toolAliases = ownTools.map((tool) => tool.alias);
  const tools = useRovingList(toolAliases, view.kind === 'tool' ? view.alias : undefined);
  const runs = useRovingList((workspace?.runs ?? []).slice(0, 8).map((run) => run.runId));
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

  // The heading of a catalog section: opens the file's editor, with its problem count.
  const catalogHeading = (title: string, file: 'tools.yaml' | 'models.yaml') => (
    <h2>
      <button type="button" {...item({ kind: 'catalog', file }, 'section-link')} title={`Edit ${file}`}>
        {title} <span className="muted">{file}</span>
      </button>
      <ProblemBadge count={problemsIn(file)} label={`problems in ${file}`} />
    </h2>
  );
  return (
    <nav className="explorer" aria-label="Workspace explorer">
      <div className="workspace-name" title={workspace.root}>
        {workspace.name}
      </div>
      <section className="explorer-section" aria-label="Agents">
        <h2>
          Agents
          <button type="button" className="section-action" onClick={onNewAgent} title="New agent">
            + New
          </button>
        </h2>
        <ul className="explorer-list" onKeyDown={agents.onKeyDown}>
          {workspace.agents.map((agent) => (
            <li key={agent}>
              <button
                type="button"
                {...item({ kind: 'agent', path: agent })}
                {...agents.itemProps(agent)}
                title={agent}
              >
                <span className="item-icon" aria-hidden="true">
                  ◆
                </span>
                <span className="item-label">{agentNameOf(agent)}</span>
                {unsaved.has(agent) ? (
                  <span className="dirty-dot" title="unsaved changes">
                    ●
                  </span>
                ) : null}
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
        {catalogHeading('Tools', 'tools.yaml')}
        <ul className="explorer-list" onKeyDown={tools.onKeyDown}>
          {ownTools.map((tool) => (
            <li key={tool.alias} className="explorer-entry">
              {/* Opens "Try a tool"; the name is the row's own text, so what is seen is what is read. */}
              <button
                type="button"
                {...item({ kind: 'tool', alias: tool.alias }, 'explorer-item tool-item')}
                {...tools.itemProps(tool.alias)}
                title={`Try ${tool.alias}: ${tool.description}`}
              >
                {/* The alias is what a script types: never cut; it wraps, and the badges go below it. */}
                <span className="item-label alias-label">{tool.alias}</span>
                <ToolTags tool={tool} />
              </button>
              <ToolClaims annotations={tool.annotations} trusted={tool.annotationsTrusted} />
            </li>
          ))}
        </ul>
        <McpServersList
          workspaceRoot={workspace.root}
          tools={workspace.tools}
          onTry={(alias) => onSelect({ kind: 'tool', alias })}
        />
      </section>
      <section className="explorer-section" aria-label="Models">
        {catalogHeading('Models', 'models.yaml')}
        <ul className="explorer-list">
          {workspace.models.map((model) => (
            <li key={model.alias} className="explorer-entry" title={`${model.provider} ${model.model}`}>
              <span className="item-label">{model.alias}</span>
              <span className="muted small">{model.provider}</span>
              {workspace.defaultModel === model.alias ? <span className="tag">default</span> : null}
            </li>
          ))}
          {workspace.models.length === 0 ? (
            <li className="muted small explorer-note">No models yet: add one in models.yaml (click Models above).</li>
          ) : null}
        </ul>
        {problemsIn('promptforge.yaml') > 0 ? (
          <p className="error-text small">promptforge.yaml has {problemsIn('promptforge.yaml')} problem(s)</p>
        ) : null}
      </section>
      <section className="explorer-section" aria-label="Runs">
        <h2>
          <button type="button" {...item({ kind: 'history' }, 'section-link')} title="Open the run history">
            Runs <span className="muted">history</span>
          </button>
        </h2>
        <ul className="explorer-list" onKeyDown={runs.onKeyDown}>
          {workspace.runs.slice(0, 8).map((run) => (
            <li key={run.runId}>
              <button
                type="button"
                className="explorer-item"
                onClick={() => onOpenRun(run.runId)}
                {...runs.itemProps(run.runId)}
                data-run-id={run.runId}
                title={`Open run ${run.runId}`}
              >
                <span
                  className={`status-dot status-${runningRunIds.has(run.runId) ? 'running' : run.status}`}
                  aria-hidden="true"
                />
                <span className="item-label">{agentNameOf(run.script)}</span>
                <span className="muted small">{new Date(run.startedAt).toLocaleTimeString()}</span>
              </button>
            </li>
          ))}
          {workspace.runs.length === 0 ? <li className="muted small">No runs yet</li> : null}
        </ul>
      </section>
      <section className="explorer-section" aria-label="Files">
        <h2>Files</h2>
        <FileTree
          workspaceRoot={workspace.root}
          current={view.kind === 'file' ? view.path : view.kind === 'agent' ? view.path : undefined}
          // An agent opens in its editor (editable); any other file in the read-only viewer.
          onOpenFile={(path) =>
            onSelect(workspace.agents.includes(path) ? { kind: 'agent', path } : { kind: 'file', path })
          }
        />
      </section>
    </nav>
  );
}
