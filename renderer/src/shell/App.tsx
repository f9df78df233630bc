import { useEffect, useRef, useState } from 'react';
import type { ContractRequest } from '../../../common/contract.js';
import type { RunEvent } from '../../../common/run-events.js';
import type { PendingApproval, RunSummary, WorkspaceState } from '../../../common/studio-schemas.js';
import { AboutPanel } from './AboutPanel';
import { AgentEditor } from '../editor/AgentEditor';
import { call, describeError, useStudioEvent } from './studio-api';
import { CatalogEditor } from '../catalog/CatalogEditor';
import { CredentialsPanel } from '../settings/CredentialsPanel';
import { ConfirmDialog, ShortcutsDialog } from './Dialogs';
import { Explorer, type CenterView } from '../workspace/Explorer';
import { HistoryView } from '../history/HistoryView';
import { isStopShortcut, isTyping } from './keyboard';
import { LogoMark } from './LogoMark';
import { notifyPendingApproval } from '../approvals/notify-pending-approval';
import { RunPanel, type RunTab } from '../run/RunPanel';
import { runStore, useLiveRunIds, useRun, useSelectedRunId } from '../run/run-hooks';
import { applyTheme, readSavedTheme, type Theme } from './theme';
import { WorkspaceEmptyState } from '../workspace/WorkspaceEmptyState';

interface PendingConfirm {
  title: string;
  message: string;
  confirmLabel: string;
  action: () => void;
}

interface AgentBuffer {
  path: string;
  /** Bumped when the file is reloaded from disk, so the editor takes the new text. */
  revision: number;
  loadedText: string;
  savedText: string;
  text: string;
}

function approvalKey(approval: { runId: string; callId: string }): string {
  return `${approval.runId}/${approval.callId}`;
}

