/**
 * Running from the window: ▶ Run (the editor's text), Run offline (the agent's recording), replay a
 * past run, open one, stop the running one, and the no-key offer after a live run failed for want
 * of a key. The runs themselves are in the run store (run-store.ts).
 */
import { useEffect, useRef, useState } from 'react';
import type { ContractRequest } from '../../../common/contract.js';
import type { RunSummary, WorkspaceState } from '../../../common/studio-schemas.js';
import { agentMessages } from '../editor/agent-messages';
import type { OpenFile } from '../editor/open-files-store';
import { call, describeError } from '../shell/studio-api';
import { findMissingKey, type MissingKey } from './key-check';
import type { RunTab } from './RunPanel';
import { runStore, useLiveRunIds, useRun, useSelectedRunId } from './run-hooks';
import type { RunView } from './run-store';

export interface RunActions {
  selectedRunId: string | null;
  liveRunIds: ReadonlySet<string>;
  /** The selected run, as the views show it. */
  runView: RunView | undefined;
  /** The selected run is in progress. */
  running: boolean;
  /** The agent's editor shows Stop: the selected run is live, or one is and none is selected. */
  agentRunning: boolean;
  runAgent: () => void;
  replayAgent: () => void;
  replayRun: (run: RunSummary) => void;
  openRun: (runId: string) => void;
  stopRun: () => Promise<void>;
  /** A live run failed because its model has no key: what to offer. */
  missingKey: MissingKey | null;
  setMissingKey: (missing: MissingKey | null) => void;
}

export function useRunActions({
  agent,
  agentShown,
  workspace,
  guard,
  setBanner,
  setTab,
}: {
  /** The active agent tab's file. */
  agent: OpenFile | null;
  /** Whether the agent view is what the workspace area shows. */
  agentShown: boolean;
  workspace: WorkspaceState | null;
  guard: (dirty: boolean, title: string, message: string, confirmLabel: string, action: () => void) => void;
  setBanner: (message: string | null) => void;
  setTab: (tab: RunTab) => void;
}): RunActions {
  const [missingKey, setMissingKey] = useState<MissingKey | null>(null);
  // Run state lives in the run store (run-store.ts); these hooks re-render on its changes only.
  const selectedRunId = useSelectedRunId();
  const liveRunIds = useLiveRunIds();
  const runView = useRun(selectedRunId);
  const snapshot = runView?.snapshot;
  const running = selectedRunId !== null && liveRunIds.has(selectedRunId);

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
    if (!agent || !agentShown) return;
    // The model the agent's list shows: the person's choice for it in this workspace, else its default.
    const model = workspace?.agentModels[agent.path]?.chosen ?? null;
    // The message typed under the toolbar, if any: the script receives it as `...`.
    const input = agentMessages.get(agent.path);
    void startRun({
      script: agent.path,
      text: agent.text,
      ...(model !== null && { model }),
      ...(input !== '' && { input }),
    }).then((runId) => {
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

  // The run shows at once; its transcript is read page by page (a failure shows in the run panel).
  const openRun = (runId: string): void => {
    setTab('conversation');
    void runStore.open(runId);
  };

  return {
    selectedRunId,
    liveRunIds,
    runView,
    running,
    agentRunning: running || (liveRunIds.size > 0 && selectedRunId === null),
    runAgent,
    replayAgent,
    replayRun,
    openRun,
    stopRun,
    missingKey,
    setMissingKey,
  };
}
