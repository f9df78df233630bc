/**
 * The Tests view's state, outside React: the open workspace's test files and cases (`tests:list`,
 * then `tests-changed`), this session's latest suite run and each case's result (`tests-progress`),
 * the results of an earlier session's run until a case runs again, and why the last attempt to run
 * did not start. Components read it through `useSyncExternalStore`.
 */
import { useSyncExternalStore } from 'react';
import type { ContractErrorCode } from '../../../common/contract-errors.js';
import type {
  TestCaseResultInfo,
  TestFileInfo,
  TestsListing,
  TestsProgress,
  TestSuiteState,
} from '../../../common/test-schemas.js';
import { call, describeError, StudioCallError } from '../shell/studio-api';

/** Why a run did not start: the core's sentence, and its code (`workspace-restricted` offers the trust review). */
interface RunRefusal {
  code: ContractErrorCode | null;
  message: string;
}

export interface TestsSnapshot {
  /** The workspace the listing is for; null before one is read. */
  root: string | null;
  loading: boolean;
  /** Why reading the test files failed. */
  error: string | null;
  folder: string;
  files: TestFileInfo[];
  suite: TestSuiteState | null;
  /** The latest result of each case, by case id (this session's runs, else the earlier session's). */
  results: ReadonlyMap<string, TestCaseResultInfo>;
  /** The earlier session's suite run the results come from, when some do. */
  earlier: { suiteRunId: string; folder: string; time: string } | null;
  /** The cases whose result is the earlier session's (not run again in this one). */
  fromEarlier: ReadonlySet<string>;
  /** The cases the running suite has still to finish (when this window started it). */
  queued: ReadonlySet<string>;
  refusal: RunRefusal | null;
}

const EMPTY: TestsSnapshot = {
  root: null,
  loading: false,
  error: null,
  folder: 'tests',
  files: [],
  suite: null,
  results: new Map(),
  earlier: null,
  fromEarlier: new Set(),
  queued: new Set(),
  refusal: null,
};

class TestsStore {
  private snapshot: TestsSnapshot = EMPTY;
  /** How many `tests-changed` events arrived: a listing asked for before the latest one is older. */
  private changes = 0;
  private readonly listeners = new Set<() => void>();

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  readonly getSnapshot = (): TestsSnapshot => this.snapshot;

  private set(patch: Partial<TestsSnapshot>): void {
    this.snapshot = { ...this.snapshot, ...patch };
    for (const listener of this.listeners) listener();
  }

  /** Reads the workspace's test files and the latest suite run (when the view shows, or another workspace opened). */
  async load(root: string): Promise<void> {
    if (this.snapshot.root !== root) this.snapshot = { ...EMPTY, root };
    this.set({ loading: true, error: null });
    const changesBefore = this.changes;
    try {
      const listing: TestsListing = await call('tests:list', {});
      if (this.snapshot.root !== root) return;
      const results = new Map(this.snapshot.results);
      const fromEarlier = new Set(this.snapshot.fromEarlier);
      // An earlier session's result only where this session has none.
      for (const result of listing.earlier?.results ?? [])
        if (!results.has(result.id) || fromEarlier.has(result.id)) {
          results.set(result.id, result);
          fromEarlier.add(result.id);
        }
      for (const result of listing.suite?.results ?? []) {
        results.set(result.id, result);
        fromEarlier.delete(result.id);
      }
      const earlier = listing.earlier && fromEarlier.size > 0 ? listing.earlier : null;
      this.set({
        earlier: earlier && { suiteRunId: earlier.suiteRunId, folder: earlier.folder, time: earlier.time },
        fromEarlier,
        loading: false,
        folder: listing.folder,
        // A change on disk reported while the listing was on its way is newer than it: kept.
        // (Every later change is reported too, so the list never stays behind the disk.)
        files: this.changes === changesBefore ? listing.files : this.snapshot.files,
        suite: listing.suite ? suiteState(listing.suite) : this.snapshot.suite,
        results,
      });
    } catch (failure) {
      if (this.snapshot.root === root) this.set({ loading: false, error: describeError(failure) });
    }
  }

  /** `tests-changed`: the files on disk changed. */
  filesChanged(files: TestFileInfo[]): void {
    if (this.snapshot.root === null) return;
    this.changes += 1;
    this.set({ files });
  }

  /** `tests-progress`: a suite started, a case finished, or the suite ended. */
  progress(event: TestsProgress): void {
    if (this.snapshot.root === null) return;
    const { result, ...suite } = event;
    const results = new Map(this.snapshot.results);
    const fromEarlier = new Set(this.snapshot.fromEarlier);
    let queued = new Set(this.snapshot.queued);
    if (this.snapshot.suite?.suiteRunId !== suite.suiteRunId) {
      // The cases this window asked to run lose their earlier result: they show as queued.
      queued = new Set(this.pending);
      this.pending = [];
      for (const id of queued) {
        results.delete(id);
        fromEarlier.delete(id);
      }
    }
    if (result) {
      results.set(result.id, result);
      fromEarlier.delete(result.id);
      queued.delete(result.id);
    }
    if (suite.state !== 'running') queued.clear();
    this.set({ suite, results, queued, fromEarlier, ...(fromEarlier.size === 0 && { earlier: null }) });
  }

  /** The ids of the cases the latest Run asked for, until its suite starts. */
  private pending: string[] = [];

  /** Runs all cases, one file's or one case; the results follow as `tests-progress`. */
  async run(request: { file?: string; case?: string }, ids: string[]): Promise<void> {
    this.set({ refusal: null });
    this.pending = ids;
    try {
      await call('tests:run', request);
    } catch (failure) {
      this.pending = [];
      this.set({
        refusal: {
          code: failure instanceof StudioCallError ? failure.code : null,
          message: failure instanceof StudioCallError ? failure.message : describeError(failure),
        },
      });
    }
  }

  async stop(): Promise<void> {
    try {
      await call('tests:stop', {});
    } catch (failure) {
      this.set({ refusal: { code: null, message: describeError(failure) } });
    }
  }

  /**
   * "New test file…": main writes `tests/<name>.yaml` with a case for `agent`; resolves to its path,
   * or rejects with main's sentence. The listing follows (main pushes `tests-changed`).
   */
  async create(name: string, agent: string | null): Promise<string> {
    const created = await call('tests:create', { name, ...(agent !== null && { agent }) });
    return created.file;
  }

  dismissRefusal(): void {
    this.set({ refusal: null });
  }
}

/** A suite run's state without its results (they are kept by case). */
function suiteState({ results: _results, ...state }: NonNullable<TestsListing['suite']>): TestSuiteState {
  return state;
}

/** The window's tests store. */
export const testsStore = new TestsStore();

export function useTests(): TestsSnapshot {
  return useSyncExternalStore(testsStore.subscribe, testsStore.getSnapshot);
}
