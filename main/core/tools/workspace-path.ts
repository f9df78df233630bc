import { constants as fsConstants, promises as fs, lstatSync, realpathSync, type Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { ToolFailure } from './tool-spec.js';
import { platformOpenFlags } from '../files/regular-file.js';

/** Why {@link checkInsideWorkspace} refused a path; each caller words its own message. */
export type WorkspacePathProblem =
  /** `..` or an absolute path leads outside the root, before any link is followed. */
  | { problem: 'outside' }
  /** The path (or, with `missing: 'nearest'`, its nearest existing folder) has no real path. */
  | { problem: 'missing'; code: string | undefined }
  /** A symbolic link on the way (or the file itself) leads outside the root's real path. */
  | { problem: 'link-outside' };

/**
 * The one symlink-safe check that a path stays inside a workspace: `requested` (relative to
 * `root`, or absolute) is resolved against `root` and checked lexically, then the part of it that
 * exists is followed to its real path, which must be inside `root`'s real path too. With
 * `missing: 'refuse'` the whole path must exist; with `'nearest'` (a file about to be written) its
 * nearest existing ancestor is followed instead. `path` is the resolved path, `real` its real path
 * (with `'nearest'`: the real path of the nearest existing ancestor). Throws only when `root`
 * itself has no real path.
 */
export function checkInsideWorkspace(
  root: string,
  requested: string,
  options: { missing: 'refuse' | 'nearest' },
): { ok: true; path: string; real: string } | ({ ok: false } & WorkspacePathProblem) {
  const candidate = path.resolve(root, requested);
  // The lexical check catches `..` and outside absolute paths before touching the filesystem.
  if (!isInside(root, candidate)) return { ok: false, problem: 'outside' };
  let existing = candidate;
  if (options.missing === 'nearest')
    for (;;) {
      try {
        lstatSync(existing);
        break;
      } catch {
        existing = path.dirname(existing);
      }
    }
  let real: string;
  try {
    real = realpathSync.native(existing);
  } catch (error) {
    return { ok: false, problem: 'missing', code: (error as NodeJS.ErrnoException).code };
  }
  // The real-path check catches symlinks that lead out of the workspace.
  if (!isInside(realpathSync.native(root), real)) return { ok: false, problem: 'link-outside' };
  return { ok: true, path: candidate, real };
}

/**
 * Resolves `requested` (relative to the workspace, or absolute inside it) to a real path that is
 * inside the workspace, following symlinks. Refuses `..` escapes, absolute paths outside, and
 * symlinks (of the file or of any folder on the way) that lead outside, with a ToolFailure that
 * names the requested path only.
 */
export async function resolveInsideWorkspace(workspaceRoot: string | undefined, requested: string): Promise<string> {
  if (workspaceRoot === undefined) throw new ToolFailure('no workspace is open, so there are no files to read');
  if (requested.includes('\0'))
    throw new ToolFailure(`path "${requested.replaceAll('\0', '\\0')}" contains a NUL byte`);
  const rootReal = await fs.realpath(workspaceRoot);
  const checked = checkInsideWorkspace(rootReal, requested, { missing: 'refuse' });
  if (checked.ok) return checked.real;
  switch (checked.problem) {
    case 'outside':
      throw new ToolFailure(`path "${requested}" is outside the workspace`);
    case 'missing':
      if (checked.code === 'ENOENT' || checked.code === 'ENOTDIR')
        throw new ToolFailure(`path "${requested}" does not exist`);
      throw new ToolFailure(`cannot open "${requested}": ${checked.code ?? 'error'}`);
    case 'link-outside':
      throw new ToolFailure(`path "${requested}" leads outside the workspace (through a symbolic link)`);
  }
}

/** Whether `candidate` is `root` or below it (both absolute and normalized). */
export function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative === '' || (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}

/** What {@link openInsideWorkspace} opened: the handle, its fstat, and its real path. */
export interface OpenedInside {
  handle: FileHandle;
  stat: Stats;
  real: string;
}

const OPEN_FLAGS =
  fsConstants.O_RDONLY |
  (platformOpenFlags.O_NOFOLLOW ?? 0) |
  (platformOpenFlags.O_NONBLOCK ?? 0) |
  (platformOpenFlags.O_NOCTTY ?? 0);

/**
 * Opens `requested` inside the workspace without a check-then-open race: the path is resolved
 * (refusing escapes, see {@link resolveInsideWorkspace}), opened without following a final
 * symbolic link and without blocking (a FIFO or device cannot hang the host), and then the
 * opened file itself is checked: on Linux its path (`/proc/self/fd/N`) must be inside the
 * workspace, and everywhere its device and inode must be those of the path resolved again after
 * the open. A folder on the way swapped for a symbolic link, or the file swapped for one, between
 * the check and the open is refused. `kind` says what must have been opened.
 */
export async function openInsideWorkspace(
  workspaceRoot: string | undefined,
  requested: string,
  kind: 'file' | 'folder',
): Promise<OpenedInside> {
  const real = await resolveInsideWorkspace(workspaceRoot, requested);
  const rootReal = await fs.realpath(workspaceRoot!);
  let handle: FileHandle;
  try {
    handle = await fs.open(real, OPEN_FLAGS);
  } catch (error) {
    throw openFailure(requested, (error as NodeJS.ErrnoException).code);
  }
  try {
    const stat = await handle.stat();
    // Checked first: nothing about a file outside (not even its type) may show in a message.
    await verifyOpened(handle, stat, rootReal, requested);
    if (kind === 'file' && stat.isDirectory()) throw new ToolFailure(`"${requested}" is a folder; use list_files`);
    if (kind === 'folder' && !stat.isDirectory()) throw new ToolFailure(`"${requested}" is not a folder`);
    if (kind === 'file' && !stat.isFile())
      throw new ToolFailure(
        `"${requested}" is not a regular file (it is ${describeType(stat)}); only files can be read`,
      );
    return { handle, stat, real };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

async function verifyOpened(handle: FileHandle, stat: Stats, rootReal: string, requested: string): Promise<void> {
  const moved = new ToolFailure(
    `"${requested}" changed while it was being opened (a symbolic link may have been swapped in); refused`,
  );
  if (process.platform === 'linux') {
    const opened = await fs.readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined);
    if (opened === undefined || !isInside(rootReal, opened)) throw moved;
  }
  let again: string;
  try {
    again = await resolveInsideWorkspace(rootReal, requested);
  } catch {
    throw moved;
  }
  const now = await fs.stat(again).catch(() => undefined);
  if (!now || now.dev !== stat.dev || now.ino !== stat.ino) throw moved;
}

function openFailure(requested: string, code: string | undefined): ToolFailure {
  switch (code) {
    case 'ELOOP':
      return new ToolFailure(`"${requested}" changed while it was being opened (it is now a symbolic link); refused`);
    case 'ENXIO':
    case 'EOPNOTSUPP':
      return new ToolFailure(`"${requested}" is not a regular file (it is a socket or device); only files can be read`);
    case 'ENOENT':
    case 'ENOTDIR':
      return new ToolFailure(`path "${requested}" does not exist`);
    default:
      return new ToolFailure(`cannot open "${requested}": ${code ?? 'error'}`);
  }
}

function describeType(stat: Stats): string {
  if (stat.isFIFO()) return 'a named pipe';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  return 'not a regular file';
}
