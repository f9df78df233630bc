import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { RUNS_DIR, type Workspace } from '../catalog/workspace.js';
import type { SecretStore } from '../credentials/secret-store.js';
import type { RunTrust } from '../run/prepare-run.js';
import type { WorkerPool } from '../run/worker-pool.js';
import type { LoadedCase } from './load-tests.js';
import { runCase, type CaseResult, type SpendingLimits } from './run-case.js';
import type { PrepareRunOptions } from '../run/prepare-run.js';

/** Where test runs are recorded, inside the workspace's runs/ folder (History lists only runs/*.jsonl). */
export const TEST_RUNS_DIR = path.join(RUNS_DIR, 'tests');

export function newSuiteRunId(): string {
  return `suite-${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(3).toString('hex')}`;
}

export interface SuiteOptions {
  workspace: Workspace;
  pool: WorkerPool;
  trust: RunTrust;
  secrets?: SecretStore;
  env?: Record<string, string | undefined>;
  /** The person's approval rules, applied to every case's run. */
  rules?: PrepareRunOptions['rules'];
  /** Where the person reads the cases' messages (default: the terminal). */
  surface?: PrepareRunOptions['surface'];
  /** The person's spending cap: every case runs under it (see CaseRunContext.cap). */
  cap?: SpendingLimits;
  cases: readonly LoadedCase[];
  /** `--model A,B`: every case once per model; undefined: each case's own model. */
  models?: readonly string[];
  /** How many cases run at once. */
  concurrency: number;
  /** The suite's own folder (each case's transcript goes in it), or false for none. */
  folder: string | false;
  signal: AbortSignal;
  /** Keep what each run did (for `--update`); off, a result holds only its verdict. */
  keepObserved?: boolean;
  /** Told about each finished case, in the order they finish. */
  onResult?(result: CaseResult, done: number, total: number): void;
}

export interface SuiteResult {
  results: CaseResult[];
  /** Cases (and models) that did not run because the suite was interrupted. */
  notRun: { id: string; name: string; file: string; model: string }[];
  interrupted: boolean;
  durationMs: number;
}

/** A case's transcript file in the suite folder: `<file>/<case>.jsonl` (`@model` with --model). */
export function caseTranscriptPath(folder: string, testCase: LoadedCase, model: string | undefined): string {
  const name = model === undefined ? testCase.id : `${testCase.id}@${model.replace(/[^A-Za-z0-9._-]+/g, '-')}`;
  return path.join(folder, ...`${name}.jsonl`.split('/'));
}

/**
 * Runs every case (once per model of `models`) with at most `concurrency` at a time, on the
 * shared worker pool. An aborted `signal` stops the running cases (their transcripts end with a
 * `stopped` run-end) and starts no more; what finished is returned.
 */
export async function runSuite(options: SuiteOptions): Promise<SuiteResult> {
  const started = performance.now();
  const jobs = (options.models ?? [undefined]).flatMap((model) =>
    options.cases.map((testCase) => ({ testCase, model })),
  );
  // In the order of the cases (and models), whatever order they finish in.
  const slots: (CaseResult | undefined)[] = new Array(jobs.length);
  let finished = 0;
  const notRun: SuiteResult['notRun'] = [];
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const slot = next++;
      const { testCase, model } = jobs[slot]!;
      if (options.signal.aborted) {
        notRun.push({ id: testCase.id, name: testCase.name, file: testCase.file, model: model ?? 'own' });
        continue;
      }
      const result = await runCase(testCase, {
        workspace: options.workspace,
        pool: options.pool,
        trust: options.trust,
        ...(options.secrets && { secrets: options.secrets }),
        ...(options.env && { env: options.env }),
        ...(options.rules && { rules: options.rules }),
        ...(options.surface && { surface: options.surface }),
        ...(options.cap && { cap: options.cap }),
        transcriptPath: options.folder === false ? false : caseTranscriptPath(options.folder, testCase, model),
        signal: options.signal,
        ...(model !== undefined && { modelOverride: model }),
      });
      if (!options.keepObserved) delete result.observed;
      slots[slot] = result;
      options.onResult?.(result, ++finished, jobs.length);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, jobs.length)) }, worker));
  const results = slots.filter((result): result is CaseResult => result !== undefined);
  return { results, notRun, interrupted: options.signal.aborted, durationMs: performance.now() - started };
}
