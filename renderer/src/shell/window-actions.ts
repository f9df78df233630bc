/** What each of the studio's window actions (shell/actions.ts) does now, and why it cannot when it cannot. */
import type { WorkspaceState } from '../../../common/studio-schemas.js';
import type { OpenFile } from '../editor/open-files-store';
import type { RunTab } from '../run/RunPanel';
import type { RunActions } from '../run/use-run-actions';
import type { CenterView } from '../workspace/Explorer';
import type { ActionHandlers } from './actions';
import { headerViewActions } from './header-views';
import type { PanelLayoutControls } from './use-panel-layout';

export function windowActionHandlers(deps: {
  view: CenterView;
  agent: OpenFile | null;
  workspace: WorkspaceState | null;
  runs: RunActions;
  selectView: (view: CenterView) => void;
  newAgent: () => void;
  saveAgent: () => void;
  showRunTab: (tab: RunTab) => void;
  showApprovals: () => void;
  panels: PanelLayoutControls;
  openPalette: () => void;
  openQuickOpen: () => void;
  openShortcuts: () => void;
  openAbout: () => void;
  toggleTheme: () => void;
  openExample: () => void;
  chooseFolder: () => void;
}): ActionHandlers {
  const { view, agent, workspace, runs, selectView, showRunTab, panels } = deps;
  const noWorkspace = workspace === null ? 'open a workspace first' : null;
  return {
    run: { run: runs.runAgent, unavailable: view.kind === 'agent' && agent ? null : 'open an agent first' },
    replay: {
      run: runs.replayAgent,
      unavailable: agent && workspace?.recordings[agent.path] ? null : 'the open agent has no recording',
    },
    stop: { run: () => void runs.stopRun(), unavailable: runs.liveRunIds.size > 0 ? null : 'nothing is running' },
    save: { run: deps.saveAgent, unavailable: view.kind === 'agent' && agent ? null : 'open an agent first' },
    palette: { run: deps.openPalette },
    'quick-open': { run: deps.openQuickOpen, unavailable: noWorkspace },
    shortcuts: { run: deps.openShortcuts },
    'toggle-explorer': { run: () => panels.toggleExplorer() },
    'toggle-run-panel': { run: () => panels.toggleRunPanel(), unavailable: noWorkspace },
    'show-conversation': { run: () => showRunTab('conversation'), unavailable: noWorkspace },
    'show-approvals': { run: deps.showApprovals, unavailable: noWorkspace },
    'show-log': { run: () => showRunTab('log'), unavailable: noWorkspace },
    'show-usage': { run: () => showRunTab('usage'), unavailable: noWorkspace },
    history: { run: () => selectView({ kind: 'history' }), unavailable: noWorkspace },
    'edit-tools': { run: () => selectView({ kind: 'catalog', file: 'tools.yaml' }), unavailable: noWorkspace },
    'edit-models': { run: () => selectView({ kind: 'catalog', file: 'models.yaml' }), unavailable: noWorkspace },
    ...headerViewActions(selectView, noWorkspace),
    'new-agent': { run: deps.newAgent, unavailable: noWorkspace },
    'open-example': { run: deps.openExample },
    'open-folder': { run: deps.chooseFolder },
    'toggle-theme': { run: deps.toggleTheme },
    about: { run: deps.openAbout },
  };
}
