/**
 * The agents open in the editor's tabs, outside React: each file's saved text and its buffer (the
 * editor's text, saved or not), and which tab is active. Components read it through
 * `useSyncExternalStore` (`useOpenFiles`, below); the actions (open, edit, save, close, follow the
 * disk) are methods.
 *
 * Nothing here ever drops unsaved edits on its own: a change on disk replaces a clean buffer, but
 * a dirty one only records what the disk now holds (`diskText`, or `goneFromDisk`) for the person
 * to decide. Closing a dirty tab is the caller's decision (the tab strip asks first).
 *
 * The store also keeps each open file's last editor state (its undo history, selection and scroll
 * position), so a tab that is shown again continues where it was left. That state is not part of
 * the snapshot components render from: only the editor reads and writes it.
 */
import type { EditorState, StateEffect } from '@codemirror/state';
import { useSyncExternalStore } from 'react';

/** One open agent. */
export interface OpenFile {
  /** Workspace-relative path, `agents/<name>.lua`. */
  path: string;
  /**
   * Bumped whenever the text is replaced from outside the editor (a reload from disk, a discard,
   * a rename), so the editor starts again from {@link text}.
   */
  revision: number;
  /** The text on disk as last read or written by this window. */
  savedText: string;
  /** The editor's text. Differs from {@link savedText} while there are unsaved edits. */
  text: string;
  /** The file changed on disk while this buffer had unsaved edits: what the disk holds now. */
  diskText?: string;
  /** The file was deleted or moved away on disk while this buffer had unsaved edits. */
  goneFromDisk?: boolean;
}

/** The tabs and the active one. Replaced (never mutated) on every change. */
export interface OpenFilesState {
  files: readonly OpenFile[];
  /** The active tab's path; `null` when no agent is shown. */
  active: string | null;
}

/** An editor's state kept while its file's tab is not shown. */
interface KeptEditorState {
  /** The state as the editor left it: its document, selection and undo history. */
  state: EditorState;
  /** Where the editor was scrolled (`EditorView.scrollSnapshot`), when it was closed. */
  scroll?: StateEffect<unknown>;
}

/** Whether a file has unsaved edits. */
export function isDirty(file: OpenFile): boolean {
  return file.text !== file.savedText || file.goneFromDisk === true;
}

/** Reads a workspace file's text (the contract's `file:read`, injected so the store runs in tests). */
type ReadFile = (path: string) => Promise<string>;

class OpenFilesStore {
  private state: OpenFilesState = { files: [], active: null };
  private readonly listeners = new Set<() => void>();
  /** Paths a file operation of this window is changing right now: disk changes there are ours. */
  private readonly busy = new Set<string>();
  /**
   * The last editor state of each open file, with the file's revision it belongs to: a state of an
   * older revision (the text was replaced from outside the editor since) is never handed out.
   */
  private readonly editorStates = new Map<string, { revision: number; kept: KeptEditorState }>();

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  snapshot = (): OpenFilesState => this.state;

  file(path: string): OpenFile | undefined {
    return this.state.files.find((file) => file.path === path);
  }

  /** The editor state kept for the open file `path` at its current revision, if any. */
  editorState(path: string): KeptEditorState | undefined {
    const entry = this.editorStates.get(path);
    return entry && entry.revision === this.file(path)?.revision ? entry.kept : undefined;
  }

  /**
   * Keeps the editor state of `path` at `revision`. Ignored when that file is no longer open at
   * that revision (its tab was closed, it was renamed, or its text was replaced meanwhile): an
   * editor that is going away must not bring back a history that was dropped.
   */
  keepEditorState(path: string, revision: number, kept: KeptEditorState): void {
    if (this.file(path)?.revision !== revision) return;
    this.editorStates.set(path, { revision, kept });
  }

  /** The open files with unsaved edits. */
  dirtyFiles(): OpenFile[] {
    return this.state.files.filter(isDirty);
  }

  /** Opens `path` in a new tab (or activates its tab, keeping its buffer) and makes it active. */
  open(path: string, text: string): void {
    if (this.file(path)) return this.activate(path);
    this.set({ files: [...this.state.files, { path, revision: 0, savedText: text, text }], active: path });
  }

  activate(path: string | null): void {
    if (this.state.active === path) return;
    this.set({ ...this.state, active: path });
  }

  /** The editor's text changed. */
  edit(path: string, text: string): void {
    this.update(path, (file) => (file.text === text ? file : { ...file, text }));
  }

  /** `text` was written to disk. */
  saved(path: string, text: string): void {
    this.update(path, ({ diskText: _disk, goneFromDisk: _gone, ...file }) => ({ ...file, savedText: text }));
  }

