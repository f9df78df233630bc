/**
 * The Tests view's results from an earlier session: the newest valid report.json under
 * `runs/tests/` (written by the studio or `promptforge test`), read as untrusted input (a cloned
 * workspace's file): size capped, checked against the schema, and kept only for cases that still
 * exist with the same file and name, each case's transcript found where the suite records it.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import {
  TestCaseResultSchema,
  TestFailureSchema,
  type EarlierSuite,
  type TestCaseResultInfo,
} from '../../../common/test-schemas.js';
import { readAtMost } from '../files/regular-file.js';
import type { LoadedCase } from '../testing/load-tests.js';
import { stepPhrase } from '../testing/reporters.js';
import { caseTranscriptPath, TEST_RUNS_DIR } from '../testing/suite.js';
import { checkInsideWorkspace, openInsideWorkspace } from '../tools/workspace-path.js';

/**
 * Largest report.json read: a bigger one is not an earlier session's results. It is also what a
 * listing reads of all the reports it tries together (parsing and checking them is main's time).
 */
export const MAX_REPORT_BYTES = 8 << 20;
/** How many suite folders, newest first, are tried before giving up. */
const MAX_REPORTS_TRIED = 10;
/** A suite run's folder name, as newSuiteRunId makes it: `suite-2025-01-31T09-15-00-000Z-a1b2c3`. */
const SUITE_RUN_ID = /^suite-(\d{4}-\d\d-\d\d)T(\d\d)-(\d\d)-(\d\d)-(\d{3})Z-[0-9a-f]{6}$/;

/** One case's result as report.json holds it (jsonReport): the page's shape, its steps not yet in words. */
const ReportResultSchema = TestCaseResultSchema.extend({
  failures: z.array(TestFailureSchema.omit({ where: true })).max(1000),
});

/** The part of report.json the view shows, its results checked one by one ({@link readReport}). */
const ReportSchema = z.object({
  suiteRunId: z.string(),
  interrupted: z.boolean(),
  results: z.array(z.unknown()).max(100_000),
});
type Report = Omit<z.infer<typeof ReportSchema>, 'results'> & { results: z.infer<typeof ReportResultSchema>[] };

/** When a suite ran, from its id; undefined when the id is not one newSuiteRunId makes. */
function suiteTime(suiteRunId: string): string | undefined {
  const match = SUITE_RUN_ID.exec(suiteRunId);
  if (!match) return undefined;
  const [, day, hours, minutes, seconds, ms] = match;
  const time = new Date(`${day}T${hours}:${minutes}:${seconds}.${ms}Z`);
  return Number.isNaN(time.getTime()) ? undefined : time.toISOString();
}

/**
 * The newest suite run recorded in the workspace at `root` (other than `skip`, this session's) whose
 * report.json reads and is valid, with its results for `cases` (matched by id, file and name; the
 * first result of a case counts). A result keeps its run only when its transcript is where the
 * suite records that case and `adoptRun` takes its run id. Null when there is none.
 */
export async function readEarlierResults(
  root: string,
  cases: readonly LoadedCase[],
  skip: ReadonlySet<string>,
  adoptRun: (runId: string, file: string) => boolean,
): Promise<EarlierSuite | null> {
  const checked = checkInsideWorkspace(root, TEST_RUNS_DIR, { missing: 'refuse' });
  if (!checked.ok) return null;
  const entries = await fs.readdir(checked.real, { withFileTypes: true }).catch(() => []);
  const suites = entries
    .filter((entry) => entry.isDirectory() && !skip.has(entry.name) && suiteTime(entry.name) !== undefined)
    .map((entry) => entry.name)
    .sort()
    .reverse()
    .slice(0, MAX_REPORTS_TRIED);
  const budget = { left: MAX_REPORT_BYTES };
  for (const suiteRunId of suites) {
    const report = await readReport(root, suiteRunId, budget);
    if (report === undefined) continue;
    const folder = path.join(root, TEST_RUNS_DIR, suiteRunId);
    return {
      suiteRunId,
      folder: path.posix.join(TEST_RUNS_DIR.split(path.sep).join('/'), suiteRunId),
      time: suiteTime(suiteRunId)!,
      interrupted: report.interrupted,
      results: await matchResults(report.results, cases, folder, adoptRun),
    };
  }
  return null;
}

/**
 * `runs/tests/<suiteRunId>/report.json` parsed and valid, naming that suite; else undefined. What
 * it reads comes off `budget`; a report bigger than what is left is not read. The results are
 * checked in turn, up to the first that is not valid (a schema check of a whole hostile array
 * spends seconds on an issue for every field).
 */
async function readReport(root: string, suiteRunId: string, budget: { left: number }): Promise<Report | undefined> {
  let opened;
  try {
    opened = await openInsideWorkspace(root, path.join(TEST_RUNS_DIR, suiteRunId, 'report.json'), 'file');
  } catch {
    return undefined;
  }
  let bytes: Buffer;
  try {
    const limit = Math.min(MAX_REPORT_BYTES, budget.left);
    if (opened.stat.size > limit) return undefined;
    bytes = await readAtMost(opened.handle, limit + 1);
    budget.left -= bytes.length;
  } catch {
    return undefined;
  } finally {
    await opened.handle.close();
  }
  if (budget.left < 0) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
  const parsed = ReportSchema.safeParse(raw);
  if (!parsed.success || parsed.data.suiteRunId !== suiteRunId) return undefined;
  const results: Report['results'] = [];
  for (const item of parsed.data.results) {
    const result = ReportResultSchema.safeParse(item);
    if (!result.success) return undefined;
    results.push(result.data);
  }
  return { ...parsed.data, results };
}

async function matchResults(
  results: readonly z.infer<typeof ReportResultSchema>[],
  cases: readonly LoadedCase[],
  folder: string,
  adoptRun: (runId: string, file: string) => boolean,
): Promise<TestCaseResultInfo[]> {
  const byId = new Map(cases.map((testCase) => [testCase.id, testCase]));
  const seen = new Set<string>();
  const matched: TestCaseResultInfo[] = [];
  for (const result of results) {
    const testCase = byId.get(result.id);
    // Another case's name or file under this id would show its result as this one's.
    if (!testCase || seen.has(testCase.id) || testCase.file !== result.file || testCase.name !== result.name) continue;
    seen.add(testCase.id);
    const { run, ...rest } = result;
    const info: TestCaseResultInfo = {
      ...rest,
      // The case's own place now (the report's line may be older).
      line: testCase.line,
      failures: result.failures.map((failure) => ({
        ...failure,
        where: failure.step ? stepPhrase(failure.step) : null,
      })),
    };
    if (run) {
      // Where the suite records this case: never a path the report names.
      const transcript = caseTranscriptPath(folder, testCase, undefined);
      const stat = await fs.lstat(transcript).catch(() => undefined);
      if (stat?.isFile() && adoptRun(run.runId, transcript)) info.run = run;
    }
    matched.push(info);
  }
  return matched;
}
