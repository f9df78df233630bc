import { useEffect, useRef, useState } from 'react';
import type { ContractRequest } from '../../../common/contract.js';
import type { RunEvent } from '../../../common/run-events.js';
import type { RunSummary } from '../../../common/studio-schemas.js';
import { AboutPanel } from './AboutPanel';
import { AgentEditor } from '../editor/AgentEditor';
import { call, describeError, useStudioEvent } from './studio-api';
import { CatalogEditor } from '../catalog/CatalogEditor';
import { ToolTrialView } from '../tool-trial/ToolTrial';
import { isSettingsView, SettingsViewButtons, SettingsViewContent, settingsViewActions } from './settings-views';
import { ConfirmDialog, ShortcutsDialog } from './Dialogs';
import { Explorer, type CenterView } from '../workspace/Explorer';
import { HistoryView } from '../history/HistoryView';
import { LogoMark } from './LogoMark';
import { useApprovals } from '../approvals/use-approvals';
import type { ActionHandlers } from './actions';
import { CommandPalette } from './CommandPalette';
import { Splitter } from './Splitter';
import { usePanelLayout } from './use-panel-layout';
import { useShortcuts } from './use-shortcuts';
import { RunPanel, type RunTab } from '../run/RunPanel';
import { runStore, useLiveRunIds, useRun, useSelectedRunId } from '../run/run-hooks';
import { applyTheme, readSavedTheme, type Theme } from './theme';
import { WorkspaceEmptyState } from '../workspace/WorkspaceEmptyState';
import { NoAgentsState } from '../workspace/NoAgentsState';
import { useWorkspace } from '../workspace/use-workspace';
import { useAgentFileActions } from '../workspace/use-agent-file-actions';
import { AgentTabs } from '../editor/AgentTabs';
import { agentNameOf } from '../../../common/agent-name.js';
import { openFilesStore } from '../editor/open-files-store';
import { saveOpenFile, useAgentBuffers } from '../editor/use-agent-buffers';
import { findMissingKey, type MissingKey } from '../run/key-check';
import { NoKeyDialog } from '../run/NoKeyDialog';
import { WorkspaceTrustBanner } from '../trust/WorkspaceTrustBanner';

interface PendingConfirm {
  title: string;
  message: string;
  confirmLabel: string;
  action: () => void;
}

