import { type FSWatcher, lstatSync, readdirSync, watch } from 'node:fs';
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
 * At most this many folders under `tests/` are watched (one inotify watch each), at most this deep:
 * a workspace with a huge tree there cannot use up the person's watches. Test files deeper or
 * beyond are still loaded; only their edits go unseen until the next reload.
 */
const MAX_TEST_FOLDERS = 256;
const MAX_TEST_DEPTH = 8;

const isTestFile = (name: string): boolean => /\.ya?ml$/i.test(name);

/**
 * Watches the workspace's catalog files, `agents/*.lua` and the test files under `tests/` (at any
 * depth) for edits made outside the studio (editors, git checkouts) and calls `onChange` with the
 * reloaded workspace once the burst of events has settled. Watches folders rather than files, so
 * editors that save by rename are seen too. Returns a function that stops watching.
 *
 * `tests/` is watched one folder at a time, each watch in place before the call that adds it
 * returns, and what a new folder already holds is read right after its watch begins: a file
 * written the moment after its folder was made (`mkdir -p tests/x && cp …`) is never missed.
 * (Node's recursive watch on Linux sets its watches up asynchronously, and missed such files on a
 * busy machine.)
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

  /** Folder (workspace-relative, `tests/a/b`) -> its watch. */
  const testWatchers = new Map<string, FSWatcher>();

  /** Stops watching `folder` and every folder inside it (it was removed or replaced). */
  const forgetTestFolder = (folder: string) => {
    for (const [watched, watcher] of testWatchers)
      if (watched === folder || watched.startsWith(`${folder}/`)) {
        watcher.close();
        testWatchers.delete(watched);
      }
  };

  /**
   * Watches test folder `folder` (at `depth` below `tests/`), then reads what it holds: its folders
   * are watched in turn, and its test files are reported as changed when `announce` (the folder is
   * new, so they are too).
   */
  const watchTestFolder = (folder: string, depth: number, announce: boolean) => {
    if (closed || testWatchers.has(folder) || testWatchers.size >= MAX_TEST_FOLDERS || depth > MAX_TEST_DEPTH) return;
    const absolute = path.join(root, ...folder.split('/'));
    let watcher: FSWatcher;
    try {
      watcher = watch(absolute, (_event, name) => {
        if (name) onTestEntry(folder, String(name), depth);
      });
    } catch {
      return;
    }
    watcher.on('error', () => forgetTestFolder(folder));
    testWatchers.set(folder, watcher);
    let entries;
    try {
      entries = readdirSync(absolute, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry.isDirectory()) watchTestFolder(`${folder}/${entry.name}`, depth + 1, announce);
      else if (announce && isTestFile(entry.name)) schedule(`${folder}/${entry.name}`);
    }
  };

  /** Something named `name` changed in test folder `folder`: a test file, or a folder that came or went. */
  const onTestEntry = (folder: string, name: string, depth: number) => {
    const entry = `${folder}/${name}`;
    if (isTestFile(name)) schedule(entry);
    let isFolder = false;
    try {
      // Not followed: a link out of the workspace is not watched.
      isFolder = lstatSync(path.join(root, ...entry.split('/'))).isDirectory();
    } catch {
      // Removed (or renamed away) meanwhile.
    }
    if (isFolder && !testWatchers.has(entry)) {
      watchTestFolder(entry, depth + 1, true);
      schedule(entry);
    } else if (!isFolder && testWatchers.has(entry)) {
      forgetTestFolder(entry);
      schedule(entry);
    }
  };

  // Watched afresh whenever the folder appears (it may have been removed and made again).
  const watchTests = (announce: boolean) => {
    forgetTestFolder(TESTS_DIR);
    watchTestFolder(TESTS_DIR, 0, announce);
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
      watchTests(true);
      schedule(TESTS_DIR);
    }
  });
  rootWatcher.on('error', (error) => options.onError?.(error));
  watchAgents();
  watchTests(false);

  return () => {
    closed = true;
    if (timer) clearTimeout(timer);
    rootWatcher.close();
    agentsWatcher?.close();
    forgetTestFolder(TESTS_DIR);
  };
}
