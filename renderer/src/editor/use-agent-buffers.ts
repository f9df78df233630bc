import { call, useStudioEvent } from '../shell/studio-api';
import { isDirty, openFilesStore, useOpenFiles, type OpenFile } from './open-files-store';

/** Writes an open file's buffer to disk (atomically, in the core) and marks it saved. */
export async function saveOpenFile(path: string): Promise<void> {
  const file = openFilesStore.file(path);
  if (!file) return;
  const text = file.text;
  await openFilesStore.during([path], () => call('file:write', { path, text }));
  openFilesStore.saved(path, text);
}

const readText = async (path: string): Promise<string> => (await call('file:read', { path })).text;

/** The agents open in tabs, the active one, and the actions on their buffers. */
export interface AgentBuffers {
  files: readonly OpenFile[];
  /** The active tab's file, or `null`. */
  active: OpenFile | null;
  /** Some open file has unsaved edits. */
  anyDirty: boolean;
  /** Paths of the open files with unsaved edits. */
  unsaved: ReadonlySet<string>;
  /** Opens `path` in a tab (reading it), or activates its tab with its buffer as it is. */
  openAgent: (path: string) => Promise<void>;
  /** Closes every tab: another workspace was opened. */
  reset: () => void;
}

/**
 * The agent buffers of the window (open-files-store.ts), following the disk: on every change in
 * the workspace, a clean buffer takes the file's new text and a dirty one says the file changed.
 */
export function useAgentBuffers(): AgentBuffers {
  const { files, active } = useOpenFiles();
  useStudioEvent('workspace-changed', (state) => void openFilesStore.followDisk(state.agents, readText));
  const unsaved = new Set(files.filter(isDirty).map((file) => file.path));
  return {
    files,
    active: files.find((file) => file.path === active) ?? null,
    anyDirty: unsaved.size > 0,
    unsaved,
    openAgent: async (path) => {
      if (openFilesStore.file(path)) return openFilesStore.activate(path);
      const text = await readText(path);
      openFilesStore.open(path, text);
    },
    reset: () => openFilesStore.reset(),
  };
}
