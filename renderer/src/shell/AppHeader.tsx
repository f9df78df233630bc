/** The studio's header: the name, the workspace, the pending-approvals indicator and the header buttons. */
import { LogoMark } from './LogoMark';
import { hidesRunPanel, HeaderViewButtons, type HeaderViewKind } from './header-views';
import type { PanelLayoutControls } from './use-panel-layout';
import type { Theme } from './theme';

export function AppHeader({
  workspaceName,
  pendingText,
  pendingCount,
  onShowApprovals,
  view,
  onSelectView,
  panels,
  theme,
  onToggleTheme,
  onOpenPalette,
  onOpenShortcuts,
  aboutOpen,
  onToggleAbout,
}: {
  /** The open workspace's name; null when none is open (then the workspace buttons are not shown). */
  workspaceName: string | null;
  /** What the pending indicator and its live region say ('' when nothing waits). */
  pendingText: string;
  pendingCount: number;
  onShowApprovals: () => void;
  view: { kind: string };
  onSelectView: (view: { kind: HeaderViewKind }) => void;
  panels: PanelLayoutControls;
  theme: Theme;
  onToggleTheme: () => void;
  onOpenPalette: () => void;
  onOpenShortcuts: () => void;
  aboutOpen: boolean;
  onToggleAbout: () => void;
}) {
  const workspaceOpen = workspaceName !== null;
  return (
    <header className="app-header">
      <div className="brand">
        <LogoMark size={26} />
        <h1>PromptForge Studio</h1>
        {workspaceOpen ? <span className="header-workspace muted">{workspaceName}</span> : null}
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
            onClick={onShowApprovals}
            title="Show the calls waiting for a decision"
          >
            <span className="pending-dot" aria-hidden="true" />
            <span className="pending-text pending-text-long">{pendingText}</span>
            <span className="pending-text pending-text-short">
              {pendingCount} approval{pendingCount === 1 ? '' : 's'} waiting
            </span>
          </button>
        ) : null}
        {workspaceOpen ? <HeaderViewButtons current={view} onSelect={onSelectView} /> : null}
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
        {workspaceOpen ? (
          <button
            type="button"
            className="button button-quiet panel-toggle"
            aria-pressed={!panels.layout.runPanelCollapsed}
            aria-controls={hidesRunPanel(view) ? undefined : 'run-panel'}
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
          onClick={onOpenPalette}
          aria-label="Command palette"
          title="Command palette (Ctrl/⌘+Shift+P)"
        >
          <span aria-hidden="true">⌘</span>
        </button>
        <button
          type="button"
          className="button button-quiet"
          onClick={onOpenShortcuts}
          aria-label="Keyboard shortcuts"
          title="Keyboard shortcuts (?)"
        >
          <span aria-hidden="true">?</span>
        </button>
        <button
          type="button"
          className="button button-quiet"
          onClick={onToggleTheme}
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
          onClick={onToggleAbout}
        >
          About
        </button>
      </div>
    </header>
  );
}

/** A message under the header that the person dismisses. */
export function DismissibleBanner({ message, onDismiss }: { message: string | null; onDismiss: () => void }) {
  if (!message) return null;
  return (
    <div className="banner" role="alert">
      <span>{message}</span>
      <button type="button" className="button button-quiet" aria-label="Dismiss message" onClick={onDismiss}>
        <span aria-hidden="true">✕</span>
      </button>
    </div>
  );
}
