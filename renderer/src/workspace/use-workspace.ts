import { useEffect, useRef, useState } from 'react';
import type { WorkspaceState } from '../../../common/studio-schemas.js';
import { runStore } from '../run/run-hooks';
import { call, describeError, useStudioEvent } from '../shell/studio-api';

/** The open workspace and the ways to open one. */
export interface WorkspaceControls {
  /** The open workspace; `null` before one is open. */
  workspace: WorkspaceState | null;
  /** Opening is under way (the buttons of the empty state wait). */
  opening: boolean;
  /** Why the last attempt to open a workspace failed. */
  openError: string | null;
  openExample: () => Promise<void>;
  chooseFolder: () => Promise<void>;
}

/** How the mounted {@link useWorkspace} opens a recent workspace (set while it is mounted). */
let openRecentHandler: ((path: string) => Promise<void>) | null = null;

/**
 * Opens the recent workspace at `path` (as `workspace:recent` lists it) the way the window opens
 * any workspace: through {@link useWorkspace}, so the same busy state, error and first agent follow.
 */
export function openRecentWorkspace(path: string): Promise<void> {
  return openRecentHandler?.(path) ?? Promise.resolve();
}

/**
 * The workspace the window shows: picks up the one main already has open (after a reload), opens
 * the example or a chosen folder, and follows `workspace-changed`. `onOpened` runs after each open
 * (the caller opens the first agent, reads the pending calls); `onError` reports what cannot go
 * next to the buttons. `onOpening` runs the moment the person starts an open, before main answers:
 * main announces the workspace (`workspace-changed`) before its answer arrives, so what the person
 * does in between is done after `onOpening` and before `onOpened`.
 */
export function useWorkspace({
  onOpening,
  onOpened,
  onError,
}: {
  onOpening: () => void;
  onOpened: (state: WorkspaceState) => Promise<void> | void;
  onError: (message: string) => void;
}): WorkspaceControls {
  const [workspace, setWorkspace] = useState<WorkspaceState | null>(null);
  const [opening, setOpening] = useState(false);
  const [openError, setOpenError] = useState<string | null>(null);
  const callbacks = useRef({ onOpening, onOpened, onError });
  const hasWorkspace = useRef(false);
  useEffect(() => {
    callbacks.current = { onOpening, onOpened, onError };
    hasWorkspace.current = workspace !== null;
  });

  useStudioEvent('workspace-changed', (state) => {
    setWorkspace(state);
    // A run written elsewhere (its transcript grew): the open run reads on.
    void runStore.refreshSelected();
  });

  const afterOpen = async (state: WorkspaceState): Promise<void> => {
    setWorkspace(state);
    setOpenError(null);
    await callbacks.current.onOpened(state);
  };

  // After a window reload main still has the workspace open (and may have calls waiting): pick it up.
  useEffect(() => {
    call('workspace:state', {}).then(
      (state) => {
        if (state) void afterOpen(state);
      },
      (error: unknown) => callbacks.current.onError(describeError(error)),
    );
    // Once, on mount.
  }, []);

  const opened = async (open: () => Promise<WorkspaceState | null>): Promise<void> => {
    setOpening(true);
    callbacks.current.onOpening();
    try {
      const state = await open();
      if (state) await afterOpen(state);
    } catch (error) {
      setOpenError(describeError(error));
      // With a workspace open the empty screen is not shown: the window's banner says it.
      if (hasWorkspace.current) callbacks.current.onError(`Could not open the workspace: ${describeError(error)}`);
    } finally {
      setOpening(false);
    }
  };

  useEffect(() => {
    openRecentHandler = (path) => opened(() => call('workspace:open', { path }));
    return () => {
      openRecentHandler = null;
    };
  });

  return {
    workspace,
    opening,
    openError,
    openExample: () => opened(() => call('workspace:open-example', {})),
    chooseFolder: () =>
      opened(async () => {
        const { path } = await call('workspace:choose', {});
        return path === null ? null : call('workspace:open', { path });
      }),
  };
}