/** The studio shell: header, workspace explorer, editors, run panel and the About panel. */
export function App() {
  const [theme, setTheme] = useState<Theme>(readSavedTheme);
  const [aboutOpen, setAboutOpen] = useState(false);
  const [shortcutsOpen, setShortcutsOpen] = useState(false);
  const [workspace, setWorkspace] = useState<WorkspaceState | null>(null);
  const [opening, setOpening] = useState(false);
  const [openError, setOpenError] = useState<string | null>(null);
  const [view, setView] = useState<CenterView>({ kind: 'none' });
  const [agent, setAgent] = useState<AgentBuffer | null>(null);
  const [catalogDirty, setCatalogDirty] = useState(false);
  const [model, setModel] = useState('');
  const [approvals, setApprovals] = useState<PendingApproval[]>([]);
  const [tab, setTab] = useState<RunTab>('conversation');
  const [confirm, setConfirm] = useState<PendingConfirm | null>(null);
  const [banner, setBanner] = useState<string | null>(null);

  // Run state lives in the run store (run-store.ts); these hooks re-render on its changes only.
  const selectedRunId = useSelectedRunId();
  const liveRunIds = useLiveRunIds();
  const runView = useRun(selectedRunId);
  const snapshot = runView?.snapshot;

  const agentDirty = agent !== null && agent.text !== agent.savedText;
  const running = selectedRunId !== null && liveRunIds.has(selectedRunId);

  useEffect(() => {
    const marks = `${approvals.length > 0 ? `(${approvals.length}) ` : ''}${agentDirty || catalogDirty ? '● ' : ''}`;
    document.title = `${marks}PromptForge Studio`;
  }, [approvals.length, agentDirty, catalogDirty]);

  useStudioEvent('run-event', (event: RunEvent) => runStore.applyEvent(event));
  useStudioEvent('approval-pending', (approval) => {
    setApprovals((current) =>
      current.some((item) => approvalKey(item) === approvalKey(approval))
        ? current.map((item) => (approvalKey(item) === approvalKey(approval) ? approval : item))
        : [...current, approval],
    );
    notifyPendingApproval(approval);
  });
  useStudioEvent('approval-resolved', (resolved) => {
    setApprovals((current) => current.filter((item) => approvalKey(item) !== approvalKey(resolved)));
  });
  useStudioEvent('workspace-changed', (state) => {
    setWorkspace(state);
    // A run written elsewhere (its transcript grew): the open run reads on.
    void runStore.refreshSelected();
    // An external edit of the open agent shows up at once, unless the person has unsaved edits.
    if (agent && agent.text === agent.savedText) {
      const { path, savedText } = agent;
      call('file:read', { path }).then(
        ({ text }) => {
          if (text === savedText) return;
          setAgent((current) =>
            current && current.path === path && current.text === current.savedText
              ? { path, revision: current.revision + 1, loadedText: text, savedText: text, text }
              : current,
          );
        },
        () => undefined,
      );
    }
  });

  const guard = (dirty: boolean, title: string, message: string, confirmLabel: string, action: () => void): void => {
    if (!dirty) action();
    else setConfirm({ title, message, confirmLabel, action });
  };

  const openAgent = async (path: string): Promise<void> => {
    try {
      const { text } = await call('file:read', { path });
      setAgent({ path, revision: 0, loadedText: text, savedText: text, text });
      setView({ kind: 'agent', path });
    } catch (error) {
      setBanner(describeError(error));
    }
  };

  const selectView = (next: CenterView): void => {
    const leaving = (view.kind === 'agent' && agentDirty) || (view.kind === 'catalog' && catalogDirty);
    guard(
      leaving,
      'Discard unsaved changes?',
      'The file you are leaving has unsaved changes.',
      'Discard changes',
      () => {
        setCatalogDirty(false);
        // Discarded means discarded: the agent buffer goes back to the saved text (and the title's ●).
        setAgent((current) =>
          current && current.text !== current.savedText
            ? { ...current, revision: current.revision + 1, loadedText: current.savedText, text: current.savedText }
            : current,
        );
        if (next.kind === 'agent') void openAgent(next.path);
        else setView(next);
      },
    );
  };

  const afterOpen = async (state: WorkspaceState): Promise<void> => {
    setWorkspace(state);
    setOpenError(null);
    try {
      setApprovals(await call('approval:list', {}));
    } catch (error) {
      setBanner(describeError(error));
    }
    const first = state.agents[0];
    if (first) await openAgent(first);
    else setView({ kind: 'none' });
  };

  // After a window reload main still has the workspace open (and may have calls waiting): pick it up.
  useEffect(() => {
    call('workspace:state', {}).then(
      (state) => {
        if (state) void afterOpen(state);
      },
      (error: unknown) => setBanner(describeError(error)),
    );
    // Once, on mount.
  }, []);

  const openExample = async (): Promise<void> => {
    setOpening(true);
    try {
      await afterOpen(await call('workspace:open-example', {}));
    } catch (error) {
      setOpenError(describeError(error));
    } finally {
      setOpening(false);
    }
  };

  const chooseFolder = async (): Promise<void> => {
    setOpening(true);
    try {
      const { path } = await call('workspace:choose', {});
      if (path !== null) await afterOpen(await call('workspace:open', { path }));
    } catch (error) {
      setOpenError(describeError(error));
    } finally {
      setOpening(false);
    }
  };

  const startRun = async (request: ContractRequest<'run:start'>): Promise<void> => {
    setBanner(null);
    try {
      const { runId } = await call('run:start', request);
      // The run may already have ended (a short replay); the store marks it live only if not.
      runStore.started(runId);
      setTab('conversation');
    } catch (error) {
      setBanner(`Could not start the run: ${describeError(error)}`);
    }
  };

  const runAgent = (): void => {
    if (!agent || view.kind !== 'agent') return;
    void startRun({ script: agent.path, text: agent.text, ...(model !== '' && { model }) });
  };

  const replayAgent = (): void => {
    if (!agent || !workspace) return;
    const recording = workspace.recordings[agent.path];
    if (!recording) return;
    guard(
      agentDirty,
      'Replay with unsaved edits?',
      'The recording was made with the saved script. A replay with your unsaved edits may stop where the script asks for something the recording does not hold.',
      'Replay with my edits',
      () => void startRun({ script: agent.path, replay: recording, ...(agentDirty && { text: agent.text }) }),
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
    const text = agent.text;
    try {
      await call('file:write', { path: agent.path, text });
      setAgent((current) => (current && current.path === agent.path ? { ...current, savedText: text } : current));
    } catch (error) {
      setBanner(`Not saved: ${describeError(error)}`);
    }
  };

  // The run shows at once; its transcript is read page by page (a failure shows in the run panel).
  const openRun = (runId: string): void => {
    setTab('conversation');
    void runStore.open(runId);
  };

  // Window-wide shortcuts. The editors handle Ctrl/⌘+Enter and Ctrl/⌘+S themselves (and mark the
  // event handled), so a handled event is skipped here.
  const shortcutHandlers = useRef({ runAgent, stopRun, saveAgent });
  shortcutHandlers.current = { runAgent, stopRun, saveAgent };
  const modalOpen = confirm !== null || shortcutsOpen;
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent): void => {
      if (event.defaultPrevented || modalOpen) return;
      const mod = event.ctrlKey || event.metaKey;
      if (mod && event.key === 'Enter') {
        event.preventDefault();
        shortcutHandlers.current.runAgent();
      } else if (mod && (event.key === 's' || event.key === 'S')) {
        event.preventDefault();
        void shortcutHandlers.current.saveAgent();
      } else if (isStopShortcut(event)) {
        event.preventDefault();
        void shortcutHandlers.current.stopRun();
      } else if (event.key === '?' && !isTyping(event)) {
        event.preventDefault();
        setShortcutsOpen(true);
      }
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, [modalOpen]);

  // Jumping to the approvals is the person's own click, so focus may follow: onto the panel, never
  // onto a card (a card takes keys only once the person moves into it).
  const [focusApprovals, setFocusApprovals] = useState(false);
  const showApprovals = (): void => {
    if (view.kind === 'credentials') setView(agent ? { kind: 'agent', path: agent.path } : { kind: 'none' });
    setTab('approvals');
    setFocusApprovals(true);
  };
  useEffect(() => {
    if (!focusApprovals) return;
    setFocusApprovals(false);
    document.querySelector<HTMLElement>('.approvals-panel')?.focus();
  }, [focusApprovals]);
  const taintCheckOf = (alias: string): boolean =>
    workspace?.tools.find((tool) => tool.alias === alias)?.taintCheck ?? true;
  const pendingCount = approvals.length;
  const pendingText =
    pendingCount === 0 ? '' : `${pendingCount} tool call${pendingCount === 1 ? '' : 's'} waiting for your approval`;

  const toggleTheme = (): void => {
    const next: Theme = theme === 'dark' ? 'light' : 'dark';
    applyTheme(next);
    setTheme(next);
  };

  const selectedRunning = running;
  const agentRunning = selectedRunning || (liveRunIds.size > 0 && selectedRunId === null);

  return (
    <div className="app-shell">
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
              {pendingText}
            </button>
          ) : null}
          {workspace ? (
            <button
              type="button"
              className="button button-quiet"
              aria-pressed={view.kind === 'credentials'}
              onClick={() => selectView({ kind: 'credentials' })}
            >
              Credentials
            </button>
          ) : null}
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

      <div className="app-body">
        <Explorer
          workspace={workspace}
          view={view}
          runningRunIds={liveRunIds}
          onSelect={selectView}
          onOpenRun={openRun}
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
                <AgentEditor
                  path={agent.path}
                  revision={agent.revision}
                  initialText={agent.loadedText}
                  dirty={agentDirty}
                  workspace={workspace}
                  theme={theme}
                  running={agentRunning}
                  model={model}
                  onModel={setModel}
                  onChange={(text) => setAgent((current) => (current ? { ...current, text } : current))}
                  onRun={runAgent}
                  onReplay={workspace.recordings[agent.path] ? replayAgent : undefined}
                  onStop={() => void stopRun()}
                  onSave={() => void saveAgent()}
                />
              ) : null}
              {view.kind === 'catalog' ? (
                <CatalogEditor file={view.file} theme={theme} onDirtyChange={setCatalogDirty} />
              ) : null}
              {view.kind === 'credentials' ? <CredentialsPanel /> : null}
              {view.kind === 'history' ? (
                <HistoryView runs={workspace.runs} onOpen={openRun} onReplay={replayRun} />
              ) : null}
              {view.kind === 'none' ? (
                <div className="panel-empty">
                  <p className="muted">Pick an agent in the explorer to edit and run it.</p>
                </div>
              ) : null}
            </main>
            {view.kind === 'credentials' ? null : (
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
              />
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
    </div>
  );
}
