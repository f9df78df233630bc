import { createRequire } from 'node:module';
import path from 'node:path';

/** The checkout's root (this file is scripts/lib/project.ts). */
export const projectRoot = path.resolve(import.meta.dirname, '..', '..');

const requireFromProject = createRequire(path.join(projectRoot, 'package.json'));

/** The absolute path of a file inside an installed package, e.g. `('vitest', 'vitest.mjs')`. */
export function packageFile(name: string, file: string): string {
  return path.join(path.dirname(requireFromProject.resolve(`${name}/package.json`)), file);
}
