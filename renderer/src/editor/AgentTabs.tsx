import { useEffect, useId, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { Modal } from '../shell/Dialogs';
import { call, describeError } from '../shell/studio-api';
import type { RecentWorkspaces } from '../../../common/studio-schemas.js';
import { openRecentWorkspace } from '../workspace/use-workspace';
import { agentNameOf } from '../../../common/agent-name.js';
import { isDirty, openFilesStore, type OpenFile } from './open-files-store';
import { saveOpenFile } from './use-agent-buffers';

/** What the tab strip's file menu offers for the active agent. */
export interface AgentTabActions {
  onNew: () => void;
  /** Main's folder dialog, then the folder opens as the workspace. */
  onOpenFolder: () => void;
  onSaveAs: (path: string) => void;
  onRename: (path: string) => void;
  onDelete: (path: string) => void;
}

/** The File ▾ menu: a disclosure of plain buttons (Esc or a click elsewhere closes it). */
function FileMenu({
  path,
  actions,
  onClose,
  currentRoot,
}: {
  path: string;
  actions: AgentTabActions;
  onClose: () => void;
  /** The open workspace's folder (not offered again under Open recent). */
  currentRoot: string | undefined;
}) {
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  const toggle = useRef<HTMLButtonElement>(null);
  const menuId = useId();
  useEffect(() => {
    if (!open) return;
    const onPointer = (event: PointerEvent): void => {
      if (!root.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener('pointerdown', onPointer);
    return () => document.removeEventListener('pointerdown', onPointer);
  }, [open]);
  const choose = (action: () => void) => () => {
    setOpen(false);
    action();
  };
  // The workspaces opened lately (main keeps the list), read each time the menu opens.
  const [recent, setRecent] = useState<RecentWorkspaces['workspaces']>([]);
  useEffect(() => {
    if (!open) return;
    let live = true;
    call('workspace:recent', {}).then(
      (list) => live && setRecent(list.workspaces),
      () => live && setRecent([]),
    );
    return () => {
      live = false;
    };
  }, [open]);
  const others = recent.filter((workspace) => workspace.exists && workspace.path !== currentRoot).slice(0, 8);
  return (
    <div
      className="file-menu"
      ref={root}
      onKeyDown={(event) => {
        if (event.key === 'Escape' && open) {
          event.stopPropagation();
          setOpen(false);
          toggle.current?.focus();
        }
      }}
    >
      <button
        ref={toggle}
        type="button"
        className="button button-quiet"
        aria-expanded={open}
        aria-controls={menuId}
        onClick={() => setOpen((value) => !value)}
      >
        File <span aria-hidden="true">▾</span>
      </button>
      <div id={menuId} className="file-menu-list" hidden={!open}>
        <button type="button" className="button button-quiet" onClick={choose(actions.onNew)}>
          New agent…
        </button>
        <button type="button" className="button button-quiet" onClick={choose(() => actions.onSaveAs(path))}>
          Save as…
        </button>
        <button type="button" className="button button-quiet" onClick={choose(actions.onOpenFolder)}>
          Open folder…
        </button>
        {others.length > 0 ? (
          <div role="group" aria-labelledby={`${menuId}-recent`} className="file-menu-group">
            <p id={`${menuId}-recent`} className="file-menu-heading">
              Open recent
            </p>
            {others.map((workspace) => (
              <button
                key={workspace.path}
                type="button"
                className="button button-quiet file-menu-recent"
                title={workspace.path}
                onClick={choose(() => void openRecentWorkspace(workspace.path))}
              >
                <span className="file-menu-recent-name">{workspace.name}</span>
                <span className="muted small file-menu-recent-path">{workspace.path}</span>
              </button>
            ))}
          </div>
        ) : null}
        <button type="button" className="button button-quiet" onClick={choose(() => actions.onRename(path))}>
          Rename…
        </button>
        <button type="button" className="button button-quiet" onClick={choose(onClose)}>
          Close tab
        </button>
        <button
          type="button"
          className="button button-quiet danger-text"
          onClick={choose(() => actions.onDelete(path))}
        >
          Delete…
        </button>
      </div>
    </div>
  );
}

/** Asks before closing a tab with unsaved edits: save, discard or keep it open. */
function CloseDirtyDialog({ file, onDone, onCancel }: { file: OpenFile; onDone: () => void; onCancel: () => void }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const save = async (): Promise<void> => {
    setBusy(true);
    try {
      await saveOpenFile(file.path);
      onDone();
    } catch (failure) {
      setError(`Not saved: ${describeError(failure)}`);
      setBusy(false);
    }
  };
  return (
    <Modal
      title={`Close ${agentNameOf(file.path)} with unsaved edits?`}
      onClose={onCancel}
      actions={
        <>
          <button type="button" className="button" onClick={onCancel} autoFocus>
            Cancel
          </button>
          <button
            type="button"
            className="button button-danger"
            disabled={busy}
            onClick={() => {
              openFilesStore.discard(file.path);
              onDone();
            }}
          >
            Discard edits and close
          </button>
          <button type="button" className="button button-primary" disabled={busy} onClick={() => void save()}>
            Save and close
          </button>
        </>
      }
    >
      <p>
        <code>{file.path}</code> has edits that are not saved.
        {file.goneFromDisk ? ' The file was deleted on disk; Save writes it again.' : ''}
      </p>
      {error ? (
        <p className="error-text" role="alert">
          {error}
        </p>
      ) : null}
    </Modal>
  );
}

/**
 * The tabs of the open agents above the editor (the WAI-ARIA tabs pattern): ← → Home End move
 * between tabs, Delete closes the focused one, a click on × or a middle click closes one. Closing
 * a tab with unsaved edits asks first. No window-wide chord is taken (Ctrl/⌘+W stays the
 * browser's and the OS's).
 */
export function AgentTabs({
  files,
  active,
  onSelect,
  actions,
  workspaceRoot,
  children,
}: {
  files: readonly OpenFile[];
  active: string;
  onSelect: (path: string) => void;
  actions: AgentTabActions;
  /** The open workspace's folder. */
  workspaceRoot?: string;
  /** The active agent's editor, shown as the tab panel. */
  children: ReactNode;
}) {
  const baseId = useId();
  const tabId = (index: number): string => `${baseId}-tab-${index}`;
  const panelId = `${baseId}-panel`;
  const [closing, setClosing] = useState<OpenFile | null>(null);
  /** Where focus was when the unsaved-edits question opened (a tab, the File menu, ...). */
  const closeOpener = useRef<HTMLElement | null>(null);
  /** What gets focus once the question is gone after Cancel (or Esc). */
  const refocus = useRef<HTMLElement | null>(null);
  const tabs = useRef(new Map<string, HTMLButtonElement>());
  /** The tab to focus once rendered: the one that took a closed tab's place. */
  const focusPath = useRef<string | null>(null);
  useEffect(() => {
    if (focusPath.current === null) return;
    tabs.current.get(focusPath.current)?.focus();
    focusPath.current = null;
  }, [files]);
  // The dialog is removed before its close() runs, so the browser does not give focus back: a
  // keyboard user would be left on the page's body. Focus goes back once the dialog is gone.
  useEffect(() => {
    if (closing !== null || refocus.current === null) return;
    refocus.current.focus();
    refocus.current = null;
  }, [closing]);
  const activeIndex = Math.max(
    0,
    files.findIndex((file) => file.path === active),
  );
  // The active tab is always in view, whole, when the strip has more tabs than room.
  useEffect(() => {
    tabs.current.get(active)?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }, [active, files.length]);

  const close = (file: OpenFile): void => {
    if (isDirty(file)) {
      closeOpener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      setClosing(file);
    } else finishClose(file.path);
  };
  /** The tab stays open: focus goes back where it was, or to the tab when that is gone (a closed menu). */
  const cancelClose = (path: string): void => {
    const opener = closeOpener.current;
    closeOpener.current = null;
    refocus.current =
      opener !== null && opener.isConnected && opener.checkVisibility() ? opener : (tabs.current.get(path) ?? null);
    setClosing(null);
  };
  const finishClose = (path: string): void => {
    closeOpener.current = null;
    setClosing(null);
    const next = openFilesStore.close(path);
    if (next !== null) {
      onSelect(next);
      // Focus stays in the strip, on the tab that took the closed one's place.
      focusPath.current = next;
    }
  };

  const onKeyDown = (event: KeyboardEvent<HTMLButtonElement>, index: number): void => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    let target: number | null = null;
    if (event.key === 'ArrowRight') target = (index + 1) % files.length;
    else if (event.key === 'ArrowLeft') target = (index - 1 + files.length) % files.length;
    else if (event.key === 'Home') target = 0;
    else if (event.key === 'End') target = files.length - 1;
    else if (event.key === 'Delete') {
      event.preventDefault();
      close(files[index]!);
      return;
    }
    if (target === null) return;
    event.preventDefault();
    onSelect(files[target]!.path);
    tabs.current.get(files[target]!.path)?.focus();
  };

  return (
    <div className="agent-tabs">
      <div className="agent-tab-strip">
        <div role="tablist" aria-label="Open agents" className="agent-tablist">
          {files.map((file, index) => {
            const selected = file.path === active;
            const dirty = isDirty(file);
            return (
              <button
                key={file.path}
                ref={(element) => {
                  if (element) tabs.current.set(file.path, element);
                  else tabs.current.delete(file.path);
                }}
                type="button"
                role="tab"
                id={tabId(index)}
                className="agent-tab"
                aria-selected={selected}
                aria-controls={selected ? panelId : undefined}
                aria-keyshortcuts="Delete"
                tabIndex={index === activeIndex ? 0 : -1}
                title={`${file.path}${dirty ? ' (unsaved changes)' : ''} · Delete or middle click closes`}
                onClick={() => onSelect(file.path)}
                onMouseDown={(event) => {
                  // A middle click closes the tab (and does not start the browser's autoscroll).
                  if (event.button === 1) event.preventDefault();
                }}
                onAuxClick={(event) => {
                  if (event.button === 1) close(file);
                }}
                onKeyDown={(event) => onKeyDown(event, index)}
              >
                <span className="agent-tab-name">{agentNameOf(file.path)}</span>
                {dirty ? (
                  <span className="dirty-dot" aria-label="unsaved changes">
                    ●
                  </span>
                ) : null}
                <span
                  className="agent-tab-close"
                  aria-hidden="true"
                  title={`Close ${agentNameOf(file.path)} (Delete)`}
                  onClick={(event) => {
                    event.stopPropagation();
                    close(file);
                  }}
                >
                  ×
                </span>
              </button>
            );
          })}
        </div>
        <button type="button" className="button button-quiet agent-tab-new" onClick={actions.onNew}>
          <span aria-hidden="true">+</span> New agent
        </button>
        <div className="toolbar-spacer" />
        <FileMenu
          path={active}
          actions={actions}
          currentRoot={workspaceRoot}
          onClose={() => {
            const file = files.find((candidate) => candidate.path === active);
            if (file) close(file);
          }}
        />
      </div>
      {files.map((file) =>
        file.path === active && file.diskText !== undefined ? (
          <div key={file.path} className="disk-notice" role="status">
            <span>
              <code>{file.path}</code> changed on disk. Your unsaved edits are kept.
            </span>
            <button type="button" className="button" onClick={() => openFilesStore.takeDiskVersion(file.path)}>
              Load the disk version
            </button>
            <button type="button" className="button" onClick={() => openFilesStore.keepMine(file.path)}>
              Keep my edits
            </button>
          </div>
        ) : file.path === active && file.goneFromDisk ? (
          <div key={file.path} className="disk-notice" role="status">
            <span>
              <code>{file.path}</code> was deleted on disk. Your unsaved edits are kept; Save writes the file again.
            </span>
          </div>
        ) : null,
      )}
      <div role="tabpanel" id={panelId} aria-labelledby={tabId(activeIndex)} className="agent-tabpanel">
        {children}
      </div>
      {closing ? (
        <CloseDirtyDialog
          file={closing}
          onDone={() => finishClose(closing.path)}
          onCancel={() => cancelClose(closing.path)}
        />
      ) : null}
    </div>
  );
}
