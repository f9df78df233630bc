// No source file grows past 500 lines (tests aside): a module that does, mixes jobs, and is cut
// along its seam instead (docs/architecture.md). Scripts, benchmarks and the lint config count too.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot } from './project-copy.js';

const MAX_LINES = 500;
const SOURCE = /\.(ts|tsx|mts|cts|js|mjs|cjs|css|lua)$/;
const FOLDERS = ['main', 'common', 'preload', 'renderer', 'scripts', 'bench'];
const SKIPPED = new Set(['node_modules', 'out', 'dist']);

function sourceFiles(folder: string): string[] {
  return readdirSync(path.join(repositoryRoot, folder), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(folder, entry.name);
    if (entry.isDirectory()) return SKIPPED.has(entry.name) ? [] : sourceFiles(relative);
    return entry.isFile() && SOURCE.test(entry.name) ? [relative] : [];
  });
}

describe('module size', () => {
  const files = FOLDERS.flatMap(sourceFiles);

  it('finds the sources it checks', () => {
    expect(files.length).toBeGreaterThan(300);
    expect(files).toContain(path.join('main', 'core', 'run', 'run.ts'));
    expect(files).toContain(path.join('renderer', 'src', 'shell', 'App.tsx'));
  });

  it(`keeps every source file at ${MAX_LINES} lines or fewer`, () => {
    const over = files
      .map((file) => ({ file, lines: readFileSync(path.join(repositoryRoot, file), 'utf8').split('\n').length - 1 }))
      .filter(({ lines }) => lines > MAX_LINES)
      .map(({ file, lines }) => `${file}: ${lines} lines; cut it along its seam into modules of one job each`);
    expect(over).toEqual([]);
  });
});
