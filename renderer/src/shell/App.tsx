import { useEffect, useRef, useState } from 'react';
import type { RunEvent } from '../../../common/run-events.js';
import { AboutPanel } from './AboutPanel';
import { QuickOpen } from './QuickOpen';
import { describeError, useStudioEvent } from './studio-api';
import { hidesRunPanel, narrowsRunPanel, type HeaderViewContext } from './header-views';
import { windowActionHandlers } from './window-actions';
import { AppHeader, DismissibleBanner } from './AppHeader';
import { AppDialogs } from './AppDialogs';
import { WorkspaceArea } from './WorkspaceArea';
import { Explorer } from '../workspace/Explorer';
import { useApprovals } from '../approvals/use-approvals';
import { useMcpQuestions } from '../mcp/use-mcp-questions';
import { Splitter } from './Splitter';
import { usePanelLayout } from './use-panel-layout';
import { useShortcuts } from './use-shortcuts';
import { useCenterView } from './use-center-view';
import { RunPanel, type RunTab } from '../run/RunPanel';
import type { RunFocus } from '../run/ConversationView';
import { runStore } from '../run/run-hooks';
import { useRunActions } from '../run/use-run-actions';
import { applyTheme, readSavedTheme, type Theme } from './theme';
import { WorkspaceEmptyState } from '../workspace/WorkspaceEmptyState';
import { useWorkspace } from '../workspace/use-workspace';
import { useAgentFileActions } from '../workspace/use-agent-file-actions';
import { saveOpenFile, useAgentBuffers } from '../editor/use-agent-buffers';
import { WorkspaceTrustBanner } from '../trust/WorkspaceTrustBanner';
import { useRulesFollow } from '../rules/rules-store';

/**
 * The studio shell's layout: header, trust banner, explorer, workspace area, run panel, About
 * panel and the dialogs, wired to the hooks that hold their state (the views, the runs, the
 * approvals, the workspace, the actions).
 */
