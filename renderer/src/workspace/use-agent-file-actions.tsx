import { useEffect, useRef, useState, type ReactNode } from 'react';
import type { WorkspaceState } from '../../../common/studio-schemas.js';
import { agentNameOf } from '../../../common/agent-name.js';
import { agentMessages } from '../editor/agent-messages';
import { isDirty, openFilesStore } from '../editor/open-files-store';
import { runStore } from '../run/run-hooks';
import { call, StudioCallError } from '../shell/studio-api';
import { AgentNameDialog, DeleteAgentDialog } from './AgentFileDialogs';
import { errorMessage } from '../../../common/error-message.js';

type FileDialog =
  | { kind: 'new' }
  | { kind: 'save-as'; path: string }
  | { kind: 'rename'; path: string }
  | { kind: 'delete'; path: string };

/** New agent, Save as and Rename, each behind its dialog, and Delete, which main asks about. */
export interface AgentFileActions {
  newAgent: () => void;
  saveAs: (path: string) => void;
  rename: (path: string) => void;
  remove: (path: string) => void;
  /** The open dialog, to render; `null` when none is. */
  dialog: ReactNode;
}

/** The runs of `path` in progress that this window knows of. */
function liveRunsOf(path: string): string[] {
  return [...runStore.liveRunIds()].filter((runId) => runStore.run(runId)?.snapshot.started?.script.path === path);
}

/** What a failed call says, for the field: the core's sentence (its code stays in the console's reach). */
function messageOf(error: unknown): string {
  if (error instanceof StudioCallError) return error.message;
  return errorMessage(error);
}

/** `agents/<name>.lua` for a typed name, as the core will spell it (a trailing `.lua` is dropped). */
function typedPath(name: string): string {
  return `agents/${name.replace(/\.lua$/i, '')}.lua`;
}

/**
 * Focuses the first of `selectors` present once React has shown the change: tried on each frame,
 * for a few frames (an agent opened after the change takes a read of its file to show).
 */
function focusWhenShown(selectors: readonly string[], frames = 30): void {
  requestAnimationFrame(() => {
    for (const selector of selectors) {
      const element = document.querySelector<HTMLElement>(selector);
      if (element) {
        element.focus();
        return;
      }
    }
    if (frames > 0) focusWhenShown(selectors, frames - 1);
  });
}

/**
 * A typed name whose file is open here with unsaved edits (its file deleted meanwhile, or a case
 * variant of it): refused here, so those edits are never mixed up with another file.
 */
function openUnsavedClash(name: string, except: string | null): string | null {
  const wanted = typedPath(name).toLowerCase();
  const clash = openFilesStore
    .snapshot()
    .files.find((file) => file.path !== except && file.path.toLowerCase() === wanted && isDirty(file));
  return clash ? `${clash.path} is open with unsaved edits; save or close its tab first, or pick another name` : null;
}

/** Resolves once `runIds` are no longer running in this window. */
function whenStopped(runIds: readonly string[]): Promise<void> {
  return new Promise((resolve) => {
    const check = (): boolean => {
      if (runIds.some((runId) => runStore.liveRunIds().has(runId))) return false;
      unsubscribe();
      resolve();
      return true;
    };
    const unsubscribe = runStore.subscribe(() => void check());
    check();
  });
}

/** Resolves at the next `workspace-changed` (the core sends one when a run has fully ended). */
function nextWorkspaceChange(): Promise<void> {
  return new Promise((resolve) => {
    const off = window.promptforge.on('workspace-changed', () => {
      off();
      resolve();
    });
  });
}

/**
 * The file actions on agents, each through the contract (`file:create`, `file:save-as`,
 * `file:rename`, `file:delete`), and their dialogs. `openAgent` opens a file in a tab.
 *
 * Unsaved edits are never lost: a renamed agent's tab keeps its edits under the new name; Save as
 * writes the editor's text to the new file and the tab moves there (the original stays as it is
 * on disk); a name whose file is open with unsaved edits is refused.
 */
