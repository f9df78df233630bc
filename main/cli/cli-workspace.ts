/** The workspace a command works in: the `--workspace` folder or the one found upwards, and its catalogs. */
import { statSync } from 'node:fs';
import path from 'node:path';
import type * as CatalogProblemModule from '../core/catalog/catalog-problem.js';
import type * as WorkspaceModule from '../core/catalog/workspace.js';
import { findWorkspaceRoot } from '../core/catalog/workspace-root.js';
import { UsageError } from './cli-errors.js';
import type { CliIo } from './cli-io.js';

/**
 * The catalog machinery (YAML, the catalog schemas, ajv) is imported only by the commands that read
 * a workspace, so `keys status` outside a workspace starts without it.
 */
export interface CatalogModules {
  loadWorkspace: typeof WorkspaceModule.loadWorkspace;
  formatProblem: typeof CatalogProblemModule.formatProblem;
  /** The workspace's folder of test files. */
  TESTS_DIR: typeof WorkspaceModule.TESTS_DIR;
}
let catalogModules: CatalogModules | undefined;
export async function loadCatalogModules(): Promise<CatalogModules> {
  if (catalogModules === undefined) {
    const [{ loadWorkspace, TESTS_DIR }, { formatProblem }] = await Promise.all([
      import('../core/catalog/workspace.js'),
      import('../core/catalog/catalog-problem.js'),
    ]);
    catalogModules = { loadWorkspace, formatProblem, TESTS_DIR };
  }
  return catalogModules;
}

/**
 * The workspace root: the `--workspace` folder (`workspaceFlag`, relative to the working folder;
 * a usage error when it is not a folder), else the first workspace found upwards from one of
 * `searchFrom` (tried in order), else undefined.
 */
export async function workspaceRoot(
  io: CliIo,
  workspaceFlag: string | undefined,
  searchFrom: readonly string[] = [io.cwd],
): Promise<string | undefined> {
  if (workspaceFlag !== undefined) {
    const root = path.resolve(io.cwd, workspaceFlag);
    if (!statSync(root, { throwIfNoEntry: false })?.isDirectory())
      throw new UsageError(`--workspace ${workspaceFlag}: no such folder`);
    return root;
  }
  // The script's folder is often the working folder: each folder is walked up from once.
  for (const folder of new Set(searchFrom.map((start) => path.resolve(start)))) {
    const found = await findWorkspaceRoot(folder);
    if (found) return found;
  }
  return undefined;
}
