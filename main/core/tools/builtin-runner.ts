import { readAtMost } from '../files/regular-file.js';
import { type Dirent, promises as fs } from 'node:fs';
import type { JsonObject } from '../../../common/json.js';
import { displayUrl, tail } from './bounded-text.js';
import {
  HTTP_GET_MAX_BYTES,
  HTTP_GET_TIMEOUT_MS,
  LIST_FILES_MAX_ENTRIES,
  READ_FILE_MAX_BYTES,
} from './builtin-tools.js';
import type { FetchLike } from '../net/redirects.js';
import { fetchText } from './http-runner.js';
import { ToolFailure } from './tool-spec.js';
import { openInsideWorkspace, resolveInsideWorkspace } from './workspace-path.js';

/** What the builtins may reach. */
export interface BuiltinContext {
  workspaceRoot: string | undefined;
  fetch: FetchLike;
  now(): Date;
}

/** Runs builtin `name` with validated `args`. */
export async function runBuiltin(
  name: string,
  args: JsonObject,
  signal: AbortSignal,
  context: BuiltinContext,
): Promise<string> {
  switch (name) {
    case 'echo':
      return typeof args['text'] === 'string' ? args['text'] : '';
    case 'now':
      return context.now().toISOString();
    case 'read_file':
      return readFile(context.workspaceRoot, String(args['path'] ?? ''));
    case 'list_files':
      return listFiles(
        context.workspaceRoot,
        typeof args['path'] === 'string' && args['path'] !== '' ? args['path'] : '.',
      );
    case 'http_get':
      return httpGet(String(args['url'] ?? ''), signal, context.fetch);
    default:
      throw new ToolFailure(`there is no builtin named "${name}"`);
  }
}

async function readFile(root: string | undefined, requested: string): Promise<string> {
  const { handle, stat } = await openInsideWorkspace(root, requested, 'file');
  try {
    if (stat.size > READ_FILE_MAX_BYTES)
      throw new ToolFailure(`"${requested}" is ${stat.size} bytes, more than the ${READ_FILE_MAX_BYTES}-byte limit`);
    // Read at most one byte past the cap, in case the file grew after the stat.
    const bytes = await readAtMost(handle, READ_FILE_MAX_BYTES + 1);
    if (bytes.length > READ_FILE_MAX_BYTES)
      throw new ToolFailure(`"${requested}" is more than the ${READ_FILE_MAX_BYTES}-byte limit`);
    return bytes.toString('utf8');
  } finally {
    await handle.close();
  }
}

async function listFiles(root: string | undefined, requested: string): Promise<string> {
  // Windows cannot open a folder as a file: there the folder is checked by path before and after.
  const handle = process.platform === 'win32' ? undefined : await openInsideWorkspace(root, requested, 'folder');
  const real = handle?.real ?? (await resolveInsideWorkspace(root, requested));
  const stat = handle?.stat ?? (await fs.stat(real));
  if (!stat.isDirectory()) throw new ToolFailure(`"${requested}" is not a folder`);
  let entries: Dirent[];
  try {
    // On Linux the opened folder itself is read (through its descriptor), not whatever the path
    // names by now; elsewhere the folder must still be the one opened once it has been read.
    const folder = process.platform === 'linux' && handle ? `/proc/self/fd/${handle.handle.fd}` : real;
    entries = await fs.readdir(folder, { withFileTypes: true });
    const after = await fs.stat(real).catch(() => undefined);
    if (!after || after.dev !== stat.dev || after.ino !== stat.ino)
      throw new ToolFailure(`"${requested}" changed while it was being listed; refused`);
  } finally {
    await handle?.handle.close();
  }
  // Symbolic links are listed as names, never followed.
  const names = entries.map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name)).sort();
  const shown = names.slice(0, LIST_FILES_MAX_ENTRIES);
  if (names.length > shown.length) shown.push(`... ${names.length - shown.length} more entries not shown`);
  return shown.join('\n');
}

async function httpGet(url: string, signal: AbortSignal, fetchImpl: FetchLike): Promise<string> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ToolFailure(`"${url}" is not a valid URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new ToolFailure(`only http and https URLs can be fetched (got "${parsed.protocol}")`);
  const result = await fetchText(
    fetchImpl,
    url,
    { method: 'GET', headers: { accept: 'text/*, application/json;q=0.9, */*;q=0.5' } },
    signal,
    HTTP_GET_TIMEOUT_MS,
    HTTP_GET_MAX_BYTES,
  );
  if (!result.ok) {
    const detail = tail(result.text);
    throw new ToolFailure(`HTTP ${result.status} from ${displayUrl(result.url)}: ${detail}`, detail);
  }
  return result.text;
}
