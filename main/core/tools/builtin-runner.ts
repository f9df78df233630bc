import { promises as fs } from 'node:fs';
import type { JsonObject } from '../../../common/json.js';
import { displayUrl, tail } from './bounded-text.js';
import {
  HTTP_GET_MAX_BYTES,
  HTTP_GET_TIMEOUT_MS,
  LIST_FILES_MAX_ENTRIES,
  READ_FILE_MAX_BYTES,
} from './builtin-tools.js';
import { type FetchLike, fetchText } from './http-runner.js';
import { ToolFailure } from './tool-spec.js';
import { resolveInsideWorkspace } from './workspace-path.js';

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
  const real = await resolveInsideWorkspace(root, requested);
  const handle = await fs.open(real, 'r').catch((error: NodeJS.ErrnoException) => {
    throw new ToolFailure(`cannot open "${requested}": ${error.code ?? error.message}`);
  });
  try {
    const stat = await handle.stat();
    if (stat.isDirectory()) throw new ToolFailure(`"${requested}" is a folder; use list_files`);
    if (!stat.isFile()) throw new ToolFailure(`"${requested}" is not a regular file`);
    if (stat.size > READ_FILE_MAX_BYTES)
      throw new ToolFailure(`"${requested}" is ${stat.size} bytes, more than the ${READ_FILE_MAX_BYTES}-byte limit`);
    // Read at most one byte past the cap, in case the file grew after the stat.
    const buffer = Buffer.alloc(Math.min(stat.size, READ_FILE_MAX_BYTES) + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    if (bytesRead > READ_FILE_MAX_BYTES)
      throw new ToolFailure(`"${requested}" is more than the ${READ_FILE_MAX_BYTES}-byte limit`);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}

async function listFiles(root: string | undefined, requested: string): Promise<string> {
  const real = await resolveInsideWorkspace(root, requested);
  const stat = await fs.stat(real);
  if (!stat.isDirectory()) throw new ToolFailure(`"${requested}" is not a folder`);
  const entries = await fs.readdir(real, { withFileTypes: true });
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
  if (!result.ok) throw new ToolFailure(`HTTP ${result.status} from ${displayUrl(url)}: ${tail(result.text)}`);
  return result.text;
}
