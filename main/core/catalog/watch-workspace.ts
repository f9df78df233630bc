import { existsSync, type FSWatcher, watch } from 'node:fs';
import path from 'node:path';
import { CATALOG_FILES } from './catalog-files.js';
import { AGENTS_DIR, loadWorkspace, TESTS_DIR, type Workspace } from './workspace.js';

/** What changed on disk, with the workspace reloaded after the change. */
export interface WorkspaceChange {
  /** Workspace-relative paths that changed (`tools.yaml`, `agents/x.lua`), sorted. */
  files: string[];
  workspace: Workspace;
}

/** Options of {@link watchWorkspace}. */
export interface WatchWorkspaceOptions {
  /** Quiet time after the last change before reloading, in ms. Default 150. */
  debounceMs?: number;
  /** Called when a reload fails (e.g. the folder was removed). */
  onError?(error: Error): void;
}

/**
 * Watches the workspace's catalog files, `agents/*.lua` and the test files under `tests/` (at any
 * depth) for edits made outside the studio (editors, git checkouts) and calls `onChange` with the
 * reloaded workspace once the burst of events has settled. Watches folders rather than files, so
 * editors that save by rename are seen too. Returns a function that stops watching.
 */
export function watchWorkspace(
  dir: string,
  onChange: (change: WorkspaceChange) => void,
  options: WatchWorkspaceOptions = {},
): () => void {
  const root = path.resolve(dir);
  const debounceMs = options.debounceMs ?? 150;
  const pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  let agentsWatcher: FSWatcher | undefined;
  let testsWatcher: FSWatcher | undefined;
  let reloading: Promise<void> = Promise.resolve();

  const schedule = (relative: string) => {
    if (closed) return;
    pending.add(relative);
    if (timer) clearTimeout(timer);
    timer = setTimeout(flush, debounceMs);
  };

  const flush = () => {
    timer = undefined;
    const files = [...pending].sort();
    pending.clear();
    reloading = reloading.then(async () => {
      if (closed) return;
      try {
        const workspace = await loadWorkspace(root);
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- the watch may close during the load
        if (!closed) onChange({ files, workspace });
      } catch (error) {
        options.onError?.(error as Error);
      }
    });
  };

  const watchAgents = () => {
    if (agentsWatcher || closed) return;
    try {
      agentsWatcher = watch(path.join(root, AGENTS_DIR), (_event, name) => {
        if (name && String(name).endsWith('.lua')) schedule(`${AGENTS_DIR}/${String(name)}`);
      });
      agentsWatcher.on('error', () => {
        agentsWatcher?.close();
        agentsWatcher = undefined;
      });
    } catch {
      agentsWatcher = undefined;
    }
  };

  // Watched afresh whenever the folder appears (it may have been removed and made again, and a
  // recursive watch of a missing folder fails only later, without throwing).
  const watchTests = () => {
    testsWatcher?.close();
    testsWatcher = undefined;
    if (closed || !existsSync(path.join(root, TESTS_DIR))) return;
    try {
      testsWatcher = watch(path.join(root, TESTS_DIR), { recursive: true }, (_event, name) => {
        if (name && /\.ya?ml$/i.test(String(name))) schedule(`${TESTS_DIR}/${String(name).split(path.sep).join('/')}`);
      });
      testsWatcher.on('error', () => {
        testsWatcher?.close();
        testsWatcher = undefined;
      });
    } catch {
      testsWatcher = undefined;
    }
  };

  const rootWatcher = watch(root, (_event, name) => {
    if (!name) return;
    const file = String(name);
    if ((CATALOG_FILES as readonly string[]).includes(file)) schedule(file);
    else if (file === AGENTS_DIR) {
      // The agents folder may appear after the watch started.
      watchAgents();
      schedule(AGENTS_DIR);
    } else if (file === TESTS_DIR) {
      watchTests();
      schedule(TESTS_DIR);
    }
  });
  rootWatcher.on('error', (error) => options.onError?.(error));
  watchAgents();
  watchTests();

  return () => {
    closed = true;
    if (timer) clearTimeout(timer);
    rootWatcher.close();
    agentsWatcher?.close();
    testsWatcher?.close();
  };
}
