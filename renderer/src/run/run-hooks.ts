/**
 * The window's run store and the hooks components read it through (`useSyncExternalStore`, so a
 * component re-renders only when what it reads changed).
 */
import { useSyncExternalStore } from 'react';
import { RunStore, type RunView } from './run-store';
import { call, describeError } from '../shell/studio-api';

/** The run store of this window. */
export const runStore = new RunStore(call, describeError, (flush) => window.requestAnimationFrame(flush));

/** The run shown in the run panel, or null. */
export function useSelectedRunId(): string | null {
  return useSyncExternalStore(runStore.subscribe, runStore.selectedRunId);
}

/** The runs in progress that this window knows of. */
export function useLiveRunIds(): ReadonlySet<string> {
  return useSyncExternalStore(runStore.subscribe, runStore.liveRunIds);
}

/** What the views show for `runId` (undefined: no such run held). */
export function useRun(runId: string | null): RunView | undefined {
  return useSyncExternalStore(runStore.subscribe, () => runStore.run(runId));
}