export function useAgentFileActions({
  workspace,
  openAgent,
}: {
  workspace: WorkspaceState | null;
  openAgent: (path: string) => Promise<void>;
}): AgentFileActions {
  const [dialog, setDialog] = useState<FileDialog | null>(null);
  const [deleteState, setDeleteState] = useState<{ busy: boolean; error: string | null }>({ busy: false, error: null });
  const returnFocus = useRef<HTMLElement | null>(null);

  const show = (next: FileDialog): void => {
    returnFocus.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    setDeleteState({ busy: false, error: null });
    setDialog(next);
  };
  // Cancelled: focus goes back where it was, once the modal dialog (which makes the rest inert) is gone.
  const restoreFocus = useRef(false);
  useEffect(() => {
    if (!restoreFocus.current || dialog !== null) return;
    restoreFocus.current = false;
    const back = returnFocus.current;
    if (back?.isConnected) back.focus();
  }, [dialog]);
  const close = (): void => {
    restoreFocus.current = true;
    setDialog(null);
  };
  /** Closes after a change: focus goes where the new state puts it, not back to a vanished tab. */
  const done = (): void => setDialog(null);

  const attempt = async (operation: () => Promise<void>): Promise<string | null> => {
    try {
      await operation();
      done();
      return null;
    } catch (error) {
      return messageOf(error);
    }
  };

  const createAgent = async (name: string): Promise<string | null> =>
    openUnsavedClash(name, null) ??
    (await attempt(async () => {
      const created = await call('file:create', { name });
      await openAgent(created.path);
    }));

  const saveAs = async (from: string, name: string): Promise<string | null> =>
    openUnsavedClash(name, null) ??
    (await attempt(async () => {
      const text = openFilesStore.file(from)?.text ?? '';
      await openFilesStore.during([from, typedPath(name)], async () => {
        const saved = await call('file:save-as', { name, text });
        openFilesStore.renamed(from, saved.path);
        openFilesStore.saved(saved.path, text);
      });
    }));

  const rename = async (from: string, name: string): Promise<string | null> =>
    openUnsavedClash(name, from) ??
    (await attempt(async () => {
      await openFilesStore.during([from, typedPath(name)], async () => {
        const renamed = await call('file:rename', { path: from, name });
        openFilesStore.renamed(from, renamed.path);
        agentMessages.renamed(from, renamed.path);
      });
    }));

  /**
   * Deletes `path` through main, which asks the person in its own dialog (paid for by the press
   * that chose Delete). A running agent, or a failure, opens this page's dialog instead; a no in
   * main's dialog deletes nothing and says nothing more.
   */
  const remove = async (path: string): Promise<void> => {
    if (liveRunsOf(path).length > 0) {
      show({ kind: 'delete', path });
      return;
    }
    setDeleteState({ busy: true, error: null });
    try {
      // Set inside the callback (TypeScript cannot see it run, so the type is kept wide).
      let next = null as string | null;
      await openFilesStore.during([path], async () => {
        await call('file:delete', { path });
        next = openFilesStore.close(path);
      });
      done();
      // Focus goes where the person goes on from: the tab that took the deleted agent's place, else
      // the explorer's list of agents, else the way to make one; never the vanished menu.
      if (next !== null) {
        await openAgent(next);
        focusWhenShown(['.agent-tablist [role="tab"][aria-selected="true"]']);
      } else focusWhenShown(['.explorer [data-roving-key][tabindex="0"]', '.explorer .section-action']);
    } catch (error) {
      if (error instanceof StudioCallError && error.code === 'cancelled') {
        setDeleteState({ busy: false, error: null });
        return;
      }
      if (dialog?.kind !== 'delete') show({ kind: 'delete', path });
      setDeleteState({ busy: false, error: messageOf(error) });
    }
  };

  /** Stops the runs of `path`; the dialog then offers Delete…. */
  const stopRuns = async (path: string): Promise<void> => {
    setDeleteState({ busy: true, error: null });
    try {
      const runIds = liveRunsOf(path);
      const settled = nextWorkspaceChange();
      await Promise.all(runIds.map((runId) => call('run:stop', { runId })));
      await whenStopped(runIds);
      // The core forgets a run once it has fully ended, and then says the workspace changed.
      if (runIds.length > 0) await settled;
      setDeleteState({ busy: false, error: null });
    } catch (error) {
      setDeleteState({ busy: false, error: messageOf(error) });
    }
  };

  let element: ReactNode = null;
  if (dialog?.kind === 'new') {
    element = (
      <AgentNameDialog
        title="New agent"
        intro={
          <p>
            A new agent starts from a template that shows the host API (<code>log</code>, <code>tools.call</code>,{' '}
            <code>untrusted</code>, <code>models.chat</code>). It runs as it is, offline and with no key.
          </p>
        }
        initialName=""
        submitLabel="Create"
        onSubmit={createAgent}
        onClose={close}
      />
    );
  } else if (dialog?.kind === 'save-as') {
    const from = dialog.path;
    const file = openFilesStore.file(from);
    element = (
      <AgentNameDialog
        title="Save as a new agent"
        intro={
          <p>
            Writes the editor&rsquo;s text as a new agent, and the tab moves to it. <code>{from}</code> stays as it is
            on disk{file && isDirty(file) ? ', without the unsaved edits' : ''}.
          </p>
        }
        initialName={`${agentNameOf(from)}-copy`}
        submitLabel="Save as"
        onSubmit={(name) => saveAs(from, name)}
        onClose={close}
      />
    );
  } else if (dialog?.kind === 'rename') {
    const from = dialog.path;
    const file = openFilesStore.file(from);
    const recording = workspace?.recordings[from];
    element = (
      <AgentNameDialog
        title={`Rename ${agentNameOf(from)}`}
        intro={
          <>
            <p>
              Renames <code>{from}</code>
              {recording ? (
                <>
                  {' '}
                  and its recording <code>{recording}</code>
                </>
              ) : null}
              . Past runs keep the old name in History.
            </p>
            {file && isDirty(file) ? (
              <p className="warning-text">
                It has unsaved edits: they stay in the editor under the new name, still unsaved. The file is renamed as
                last saved; Save writes the edits to it.
              </p>
            ) : null}
            <p className="muted small">
              A name another agent has is refused, and so is the name of a tab with unsaved edits.
            </p>
          </>
        }
        initialName={agentNameOf(from)}
        submitLabel="Rename"
        onSubmit={(name) => rename(from, name)}
        onClose={close}
      />
    );
  } else if (dialog?.kind === 'delete') {
    const path = dialog.path;
    element = (
      <DeleteAgentDialog
        path={path}
        running={liveRunsOf(path).length > 0}
        busy={deleteState.busy}
        error={deleteState.error}
        onStop={() => void stopRuns(path)}
        onDelete={() => void remove(path)}
        onClose={close}
      />
    );
  }

  return {
    newAgent: () => show({ kind: 'new' }),
    saveAs: (path) => show({ kind: 'save-as', path }),
    rename: (path) => show({ kind: 'rename', path }),
    remove: (path) => void remove(path),
    dialog: element,
  };
}
