/** The Tests view's words and choices, pure (the e2e logic tests check them). */
import type { TestCaseResultInfo, TestFailureInfo, TestSuiteState } from '../../../common/test-schemas.js';

/** How a case stands in the list. */
export type CaseStatus = 'passed' | 'failed' | 'error' | 'queued' | 'not-run';

export const statusLabel: Record<CaseStatus, string> = {
  passed: 'passed',
  failed: 'failed',
  error: 'could not run',
  queued: 'queued',
  'not-run': 'not run',
};

/** A case's status: its latest result, queued while the running suite has still to finish it, else not run. */
export function caseStatus(
  id: string,
  results: ReadonlyMap<string, TestCaseResultInfo>,
  queued: ReadonlySet<string>,
): CaseStatus {
  if (queued.has(id)) return 'queued';
  return results.get(id)?.outcome ?? 'not-run';
}

/**
 * The failure where the run first went another way than the case expected: of the failures that
 * name a step, the one with the earliest event (an assertion judged after the run comes last).
 */
export function divergingFailure(result: TestCaseResultInfo): TestFailureInfo | undefined {
  let first: TestFailureInfo | undefined;
  for (const failure of result.failures) {
    if (!failure.step) continue;
    if (!first?.step || failure.step.seq < first.step.seq) first = failure;
  }
  return first;
}

/** `3 of 4 cases · 2 passed, 1 failed` (and how the run ended, once it did). */
export function progressText(suite: TestSuiteState): string {
  const { passed, failed, errors, notRun } = suite.counts;
  const parts = [`${passed} passed`, `${failed} failed`];
  if (errors > 0) parts.push(`${errors} could not run`);
  if (notRun > 0) parts.push(`${notRun} not run`);
  const state = suite.state === 'running' ? '' : suite.state === 'stopped' ? ' · stopped' : ' · finished';
  return `${suite.done} of ${suite.total} case${suite.total === 1 ? '' : 's'} · ${parts.join(', ')}${state}`;
}
