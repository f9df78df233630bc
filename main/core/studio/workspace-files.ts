/**
 * The workspace's files for the studio's file tree and quick open: a bounded listing (no `.git`,
 * no `node_modules`, links that lead outside named as such) and a bounded view of one file
 * (text, or why it is not shown: too large, binary, not a regular file, outside the workspace).
 */
import { promises as fs, type Dirent } from 'node:fs';
import path from 'node:path';
import type { FileView, WorkspaceFiles } from '../../../common/studio-schemas.js';
import { AGENTS_DIR } from '../catalog/workspace.js';
import { FileReadError, formatBytes, readRegularFileSync } from '../files/regular-file.js';
import { checkInsideWorkspace } from '../tools/workspace-path.js';
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
  const files: WorkspaceFiles['files'] = [];
  let truncated = false;
  const queue: { relative: string; depth: number }[] = [{ relative: '', depth: 0 }];
  while (queue.length > 0) {
    const { relative, depth } = queue.shift()!;
    let entries: Dirent[];
    try {
      entries = await fs.readdir(path.join(root, relative), { withFileTypes: true });
    } catch {
      continue; // A folder that cannot be read is left out.
    }
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
        const checked = checkInsideWorkspace(root, child, { missing: 'refuse' });
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
 * What the viewer shows of `relative`: its text, or why not. A file that leads outside the
 * workspace is refused (`outside-workspace`), as for every read of the studio.
 */
export function viewWorkspaceFile(root: string, relative: string): FileView {
  const file = resolveInWorkspace(root, relative);
  const editable = AGENT_SCRIPT.test(relative);
  let bytes: Buffer;
  try {
    bytes = readRegularFileSync(file, MAX_VIEWED_BYTES, 'file', relative);
  } catch (error) {
    if (error instanceof FileReadError) {
      if (error.reason === 'too-large')
        return {
          kind: 'too-large',
          message: `${relative} is larger than ${formatBytes(MAX_VIEWED_BYTES)}, the most the viewer shows; open it in another editor`,
        };
      return { kind: 'unreadable', message: error.message };
    }
    throw new ContractError('not-found', `${relative}: cannot be read`);
  }
  if (isBinary(bytes))
    return {
      kind: 'binary',
      message: `${relative} is not text (${formatBytes(bytes.length)} of binary data); the viewer shows text files only`,
    };
  return { kind: 'text', text: bytes.toString('utf8'), editable };
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
