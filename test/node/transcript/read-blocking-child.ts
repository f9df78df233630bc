// Run by blocking-files.test.ts in a child process, so that a regression that blocks on a FIFO or
// reads /dev/zero forever hangs only this process (which the test then kills and reports).
import { loadWorkspace } from '../../../main/core/catalog/workspace.js';
import type { CatalogProblem } from '../../../main/core/catalog/catalog-problem.js';
import { listRuns, readTranscriptLenient } from '../../../main/core/transcript/run-history.js';

const [root, ...transcripts] = process.argv.slice(2);
const problems: CatalogProblem[] = [];
const runs = listRuns(root!, 'runs', problems);
const opened = transcripts.map((file) => {
  try {
    return { file, events: readTranscriptLenient(file).length };
  } catch (error) {
    return { file, error: `${(error as Error).name}: ${(error as Error).message}` };
  }
});
const workspace = await loadWorkspace(root!);
process.stdout.write(
  JSON.stringify({
    runs: runs.map((run) => run.file),
    problems,
    opened,
    catalogProblems: workspace.problems,
    tools: workspace.tools.aliases(),
  }),
);
