/**
 * The workspace's files for the studio's file tree and quick open: a bounded listing (no `.git`,
 * no `node_modules`, links that lead outside named as such) and a bounded view of one file
 * (text, or why it is not shown: too large, binary, not a regular file, outside the workspace).
 */
import { constants, promises as fs, type Dirent } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { FileView, WorkspaceFiles } from '../../../common/studio-schemas.js';
import { AGENTS_DIR } from '../catalog/workspace.js';
import { errorMessage } from '../../../common/error-message.js';
import { formatBytes, platformOpenFlags, readAtMost } from '../files/regular-file.js';
import { checkInsideWorkspace, isInside, openInsideWorkspace } from '../tools/workspace-path.js';
import { ContractError } from './contract-error.js';
import { resolveInWorkspace } from './workspace-paths.js';

/** Most entries listed: a bigger workspace is listed in part, and says so. */
export const MAX_LISTED_FILES = 5000;
/** Deepest folder listed. */
export const MAX_LIST_DEPTH = 16;
/** Largest file shown in the viewer. */
export const MAX_VIEWED_BYTES = 2 << 20;
/** Folders never listed: version control and installed packages. */
const SKIPPED_FOLDERS = new Set(['.git', 'node_modules']);

/** `agents/NAME.lua`: an agent script, which opens in its editor (editable) rather than the viewer. */
const AGENT_SCRIPT = new RegExp(`^${AGENTS_DIR}/[^/\\\\]+\\.lua$`);

/**
 * The files of the workspace at `root`, folders first then files, by name, breadth first: at most
 * {@link MAX_LISTED_FILES} entries and {@link MAX_LIST_DEPTH} levels. A symbolic link is listed
 * as a file when it leads to one inside the workspace, and as `link-outside` when it leads out
 * (it is never followed into a folder: a link cannot make the listing loop).
 */
export async function listWorkspaceFiles(root: string): Promise<WorkspaceFiles> {
  const rootReal = await fs.realpath(root);
  const files: WorkspaceFiles['files'] = [];
  let truncated = false;
  const queue: { relative: string; depth: number }[] = [{ relative: '', depth: 0 }];
  while (queue.length > 0) {
    const { relative, depth } = queue.shift()!;
    // A folder that cannot be read, or that a link swapped in since leads outside, is left out.
    const entries = await readFolderInside(rootReal, relative);
    if (entries === undefined) continue;
    entries.sort(
      (a, b) => Number(b.isDirectory()) - Number(a.isDirectory()) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
    );
    for (const entry of entries) {
      const child = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (files.length >= MAX_LISTED_FILES) {
        truncated = true;
        break;
      }
      if (entry.isDirectory()) {
        if (SKIPPED_FOLDERS.has(entry.name)) continue;
        files.push({ path: child, kind: 'folder' });
        if (depth + 1 < MAX_LIST_DEPTH) queue.push({ relative: child, depth: depth + 1 });
        else truncated = true;
      } else if (entry.isFile()) {
        files.push({ path: child, kind: 'file' });
      } else if (entry.isSymbolicLink()) {
        const checked = checkInsideWorkspace(rootReal, child, { missing: 'refuse' });
        if (!checked.ok) files.push({ path: child, kind: 'link-outside' });
        else {
          const target = await fs.stat(checked.real).catch(() => undefined);
          files.push({ path: child, kind: target?.isFile() ? 'file' : 'other' });
        }
      } else files.push({ path: child, kind: 'other' });
    }
    if (truncated && files.length >= MAX_LISTED_FILES) break;
  }
  return { files, truncated };
}

/**
 * What the viewer shows of `relative`: its text, or why not. A path or link that leads outside the
 * workspace is refused (`outside-workspace`), as for every read of the studio; the file is then
 * opened without following a last link and checked again once open, so a link swapped in between
 * reads nothing outside (`openInsideWorkspace`, as the read_file tool does).
 */
