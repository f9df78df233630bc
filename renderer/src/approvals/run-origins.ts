import { useSyncExternalStore } from 'react';
import type { RunEvent } from '../../../common/run-events.js';
import type { RunSummary } from '../../../common/studio-schemas.js';
import { agentNameOf } from '../../../common/agent-name.js';

/** Which agent a run runs and when it started: what names the run on an approval card. */
export interface RunOrigin {
  /** The agent's name: the script's file name without `.lua` (as the history lists it). */
  agent: string;
  /** ISO time the run started. */
  startedAt: string;
}

const origins = new Map<string, RunOrigin>();
const listeners = new Set<() => void>();
let version = 0;

function changed(): void {
  version += 1;
  for (const listener of listeners) listener();
}

/**
 * Where the runs in progress come from: noted from a `run-start` as it streams in, and from the
 * history's summaries (after a window reload, the runs still waiting are known only from there);
 * forgotten at their `run-end`.
 */
export const runOrigins = {
  noteEvent(event: RunEvent): void {
    if (event.type === 'run-end') {
      if (origins.delete(event.runId)) changed();
      return;
    }
    if (event.type !== 'run-start' || origins.has(event.runId)) return;
    origins.set(event.runId, { agent: agentNameOf(event.script.path), startedAt: event.t });
    changed();
  },
  noteSummaries(runs: readonly RunSummary[]): void {
    let added = false;
    for (const run of runs) {
      if (origins.has(run.runId) || run.status !== 'running') continue;
      origins.set(run.runId, { agent: run.agent || agentNameOf(run.script), startedAt: run.startedAt });
      added = true;
    }
    if (added) changed();
  },
  get(runId: string): RunOrigin | undefined {
    return origins.get(runId);
  },
  subscribe(listener: () => void): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};

/** Re-renders the caller when what is known of the runs' origins changes; returns the lookup. */
export function useRunOrigins(): (runId: string) => RunOrigin | undefined {
  useSyncExternalStore(runOrigins.subscribe, () => version);
  return runOrigins.get;
}
