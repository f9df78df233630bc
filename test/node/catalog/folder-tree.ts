import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

/**
 * A temporary folder (`top`, deleted after the test file) and `folder(parent, mode)`, which makes
 * a new folder d1, d2, … in `parent` (default `top`) with exactly `mode`. Call it at the top of a
 * test file.
 */
export function folderTree(prefix: string): { top: string; folder: (parent?: string, mode?: number) => string } {
  const top = mkdtempSync(path.join(tmpdir(), prefix));
  afterAll(() => rmSync(top, { recursive: true, force: true }));
  let folders = 0;
  const folder = (parent = top, mode = 0o755): string => {
    const dir = path.join(parent, `d${++folders}`);
    mkdirSync(dir);
    chmodSync(dir, mode);
    return dir;
  };
  return { top, folder };
}
