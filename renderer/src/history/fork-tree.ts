import type { RunSummary } from '../../../common/studio-schemas.js';

/**
 * The runs as a tree: each fork right under its parent (and its own forks under it), the rest
 * newest first. `depth` is 0 for a run whose parent is not listed.
 */
export function forkTree(runs: readonly RunSummary[]): Array<{ run: RunSummary; depth: number }> {
  const ids = new Set(runs.map((run) => run.runId));
  const children = new Map<string, RunSummary[]>();
  for (const run of runs) {
    const parent = run.forkOf?.runId;
    if (parent !== undefined && ids.has(parent) && parent !== run.runId)
      children.set(parent, [...(children.get(parent) ?? []), run]);
  }
  const out: Array<{ run: RunSummary; depth: number }> = [];
  const seen = new Set<string>();
  const visit = (run: RunSummary, depth: number): void => {
    if (seen.has(run.runId)) return;
    seen.add(run.runId);
    out.push({ run, depth });
    for (const child of [...(children.get(run.runId) ?? [])].reverse()) visit(child, depth + 1);
  };
  for (const run of runs) if (run.forkOf === undefined || !ids.has(run.forkOf.runId)) visit(run, 0);
  // A cycle (hand-edited transcripts) leaves runs unvisited: list them flat.
  for (const run of runs) visit(run, 0);
  return out;
}