  /** Throws the unsaved edits away: the buffer goes back to the saved text. */
  discard(path: string): void {
    this.update(path, (file) =>
      isDirty(file) ? { path, revision: file.revision + 1, savedText: file.savedText, text: file.savedText } : file,
    );
  }

  /** Closes a tab (whatever its buffer holds: ask first). Returns the path now active. */
  close(path: string): string | null {
    const index = this.state.files.findIndex((file) => file.path === path);
    if (index < 0) return this.state.active;
    const files = this.state.files.filter((file) => file.path !== path);
    this.editorStates.delete(path);
    const active =
      this.state.active === path ? (files[Math.min(index, files.length - 1)]?.path ?? null) : this.state.active;
    this.set({ files, active });
    return active;
  }

  /** Closes every tab (another workspace was opened). */
  reset(): void {
    this.editorStates.clear();
    this.set({ files: [], active: null });
  }

  /** The file was renamed on disk by this window: the tab follows, its unsaved edits with it. */
  renamed(from: string, to: string): void {
    const file = this.file(from);
    if (!file) return;
    // The editor state (undo history included) moves with the tab, to the bumped revision.
    const entry = this.editorStates.get(from);
    this.editorStates.delete(from);
    if (entry?.revision === file.revision) this.editorStates.set(to, { revision: file.revision + 1, kept: entry.kept });
    this.set({
      files: this.state.files.map((file) =>
        file.path === from ? { ...file, path: to, revision: file.revision + 1 } : file,
      ),
      active: this.state.active === from ? to : this.state.active,
    });
  }

  /** Loads what the disk holds into a buffer that had kept its edits over a change on disk. */
  takeDiskVersion(path: string): void {
    this.update(path, (file) =>
      file.diskText === undefined
        ? file
        : { path, revision: file.revision + 1, savedText: file.diskText, text: file.diskText },
    );
  }

  /** Keeps the buffer over a change on disk; the next save overwrites the disk's version. */
  keepMine(path: string): void {
    this.update(path, ({ diskText, ...file }) => ({ ...file, savedText: diskText ?? file.savedText }));
  }

  /**
   * Runs a file operation of this window on `paths`; changes seen on disk there meanwhile are its
   * own, not an outside edit.
   */
  async during<T>(paths: readonly string[], operation: () => Promise<T>): Promise<T> {
    for (const path of paths) this.busy.add(path);
    try {
      return await operation();
    } finally {
      for (const path of paths) this.busy.delete(path);
    }
  }

  /**
   * Follows the disk after a change in the workspace: a clean buffer takes the new text (or its tab
   * closes when the file is gone); a dirty one keeps its edits and records what the disk holds.
   */
  async followDisk(agents: readonly string[], read: ReadFile): Promise<void> {
    for (const file of this.state.files) {
      if (this.busy.has(file.path)) continue;
      if (!agents.includes(file.path)) {
        if (!isDirty(file)) this.close(file.path);
        else if (!file.goneFromDisk) this.update(file.path, (current) => ({ ...current, goneFromDisk: true }));
        continue;
      }
      let text: string;
      try {
        text = await read(file.path);
      } catch {
        continue; // Gone between the listing and the read: the next change says so.
      }
      if (this.busy.has(file.path)) continue;
      this.update(file.path, (current) => {
        const { goneFromDisk: _gone, diskText: _disk, ...base } = current;
        const flagged = current.goneFromDisk === true || current.diskText !== undefined;
        // The disk holds what this buffer was loaded from: nothing changed (or it came back as it was).
        if (text === current.savedText) return flagged ? base : current;
        // No unsaved edits: take the disk's text.
        if (!isDirty(base)) return { path: current.path, revision: current.revision + 1, savedText: text, text };
        // Unsaved edits: keep them, and say what the disk holds now.
        return current.diskText === text && !current.goneFromDisk ? current : { ...base, diskText: text };
      });
    }
  }

  private update(path: string, change: (file: OpenFile) => OpenFile): void {
    const files = this.state.files.map((file) => {
      if (file.path !== path) return file;
      const next = change(file);
      // The text was replaced from outside the editor: the kept editor state no longer applies.
      if (next.revision !== file.revision) this.editorStates.delete(path);
      return next;
    });
    if (files.some((file, index) => file !== this.state.files[index])) this.set({ ...this.state, files });
  }

  private set(state: OpenFilesState): void {
    this.state = state;
    for (const listener of [...this.listeners]) listener();
  }
}

/** The open files of this window. */
export const openFilesStore = new OpenFilesStore();

/** The open files and the active tab; re-renders when they change. */
export function useOpenFiles(): OpenFilesState {
  return useSyncExternalStore(openFilesStore.subscribe, openFilesStore.snapshot);
}
