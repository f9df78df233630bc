import { promises as fs } from 'node:fs';
import path from 'node:path';
import { CATALOG_FILES } from './catalog-files.js';

/**
 * The nearest folder at or above `startDir` that holds promptforge.yaml, tools.yaml or models.yaml;
 * undefined when there is none up to the filesystem root. Loads nothing but `node:fs`, so a command
 * can look for a workspace before it decides to load one.
 */
export async function findWorkspaceRoot(startDir: string): Promise<string | undefined> {
  let dir = path.resolve(startDir);
  for (;;) {
    for (const file of CATALOG_FILES) {
      try {
        const stat = await fs.stat(path.join(dir, file));
        if (stat.isFile()) return dir;
      } catch {
        // Not here; keep looking.
      }
    }
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}
