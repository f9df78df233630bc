import { constants as fsConstants, promises as fs, type Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { ToolFailure } from './tool-spec.js';

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
  const candidate = path.resolve(rootReal, requested);
  // The lexical check catches `..` and outside absolute paths before touching the filesystem.
  if (!isInside(rootReal, candidate)) throw new ToolFailure(`path "${requested}" is outside the workspace`);
  let real: string;
  try {
    real = await fs.realpath(candidate);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new ToolFailure(`path "${requested}" does not exist`);
    throw new ToolFailure(`cannot open "${requested}": ${code ?? 'error'}`);
  }
  // The real-path check catches symlinks that lead out of the workspace.
  if (!isInside(rootReal, real))
    throw new ToolFailure(`path "${requested}" leads outside the workspace (through a symbolic link)`);
  return real;
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
  fsConstants.O_RDONLY | (fsConstants.O_NOFOLLOW ?? 0) | (fsConstants.O_NONBLOCK ?? 0) | (fsConstants.O_NOCTTY ?? 0);

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
