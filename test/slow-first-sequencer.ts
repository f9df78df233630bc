import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Starts the test files that take longest first, so that no long file is left running alone at the
 * end while the other workers sit idle. Vitest's own order (by the durations it cached on an
 * earlier run, else by file size) is kept within each group; on a fresh clone there is no cache,
 * and a small file can be a slow one. The groups, slowest first: the end-to-end files (each waits
 * on Chromium and a core) and the setup files (each runs npm in a copy of the project); the files
 * that spawn processes (the CLI and MCP servers); then the rest.
 */
export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification): number => {
      const id = file.moduleId.replaceAll('\\', '/');
      if (/\/test\/(e2e|node\/setup)\//.test(id)) return 0;
      if (/\/test\/node\/(cli|mcp)\//.test(id)) return 1;
      return 2;
    };
    // Array.prototype.sort is stable: within a group, Vitest's order stays.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