export async function viewWorkspaceFile(root: string, relative: string): Promise<FileView> {
  resolveInWorkspace(root, relative);
  const editable = AGENT_SCRIPT.test(relative);
  let opened;
  try {
    opened = await openInsideWorkspace(root, relative, 'file');
  } catch (error) {
    return { kind: 'unreadable', message: errorMessage(error).replace(/; use list_files$/, '') };
  }
  let bytes: Buffer;
  try {
    bytes = await readAtMost(opened.handle, MAX_VIEWED_BYTES + 1);
  } finally {
    await opened.handle.close();
  }
  if (bytes.length > MAX_VIEWED_BYTES)
    return {
      kind: 'too-large',
      message: `${relative} is larger than ${formatBytes(MAX_VIEWED_BYTES)}, the most the viewer shows; open it in another editor`,
    };
  if (isBinary(bytes))
    return {
      kind: 'binary',
      message: `${relative} is not text (${formatBytes(bytes.length)} of binary data); the viewer shows text files only`,
    };
  return { kind: 'text', text: bytes.toString('utf8'), editable };
}

/**
 * The text of `relative` for an editor (an agent, a catalog), at most `maxBytes`: opened as the
 * viewer opens a file, so a link swapped in after the check reads nothing outside. Throws a
 * ContractError `not-found` that says why.
 */
export async function readWorkspaceText(root: string, relative: string, maxBytes: number): Promise<string> {
  resolveInWorkspace(root, relative);
  let opened;
  try {
    opened = await openInsideWorkspace(root, relative, 'file');
  } catch (error) {
    throw new ContractError('not-found', errorMessage(error).replace(/; use list_files$/, ''));
  }
  let bytes: Buffer;
  try {
    bytes = await readAtMost(opened.handle, maxBytes + 1);
  } finally {
    await opened.handle.close();
  }
  if (bytes.length > maxBytes)
    throw new ContractError(
      'not-found',
      `${relative} is larger than ${formatBytes(maxBytes)}, the most the studio opens`,
    );
  return bytes.toString('utf8');
}

/** Opening a folder: not through a last link, never a terminal, at once even if it is odd. */
const FOLDER_FLAGS =
  constants.O_RDONLY |
  (platformOpenFlags.O_DIRECTORY ?? 0) |
  (platformOpenFlags.O_NOFOLLOW ?? 0) |
  (platformOpenFlags.O_NONBLOCK ?? 0);

/**
 * The entries of folder `relative`, or undefined when it cannot be read or no longer leads inside
 * `rootReal` (a link swapped in after it was listed). On Linux the folder is opened first and its
 * entries are read through the open descriptor, once the descriptor is known to be inside.
 */
async function readFolderInside(rootReal: string, relative: string): Promise<Dirent[] | undefined> {
  const target = path.join(rootReal, relative);
  if (process.platform === 'linux') {
    let handle: FileHandle;
    try {
      handle = await fs.open(target, FOLDER_FLAGS);
    } catch {
      return undefined;
    }
    try {
      const opened = await fs.readlink(`/proc/self/fd/${handle.fd}`);
      if (!isInside(rootReal, opened)) return undefined;
      return await fs.readdir(`/proc/self/fd/${handle.fd}`, { withFileTypes: true });
    } catch {
      return undefined;
    } finally {
      await handle.close();
    }
  }
  const real = await fs.realpath(target).catch(() => undefined);
  if (real === undefined || !isInside(rootReal, real)) return undefined;
  return fs.readdir(real, { withFileTypes: true }).catch(() => undefined);
}

/** Whether `bytes` look like binary data: a NUL byte, or bytes that are not UTF-8, in the first 8 KiB. */
function isBinary(bytes: Buffer): boolean {
  const head = bytes.subarray(0, 8192);
  if (head.includes(0)) return true;
  try {
    // A multibyte character cut at the 8 KiB mark is not a reason: decode in streaming mode.
    new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true });
    return false;
  } catch {
    return true;
  }
}
