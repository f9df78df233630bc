/** The workspace area between the explorer and the run panel: whatever view the person chose. */
import type { RefObject } from 'react';
import type { RunSummary, WorkspaceState } from '../../../common/studio-schemas.js';
import { CatalogEditor } from '../catalog/CatalogEditor';
import { AgentEditor } from '../editor/AgentEditor';
import { AgentTabs } from '../editor/AgentTabs';
import { FileViewer } from '../editor/FileViewer';
import { openFilesStore } from '../editor/open-files-store';
import type { AgentBuffers } from '../editor/use-agent-buffers';
import { HistoryView } from '../history/HistoryView';
import { ToolTrialView } from '../tool-trial/ToolTrial';
import type { CenterView } from '../workspace/Explorer';
import { NoAgentsState } from '../workspace/NoAgentsState';
import type { AgentFileActions } from '../workspace/use-agent-file-actions';
import { HeaderViewContent, type HeaderViewContext } from './header-views';
import type { Theme } from './theme';

export function WorkspaceArea({
  workspace,
  view,
  buffers,
  fileActions,
  theme,
  agentRunning,
  opening,
  onOpenAgent,
  onRun,
  onReplay,
  onStop,
  onSave,
  onCatalogDirtyChange,
  onOpenRun,
  onReplayRun,
  onOpenExample,
  onOpenFolder,
  pickAgentButton,
  headerViewContext,
}: {
  workspace: WorkspaceState;
  view: CenterView;
  buffers: AgentBuffers;
  fileActions: AgentFileActions;
  theme: Theme;
  agentRunning: boolean;
  /** A workspace is being opened (the empty state's buttons wait). */
  opening: boolean;
  onOpenAgent: (path: string) => void;
  onRun: () => void;
  onReplay: () => void;
  onStop: () => void;
  onSave: () => void;
  onCatalogDirtyChange: (dirty: boolean) => void;
  onOpenRun: (runId: string) => void;
  onReplayRun: (run: RunSummary) => void;
  onOpenExample: () => void;
  onOpenFolder: () => void;
  pickAgentButton: RefObject<HTMLButtonElement | null>;
  /** What a header view (Tests) may ask of the window. */
  headerViewContext: HeaderViewContext;
}) {
  const agent = buffers.active;
  return (
    <main className="workspace-area" aria-busy={opening}>
      {view.kind === 'agent' && agent ? (
        <AgentTabs
          files={buffers.files}
          active={agent.path}
          onSelect={onOpenAgent}
          workspaceRoot={workspace.root}
          actions={{
            onNew: fileActions.newAgent,
            onOpenFolder,
            onSaveAs: fileActions.saveAs,
            onRename: fileActions.rename,
            onDelete: fileActions.remove,
          }}
        >
          <AgentEditor
            path={agent.path}
            revision={agent.revision}
            initialText={agent.text}
            dirty={agent.text !== agent.savedText || agent.goneFromDisk === true}
            workspace={workspace}
            theme={theme}
            running={agentRunning}
            onChange={(text) => openFilesStore.edit(agent.path, text)}
            onRun={onRun}
            onReplay={workspace.recordings[agent.path] ? onReplay : undefined}
            onStop={onStop}
            onSave={onSave}
          />
        </AgentTabs>
      ) : null}
      {view.kind === 'catalog' ? (
        <CatalogEditor key={view.file} file={view.file} theme={theme} onDirtyChange={onCatalogDirtyChange} />
      ) : null}
      {view.kind === 'tool' ? <ToolTrialView alias={view.alias} tools={workspace.tools} theme={theme} /> : null}
      <HeaderViewContent view={view} context={headerViewContext} />
      {view.kind === 'file' ? (
        <FileViewer key={view.path} path={view.path} theme={theme} focusText={view.focus === true} />
      ) : null}
      {view.kind === 'history' ? <HistoryView runs={workspace.runs} onOpen={onOpenRun} onReplay={onReplayRun} /> : null}
      {view.kind === 'none' && workspace.agents.length === 0 ? (
        <div className="no-agents">
          <NoAgentsState
            workspaceName={workspace.name}
            busy={opening}
            onNewAgent={fileActions.newAgent}
            onOpenExample={onOpenExample}
          />
        </div>
      ) : null}
      {view.kind === 'none' && workspace.agents.length > 0 ? (
        <div className="panel-empty">
          <p className="muted">Pick an agent in the explorer to edit and run it, or make a new one.</p>
          <button type="button" className="button" ref={pickAgentButton} onClick={fileActions.newAgent}>
            New agent…
          </button>
        </div>
      ) : null}
    </main>
  );
}