export function App() {
  const [theme, setTheme] = useState<Theme>(readSavedTheme);
  const [aboutOpen, setAboutOpen] = useState(false);
  const [shortcutsOpen, setShortcutsOpen] = useState(false);
  const [paletteOpen, setPaletteOpen] = useState(false);
  const [quickOpenOpen, setQuickOpenOpen] = useState(false);
  const [banner, setBanner] = useState<string | null>(null);
  const [tab, setTab] = useState<RunTab>('conversation');
  // A test case opened at the step where it diverged: the run panel shows its conversation there.
  const [focus, setFocus] = useState<RunFocus | null>(null);
  // The open agents and their buffers live in the open-files store (editor/use-agent-buffers.ts).
  const buffers = useAgentBuffers();
  const agent = buffers.active;
  const center = useCenterView(buffers, setBanner);
  const { view, selectView, openAgent } = center;
  const panels = usePanelLayout(narrowsRunPanel(view));
  const { pending: approvals, pendingText: approvalsText, reload: reloadApprovals } = useApprovals();
  // What MCP servers ask the person waits beside the tool calls (renderer/src/mcp).
  const questions = useMcpQuestions();
  const reloadQuestions = questions.reload;
  const pendingCount = approvals.length + questions.count;
  const pendingText = [approvalsText, questions.text].filter((text) => text !== '').join(', ');

  // How many views the person had chosen when the open started (null: main had the workspace open
  // already, after a reload). What they choose while it opens stays.
  const choicesAtOpen = useRef<number | null>(null);
  const { workspace, opening, openError, openExample, chooseFolder } = useWorkspace({
    onError: setBanner,
    onOpening: () => {
      choicesAtOpen.current = center.choices();
    },
    onOpened: async (state) => {
      const chosen = choicesAtOpen.current ?? center.choices();
      choicesAtOpen.current = null;
      buffers.reset();
      setFocus(null);
      // The run panel shows nothing of the workspace left behind: its runs are not this one's.
      runStore.select(null);
      try {
        await Promise.all([reloadApprovals(state.runs), reloadQuestions()]);
      } catch (error) {
        setBanner(describeError(error));
      }
      // A view the person chose while the workspace opened or its approvals loaded (Tests, History…)
      // stays.
      if (center.choices() !== chosen) return;
      const first = state.agents[0];
      if (first) await openAgent(first);
      else center.setView({ kind: 'none' });
    },
  });
  const fileActions = useAgentFileActions({ workspace, openAgent });
  // The person's approval rules: the Rules view, its header mark and the notices follow the file.
  useRulesFollow(workspace?.root ?? null);
  const runs = useRunActions({
    agent,
    agentShown: view.kind === 'agent',
    workspace,
    guard: center.guard,
    setBanner,
    setTab,
  });
  const snapshot = runs.runView?.snapshot;

  useEffect(() => {
    const marks = `${pendingCount > 0 ? `(${pendingCount}) ` : ''}${buffers.anyDirty || center.catalogDirty ? '● ' : ''}`;
    document.title = `${marks}PromptForge Studio`;
  }, [pendingCount, buffers.anyDirty, center.catalogDirty]);

  useStudioEvent('run-event', (event: RunEvent) => runStore.applyEvent(event));

  const saveAgent = async (): Promise<void> => {
    if (!agent) return;
    try {
      await saveOpenFile(agent.path);
    } catch (error) {
      setBanner(`Not saved: ${describeError(error)}`);
    }
  };

  // Jumping to the approvals is the person's own click, so focus may follow: onto the panel, never
  // onto a card (a card takes keys only once the person moves into it).
  // A run tab shows even from Credentials (where the run panel is hidden) or with the panel collapsed.
  const showRunTab = (next: RunTab): void => {
    if (hidesRunPanel(view)) center.setView(agent ? { kind: 'agent', path: agent.path } : { kind: 'none' });
    panels.toggleRunPanel(false);
    setTab(next);
  };
  const showApprovals = (): void => {
    showRunTab('approvals');
    // After React rendered the tab (a click's updates are flushed before the next task).
    setTimeout(() => document.querySelector<HTMLElement>('.approvals-panel')?.focus(), 0);
  };
  const headerViewContext: HeaderViewContext = {
    workspaceRoot: workspace?.root ?? '',
    openRunAt: (runId, at) => {
      setFocus(at ? { runId, ...at, request: Date.now() } : null);
      showRunTab('conversation');
      void runStore.open(runId);
    },
    activeAgent: agent?.path ?? null,
    openFile: (path) => selectView({ kind: 'file', path, focus: true }),
  };
  const taintCheckOf = (alias: string): boolean =>
    workspace?.tools.find((tool) => tool.alias === alias)?.taintCheck ?? true;

  const toggleTheme = (): void => {
    const next: Theme = theme === 'dark' ? 'light' : 'dark';
    applyTheme(next);
    setTheme(next);
  };

  // Every action of the studio, for the key handler and the command palette (shell/actions.ts).
  const actionHandlers = windowActionHandlers({
    view,
    agent,
    workspace,
    runs,
    selectView,
    newAgent: fileActions.newAgent,
    saveAgent: () => void saveAgent(),
    showRunTab,
    showApprovals,
    panels,
    openPalette: () => setPaletteOpen(true),
    openQuickOpen: () => setQuickOpenOpen(true),
    openShortcuts: () => setShortcutsOpen(true),
    openAbout: () => setAboutOpen(true),
    toggleTheme,
    openExample: () => void openExample(),
    chooseFolder: () => void chooseFolder(),
  });
  const modalOpen =
    center.confirm !== null ||
    shortcutsOpen ||
    paletteOpen ||
    quickOpenOpen ||
    runs.missingKey !== null ||
    fileActions.dialog !== null;
  useShortcuts(actionHandlers, modalOpen);

  return (
    <div className={workspace ? 'app-shell workspace-open' : 'app-shell'}>
      <AppHeader
        workspaceName={workspace?.name ?? null}
        pendingText={pendingText}
        pendingCount={pendingCount}
        onShowApprovals={showApprovals}
        view={view}
        onSelectView={selectView}
        panels={panels}
        theme={theme}
        onToggleTheme={toggleTheme}
        onOpenPalette={() => setPaletteOpen(true)}
        onOpenShortcuts={() => setShortcutsOpen(true)}
        aboutOpen={aboutOpen}
        onToggleAbout={() => setAboutOpen((open) => !open)}
      />

      <WorkspaceTrustBanner workspaceRoot={workspace?.root ?? null} />
      <DismissibleBanner message={banner} onDismiss={() => setBanner(null)} />

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
            runningRunIds={runs.liveRunIds}
            onSelect={selectView}
            onOpenRun={runs.openRun}
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
            <WorkspaceArea
              workspace={workspace}
              view={view}
              buffers={buffers}
              fileActions={fileActions}
              theme={theme}
              agentRunning={runs.agentRunning}
              opening={opening}
              onOpenAgent={(path) => void openAgent(path)}
              onRun={runs.runAgent}
              onReplay={runs.replayAgent}
              onStop={() => void runs.stopRun()}
              onSave={() => void saveAgent()}
              onCatalogDirtyChange={center.setCatalogDirty}
              onOpenRun={runs.openRun}
              onReplayRun={runs.replayRun}
              onOpenExample={() => void openExample()}
              onOpenFolder={() => void chooseFolder()}
              pickAgentButton={center.pickAgentButton}
              headerViewContext={headerViewContext}
            />
            {hidesRunPanel(view) ? null : (
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
            {hidesRunPanel(view) ? null : (
              <div id="run-panel" className="panel-slot" hidden={panels.layout.runPanelCollapsed}>
                <RunPanel
                  narrow={narrowsRunPanel(view)}
                  tab={tab}
                  onTab={setTab}
                  snapshot={snapshot}
                  paging={runs.runView?.paging}
                  onLoadMore={(explicit) => {
                    if (runs.selectedRunId !== null) void runStore.loadMore(runs.selectedRunId, undefined, explicit);
                  }}
                  approvals={approvals}
                  questions={questions}
                  taintCheckOf={taintCheckOf}
                  theme={theme}
                  running={runs.running}
                  focus={focus?.runId === runs.selectedRunId ? focus : undefined}
                  onOpenRules={() => selectView({ kind: 'rules' })}
                  models={workspace.models}
                  summary={workspace.runs.find((run) => run.runId === runs.selectedRunId)}
                  emptyHint={
                    workspace.agents.length === 0
                      ? 'No runs yet. Create an agent with + New in the explorer, then run it here.'
                      : view.kind === 'tests'
                        ? 'No run selected. Pick a case that ran and open its run (Enter).'
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

      {quickOpenOpen && workspace ? (
        <QuickOpen
          workspace={workspace}
          onClose={() => setQuickOpenOpen(false)}
          onOpen={(target) => {
            if (target.kind === 'agent') void openAgent(target.path);
            else if (target.kind === 'run') headerViewContext.openRunAt(target.runId);
            else if (target.kind === 'tool') selectView({ kind: 'tool', alias: target.alias });
            else if (target.kind === 'model') selectView({ kind: 'catalog', file: 'models.yaml' });
            else selectView({ kind: 'file', path: target.path });
          }}
        />
      ) : null}
      <AppDialogs
        confirm={center.confirm}
        onAnswerConfirm={center.answerConfirm}
        shortcutsOpen={shortcutsOpen}
        onCloseShortcuts={() => setShortcutsOpen(false)}
        paletteOpen={paletteOpen}
        onClosePalette={() => setPaletteOpen(false)}
        handlers={actionHandlers}
        fileDialog={fileActions.dialog}
        missingKey={runs.missingKey}
        agentPath={agent?.path ?? null}
        onCloseMissingKey={() => runs.setMissingKey(null)}
        onRunWithKey={() => {
          runs.setMissingKey(null);
          runs.runAgent();
        }}
        onRunOffline={
          agent && workspace?.recordings[agent.path]
            ? () => {
                runs.setMissingKey(null);
                runs.replayAgent();
              }
            : undefined
        }
      />
    </div>
  );
}