/** The studio shell: header, workspace explorer, editors, run panel and the About panel. */
export function App() {
  const [theme, setTheme] = useState<Theme>(readSavedTheme);
  const [aboutOpen, setAboutOpen] = useState(false);
  const [shortcutsOpen, setShortcutsOpen] = useState(false);
  const [centerView, setView] = useState<CenterView>({ kind: 'none' });
  // The open agents and their buffers live in the open-files store (editor/use-agent-buffers.ts).
  const buffers = useAgentBuffers();
  const agent = buffers.active;
  // The agent view shows the active tab.
  const view: CenterView =
    centerView.kind !== 'agent' ? centerView : agent ? { kind: 'agent', path: agent.path } : { kind: 'none' };
  const [missingKey, setMissingKey] = useState<MissingKey | null>(null);
  const panels = usePanelLayout(view.kind === 'history' || view.kind === 'catalog');
  const [catalogDirty, setCatalogDirty] = useState(false);
  const [model, setModel] = useState('');
  const { pending: approvals, pendingText, reload: reloadApprovals } = useApprovals();
  const [paletteOpen, setPaletteOpen] = useState(false);
  const [tab, setTab] = useState<RunTab>('conversation');
  const [confirm, setConfirm] = useState<PendingConfirm | null>(null);
  // Closing the last tab removes the element that had focus. A keyboard user then lands on the
  // empty editor's "New agent…" button instead of the page's body (and no further Tab press lost).
  const pickAgentButton = useRef<HTMLButtonElement>(null);
  const showedAgent = useRef(false);
  useEffect(() => {
    const focusLost = document.activeElement === null || document.activeElement === document.body;
    if (view.kind === 'none' && showedAgent.current && focusLost) pickAgentButton.current?.focus();
    showedAgent.current = view.kind === 'agent';
  }, [view.kind]);
  const [banner, setBanner] = useState<string | null>(null);

  // Run state lives in the run store (run-store.ts); these hooks re-render on its changes only.
  const selectedRunId = useSelectedRunId();
  const liveRunIds = useLiveRunIds();
  const runView = useRun(selectedRunId);
  const snapshot = runView?.snapshot;

  const agentDirty = buffers.anyDirty;
  const running = selectedRunId !== null && liveRunIds.has(selectedRunId);

  useEffect(() => {
    const marks = `${approvals.length > 0 ? `(${approvals.length}) ` : ''}${agentDirty || catalogDirty ? '● ' : ''}`;
    document.title = `${marks}PromptForge Studio`;
  }, [approvals.length, agentDirty, catalogDirty]);

  useStudioEvent('run-event', (event: RunEvent) => runStore.applyEvent(event));
  const guard = (dirty: boolean, title: string, message: string, confirmLabel: string, action: () => void): void => {
    if (!dirty) action();
    else setConfirm({ title, message, confirmLabel, action });
  };

  // Opens an agent in its tab (its buffer, with any unsaved edits, is kept while other tabs show).
  const openAgent = async (path: string): Promise<void> => {
    try {
      await buffers.openAgent(path);
      setView({ kind: 'agent', path });
    } catch (error) {
      setBanner(describeError(error));
    }
  };

  const selectView = (next: CenterView): void => {
    // An agent's unsaved edits stay in its tab; only the catalog editor's are lost by leaving it.
    guard(
      view.kind === 'catalog' && catalogDirty,
      'Discard unsaved changes?',
      'The file you are leaving has unsaved changes.',
      'Discard changes',
      () => {
        setCatalogDirty(false);
        if (next.kind === 'agent') void openAgent(next.path);
        else setView(next);
      },
    );
  };

  const { workspace, opening, openError, openExample, chooseFolder } = useWorkspace({
    onError: setBanner,
    onOpened: async (state) => {
      buffers.reset();
      try {
        await reloadApprovals(state.runs);
      } catch (error) {
        setBanner(describeError(error));
      }
      const first = state.agents[0];
      if (first) await openAgent(first);
      else setView({ kind: 'none' });
    },
  });
  const fileActions = useAgentFileActions({ workspace, openAgent });

  const startRun = async (request: ContractRequest<'run:start'>): Promise<string | null> => {
    setBanner(null);
    try {
      const { runId } = await call('run:start', request);
      // The run may already have ended (a short replay); the store marks it live only if not.
      runStore.started(runId);
      setTab('conversation');
      return runId;
    } catch (error) {
      setBanner(`Could not start the run: ${describeError(error)}`);
      return null;
    }
  };

  // A live run that failed because its model has no key offers to set it, or to run the recording.
  const keyCheckRun = useRef<string | null>(null);
  const runAgent = (): void => {
    if (!agent || view.kind !== 'agent') return;
    void startRun({ script: agent.path, text: agent.text, ...(model !== '' && { model }) }).then((runId) => {
      keyCheckRun.current = runId;
    });
  };
  useEffect(() => {
    if (!snapshot?.ended || snapshot.runId !== keyCheckRun.current) return;
    keyCheckRun.current = null;
    void findMissingKey(snapshot).then(setMissingKey);
  }, [snapshot]);

  const replayAgent = (): void => {
    if (!agent || !workspace) return;
    const recording = workspace.recordings[agent.path];
    if (!recording) return;
    const edited = agent.text !== agent.savedText;
    guard(
      edited,
      'Replay with unsaved edits?',
      'The recording was made with the saved script. A replay with your unsaved edits may stop where the script asks for something the recording does not hold.',
      'Replay with my edits',
      () => void startRun({ script: agent.path, replay: recording, ...(edited && { text: agent.text }) }),
    );
  };

  const replayRun = (run: RunSummary): void => void startRun({ script: run.script, replay: run.file });

  const stopRun = async (): Promise<void> => {
    const target = selectedRunId !== null && liveRunIds.has(selectedRunId) ? selectedRunId : [...liveRunIds].at(-1);
    if (target === undefined) return;
    try {
      await call('run:stop', { runId: target });
    } catch (error) {
      setBanner(describeError(error));
    }
  };

  const saveAgent = async (): Promise<void> => {
    if (!agent) return;
    try {
      await saveOpenFile(agent.path);
    } catch (error) {
      setBanner(`Not saved: ${describeError(error)}`);
    }
  };

  // The run shows at once; its transcript is read page by page (a failure shows in the run panel).
  const openRun = (runId: string): void => {
    setTab('conversation');
    void runStore.open(runId);
  };

  // Jumping to the approvals is the person's own click, so focus may follow: onto the panel, never
  // onto a card (a card takes keys only once the person moves into it).
  // A run tab shows even from Credentials (where the run panel is hidden) or with the panel collapsed.
  const showRunTab = (next: RunTab): void => {
    if (isSettingsView(view)) setView(agent ? { kind: 'agent', path: agent.path } : { kind: 'none' });
    panels.toggleRunPanel(false);
    setTab(next);
  };
  const showApprovals = (): void => {
    showRunTab('approvals');
    // After React rendered the tab (a click's updates are flushed before the next task).
    setTimeout(() => document.querySelector<HTMLElement>('.approvals-panel')?.focus(), 0);
  };
  const taintCheckOf = (alias: string): boolean =>
    workspace?.tools.find((tool) => tool.alias === alias)?.taintCheck ?? true;
  const pendingCount = approvals.length;

  const toggleTheme = (): void => {
    const next: Theme = theme === 'dark' ? 'light' : 'dark';
    applyTheme(next);
    setTheme(next);
  };

  const selectedRunning = running;
  const agentRunning = selectedRunning || (liveRunIds.size > 0 && selectedRunId === null);

  // Every action of the studio, for the key handler and the command palette (shell/actions.ts).
  const noWorkspace = workspace === null ? 'open a workspace first' : null;
  const actionHandlers: ActionHandlers = {
    run: { run: runAgent, unavailable: view.kind === 'agent' && agent ? null : 'open an agent first' },
    replay: {
      run: replayAgent,
      unavailable: agent && workspace?.recordings[agent.path] ? null : 'the open agent has no recording',
    },
    stop: { run: () => void stopRun(), unavailable: liveRunIds.size > 0 ? null : 'nothing is running' },
    save: { run: () => void saveAgent(), unavailable: view.kind === 'agent' && agent ? null : 'open an agent first' },
    palette: { run: () => setPaletteOpen(true) },
    shortcuts: { run: () => setShortcutsOpen(true) },
    'toggle-explorer': { run: () => panels.toggleExplorer() },
    'toggle-run-panel': { run: () => panels.toggleRunPanel(), unavailable: noWorkspace },
    'show-conversation': { run: () => showRunTab('conversation'), unavailable: noWorkspace },
    'show-approvals': { run: showApprovals, unavailable: noWorkspace },
    'show-log': { run: () => showRunTab('log'), unavailable: noWorkspace },
    'show-usage': { run: () => showRunTab('usage'), unavailable: noWorkspace },
    history: { run: () => selectView({ kind: 'history' }), unavailable: noWorkspace },
    'edit-tools': { run: () => selectView({ kind: 'catalog', file: 'tools.yaml' }), unavailable: noWorkspace },
    'edit-models': { run: () => selectView({ kind: 'catalog', file: 'models.yaml' }), unavailable: noWorkspace },
    ...settingsViewActions(selectView, noWorkspace),
    'new-agent': { run: fileActions.newAgent, unavailable: noWorkspace },
    'open-example': { run: () => void openExample() },
    'open-folder': { run: () => void chooseFolder() },
    'toggle-theme': { run: toggleTheme },
    about: { run: () => setAboutOpen(true) },
  };
  const modalOpen =
    confirm !== null || shortcutsOpen || paletteOpen || missingKey !== null || fileActions.dialog !== null;
  useShortcuts(actionHandlers, modalOpen);

  return (
    <div className={workspace ? 'app-shell workspace-open' : 'app-shell'}>
      <header className="app-header">
        <div className="brand">
          <LogoMark size={26} />
          <h1>PromptForge Studio</h1>
          {workspace ? <span className="header-workspace muted">{workspace.name}</span> : null}
        </div>
        <div className="header-actions">
          {/* Polite: announced when the screen reader is idle, and focus stays where it is. */}
          <span className="visually-hidden" role="status" aria-live="polite">
            {pendingText}
          </span>
          {pendingCount > 0 ? (
            <button
              type="button"
              className="button pending-indicator"
              onClick={showApprovals}
              title="Show the calls waiting for a decision"
            >
              <span className="pending-dot" aria-hidden="true" />
              <span className="pending-text pending-text-long">{pendingText}</span>
              <span className="pending-text pending-text-short">
                {pendingCount} approval{pendingCount === 1 ? '' : 's'} waiting
              </span>
            </button>
          ) : null}
          {workspace ? <SettingsViewButtons current={view} onSelect={selectView} /> : null}
          <button
            type="button"
            className="button button-quiet panel-toggle"
            aria-pressed={!panels.layout.explorerCollapsed}
            aria-controls="explorer-panel"
            onClick={() => panels.toggleExplorer()}
            aria-label="Explorer"
            title="Show or hide the explorer (Ctrl/⌘+Shift+E)"
          >
            <span aria-hidden="true">◧</span>
          </button>
          {workspace ? (
            <button
              type="button"
              className="button button-quiet panel-toggle"
              aria-pressed={!panels.layout.runPanelCollapsed}
              aria-controls={isSettingsView(view) ? undefined : 'run-panel'}
              onClick={() => panels.toggleRunPanel()}
              aria-label="Run panel"
              title="Show or hide the run panel (Ctrl/⌘+Shift+Y)"
            >
              <span aria-hidden="true">◨</span>
            </button>
          ) : null}
          <button
            type="button"
            className="button button-quiet"
            onClick={() => setPaletteOpen(true)}
            aria-label="Command palette"
            title="Command palette (Ctrl/⌘+Shift+P)"
          >
            <span aria-hidden="true">⌘</span>
          </button>
          <button
            type="button"
            className="button button-quiet"
            onClick={() => setShortcutsOpen(true)}
            aria-label="Keyboard shortcuts"
            title="Keyboard shortcuts (?)"
          >
            <span aria-hidden="true">?</span>
          </button>
          <button
            type="button"
            className="button button-quiet"
            onClick={toggleTheme}
            aria-label={theme === 'dark' ? 'Switch to light theme' : 'Switch to dark theme'}
            title={theme === 'dark' ? 'Switch to light theme' : 'Switch to dark theme'}
          >
            <span aria-hidden="true">{theme === 'dark' ? '☀' : '☾'}</span>
          </button>
          <button
            type="button"
            className="button"
            aria-expanded={aboutOpen}
            aria-controls="about-panel"
            onClick={() => setAboutOpen((open) => !open)}
          >
            About
          </button>
        </div>
      </header>

      <WorkspaceTrustBanner workspaceRoot={workspace?.root ?? null} />
      {banner ? (
        <div className="banner" role="alert">
          <span>{banner}</span>
          <button
            type="button"
            className="button button-quiet"
            aria-label="Dismiss message"
            onClick={() => setBanner(null)}
          >
            <span aria-hidden="true">✕</span>
          </button>
        </div>
      ) : null}

      <div
        className="app-body"
        style={{
          ['--explorer-width' as string]: `${panels.explorer.width}px`,
          ['--run-panel-width' as string]: `${panels.runPanel.width}px`,
        }}
      >
        {/* display: contents; the wrappers only name the panels for the splitters' aria-controls. */}
        <div id="explorer-panel" className="panel-slot" hidden={panels.layout.explorerCollapsed}>
          <Explorer
            workspace={workspace}
            view={view}
            runningRunIds={liveRunIds}
            onSelect={selectView}
            onOpenRun={openRun}
            unsaved={buffers.unsaved}
            onNewAgent={fileActions.newAgent}
          />
        </div>
        <Splitter
          label="Explorer width"
          controls="explorer-panel"
          side="left"
          value={panels.explorer.width}
          min={panels.explorer.min}
          max={panels.explorer.max}
          collapsed={panels.layout.explorerCollapsed}
          onResize={panels.setExplorerWidth}
          onToggle={() => panels.toggleExplorer()}
        />

        {workspace === null ? (
          <main className="workspace-area workspace-area-empty">
            <WorkspaceEmptyState
              busy={opening}
              error={openError}
              onOpenExample={() => void openExample()}
              onChooseFolder={() => void chooseFolder()}
            />
          </main>
        ) : (
          <>
            <main className="workspace-area">
              {view.kind === 'agent' && agent ? (
                <AgentTabs
                  files={buffers.files}
                  active={agent.path}
                  onSelect={(path) => void openAgent(path)}
                  actions={{
                    onNew: fileActions.newAgent,
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
                    model={model}
                    onModel={setModel}
                    onChange={(text) => openFilesStore.edit(agent.path, text)}
                    onRun={runAgent}
                    onReplay={workspace.recordings[agent.path] ? replayAgent : undefined}
                    onStop={() => void stopRun()}
                    onSave={() => void saveAgent()}
                  />
                </AgentTabs>
              ) : null}
              {view.kind === 'catalog' ? (
                <CatalogEditor key={view.file} file={view.file} theme={theme} onDirtyChange={setCatalogDirty} />
              ) : null}
              {view.kind === 'tool' ? (
                <ToolTrialView alias={view.alias} tools={workspace.tools} onShowApprovals={showApprovals} />
              ) : null}
              <SettingsViewContent view={view} />
              {view.kind === 'history' ? (
                <HistoryView runs={workspace.runs} onOpen={openRun} onReplay={replayRun} />
              ) : null}
              {view.kind === 'none' && workspace.agents.length === 0 ? (
                <div className="no-agents">
                  <NoAgentsState
                    workspaceName={workspace.name}
                    busy={opening}
                    onNewAgent={fileActions.newAgent}
                    onOpenExample={() => void openExample()}
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
            {isSettingsView(view) ? null : (
              <Splitter
                label="Run panel width"
                controls="run-panel"
                side="right"
                value={panels.runPanel.width}
                min={panels.runPanel.min}
                max={panels.runPanel.max}
                collapsed={panels.layout.runPanelCollapsed}
                onResize={panels.setRunPanelWidth}
                onToggle={() => panels.toggleRunPanel()}
              />
            )}
            {isSettingsView(view) ? null : (
              <div id="run-panel" className="panel-slot" hidden={panels.layout.runPanelCollapsed}>
                <RunPanel
                  narrow={view.kind === 'history' || view.kind === 'catalog'}
                  tab={tab}
                  onTab={setTab}
                  snapshot={snapshot}
                  paging={runView?.paging}
                  onLoadMore={(explicit) => {
                    if (selectedRunId !== null) void runStore.loadMore(selectedRunId, undefined, explicit);
                  }}
                  approvals={approvals}
                  taintCheckOf={taintCheckOf}
                  theme={theme}
                  running={selectedRunning}
                  models={workspace.models}
                  summary={workspace.runs.find((run) => run.runId === selectedRunId)}
                  emptyHint={
                    workspace.agents.length === 0
                      ? 'No runs yet. Create an agent with + New in the explorer, then run it here.'
                      : view.kind === 'agent'
                        ? 'No run selected. Run the agent (Ctrl+Enter) or open a run from the history.'
                        : 'No run selected. Open an agent to run it, or open a run from the history.'
                  }
                />
              </div>
            )}
          </>
        )}

        {aboutOpen ? <AboutPanel id="about-panel" onClose={() => setAboutOpen(false)} /> : null}
      </div>

      {confirm ? (
        <ConfirmDialog
          title={confirm.title}
          message={confirm.message}
          confirmLabel={confirm.confirmLabel}
          onCancel={() => setConfirm(null)}
          onConfirm={() => {
            const action = confirm.action;
            setConfirm(null);
            action();
          }}
        />
      ) : null}
      {shortcutsOpen ? <ShortcutsDialog onClose={() => setShortcutsOpen(false)} /> : null}
      {paletteOpen ? <CommandPalette handlers={actionHandlers} onClose={() => setPaletteOpen(false)} /> : null}
      {fileActions.dialog}
      {missingKey && agent ? (
        <NoKeyDialog
          missing={missingKey}
          agent={agentNameOf(agent.path)}
          onClose={() => setMissingKey(null)}
          onRunWithKey={() => {
            setMissingKey(null);
            runAgent();
          }}
          onRunOffline={
            workspace?.recordings[agent.path]
              ? () => {
                  setMissingKey(null);
                  replayAgent();
                }
              : undefined
          }
        />
      ) : null}
    </div>
  );
}
