/**
 * The explorer's Files: every file of the workspace as a tree (folders closed until opened), one
 * Tab stop (the WAI-ARIA tree pattern: ↑ ↓ move, → opens a folder or goes into it, ← closes it or
 * goes to its folder, Home / End, Enter opens a file). An agent script opens in its editor; any
 * other file in the read-only viewer. A link that leads outside the workspace is listed, never opened.
 */
import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import type { WorkspaceFiles } from '../../../common/studio-schemas.js';
import { escapeHidden } from '../run/hidden-characters';
import { call, describeError, useStudioEvent } from '../shell/studio-api';

type Entry = WorkspaceFiles['files'][number];

interface Row {
  entry: Entry;
  name: string;
  depth: number;
  parent: string | null;
}

/** The rows shown: each entry whose folders are all open, in listing order under its folder. */
function visibleRows(files: readonly Entry[], open: ReadonlySet<string>): Row[] {
  const children = new Map<string, Entry[]>();
  for (const entry of files) {
    const cut = entry.path.lastIndexOf('/');
    const parent = cut < 0 ? '' : entry.path.slice(0, cut);
    children.set(parent, [...(children.get(parent) ?? []), entry]);
  }
  const rows: Row[] = [];
  const walk = (folder: string, depth: number): void => {
    for (const entry of children.get(folder) ?? []) {
      rows.push({
        entry,
        name: entry.path.slice(entry.path.lastIndexOf('/') + 1),
        depth,
        parent: folder === '' ? null : folder,
      });
      if (entry.kind === 'folder' && open.has(entry.path)) walk(entry.path, depth + 1);
    }
  };
  walk('', 0);
  return rows;
}

export function FileTree({
  workspaceRoot,
  current,
  onOpenFile,
}: {
  workspaceRoot: string;
  /** The file the center shows, if any. */
  current: string | undefined;
  onOpenFile: (path: string) => void;
}) {
  const [listing, setListing] = useState<{ root: string; files: WorkspaceFiles } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const [focused, setFocused] = useState<string | null>(null);
  const items = useRef(new Map<string, HTMLElement>());

  const load = (): void => {
    call('files:list', {}).then(
      (files) => {
        setListing({ root: workspaceRoot, files });
        setError(null);
      },
      (failure: unknown) => setError(describeError(failure)),
    );
  };
  useEffect(load, [workspaceRoot]);
  // Files change outside the studio too (another editor, git): the listing is read again when the
  // workspace changes, when the window comes back to the front, and when focus enters the tree.
  useStudioEvent('workspace-changed', () => load());
  useEffect(() => {
    const onFocus = (): void => load();
    window.addEventListener('focus', onFocus);
    return () => window.removeEventListener('focus', onFocus);
  });

  const files = listing?.root === workspaceRoot ? listing.files : null;
  const rows = useMemo(() => (files ? visibleRows(files.files, open) : []), [files, open]);
  const paths = rows.map((row) => row.entry.path);
  const stop =
    focused !== null && paths.includes(focused)
      ? focused
      : current !== undefined && paths.includes(current)
        ? current
        : paths[0];

  const toggle = (path: string, to?: boolean): void =>
    setOpen((was) => {
      const next = new Set(was);
      if (to ?? !was.has(path)) next.add(path);
      else next.delete(path);
      return next;
    });
  const focusPath = (path: string | undefined): void => {
    if (path !== undefined) items.current.get(path)?.focus();
  };
  const activate = (row: Row): void => {
    if (row.entry.kind === 'folder') toggle(row.entry.path);
    else if (row.entry.kind === 'file') onOpenFile(row.entry.path);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLElement>, index: number): void => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const row = rows[index]!;
    const isOpen = row.entry.kind === 'folder' && open.has(row.entry.path);
    switch (event.key) {
      case 'ArrowDown':
        focusPath(paths[Math.min(index + 1, paths.length - 1)]);
        break;
      case 'ArrowUp':
        focusPath(paths[Math.max(index - 1, 0)]);
        break;
      case 'Home':
        focusPath(paths[0]);
        break;
      case 'End':
        focusPath(paths.at(-1));
        break;
      case 'ArrowRight':
        if (row.entry.kind !== 'folder') return;
        if (isOpen) focusPath(paths[index + 1]);
        else toggle(row.entry.path, true);
        break;
      case 'ArrowLeft':
        if (isOpen) toggle(row.entry.path, false);
        else if (row.parent !== null) focusPath(row.parent);
        break;
      case 'Enter':
        activate(row);
        break;
      default:
        return;
    }
    event.preventDefault();
  };

  if (error !== null)
    return (
      <p className="error-text small" role="alert">
        The files could not be listed: {error}
      </p>
    );
  if (files === null) return <p className="muted small">Listing the files…</p>;
  return (
    <>
      <ul
        className="file-tree"
        role="tree"
        aria-label="Files"
        onFocus={(event) => {
          if (!event.currentTarget.contains(event.relatedTarget as Node | null)) load();
        }}
      >
        {rows.map((row, index) => {
          const { entry } = row;
          const folder = entry.kind === 'folder';
          const why =
            entry.kind === 'link-outside'
              ? 'a link that leads outside the workspace: not opened'
              : entry.kind === 'other'
                ? 'not a regular file'
                : undefined;
          return (
            <li
              key={entry.path}
              ref={(element) => {
                if (element) items.current.set(entry.path, element);
                else items.current.delete(entry.path);
              }}
              role="treeitem"
              aria-level={row.depth + 1}
              aria-expanded={folder ? open.has(entry.path) : undefined}
              aria-selected={entry.path === current}
              aria-disabled={why !== undefined ? true : undefined}
              tabIndex={entry.path === stop ? 0 : -1}
              className={`file-tree-item${entry.path === current ? ' current' : ''}${why ? ' unavailable' : ''}`}
              style={{ paddingInlineStart: `${6 + row.depth * 14}px` }}
              title={why ? `${escapeHidden(entry.path)}: ${why}` : escapeHidden(entry.path)}
              onFocus={() => setFocused(entry.path)}
              onClick={(event) => {
                event.stopPropagation();
                activate(row);
              }}
              onKeyDown={(event) => onKeyDown(event, index)}
            >
              <span className="file-tree-icon" aria-hidden="true">
                {folder ? (open.has(entry.path) ? '▾' : '▸') : why ? '⊘' : '·'}
              </span>
              <span className="item-label">{escapeHidden(row.name)}</span>
              {why ? <span className="visually-hidden">({why})</span> : null}
            </li>
          );
        })}
      </ul>
      {files.truncated ? (
        <p className="muted small explorer-note">
          The workspace has more files than the tree lists (5,000, 16 folders deep).
        </p>
      ) : null}
    </>
  );
}
