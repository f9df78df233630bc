import { promises as fs } from 'node:fs';
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
