/**
 * The shapes of agent tests on the IPC contract (the studio's Tests view): the workspace's test
 * files and their cases, a suite run's progress, and each case's result with the assertions that
 * failed (expected, actual, and the step of the run where it diverged). The runner is the one
 * `promptforge test` uses (main/core/testing); docs/testing.md describes the files.
 *
 * @module
 */
import { z } from 'zod';
import { CatalogProblemSchema } from './studio-schemas.js';

/** Where in a case's run an assertion diverged: the event (`seq`, the step a fork names), its round and call. */
const TestStepSchema = z.object({
  seq: z.number().int().nonnegative(),
  round: z.number().int().nonnegative().optional(),
  call: z.number().int().positive().optional(),
  /** Judged on the whole run once it ended: `seq` is its run-end event. */
  afterRun: z.literal(true).optional(),
});

/** One assertion that did not hold. */
export const TestFailureSchema = z.object({
  /** The assertion's field in the case, e.g. `expect.calls[2].arguments`. */
  field: z.string(),
  expected: z.string(),
  actual: z.string(),
  step: TestStepSchema.optional(),
  /** The step in words, as the terminal report says it (`at event 12 (round 2, call 2)`). */
  where: z.string().nullable(),
});

/** How one case went. */
export const TestCaseResultSchema = z.object({
  /** Unique in the workspace: `file-stem/case-slug`. */
  id: z.string(),
  name: z.string(),
  file: z.string(),
  line: z.number().int(),
  /** The model that answered, as the report names it. */
  model: z.string(),
  outcome: z.enum(['passed', 'failed', 'error']),
  failures: z.array(TestFailureSchema),
  /** Why the case could not run (outcome `error`). */
  error: z.string().optional(),
  /** Its run, when it ran: `runId` opens its transcript in the conversation view (`history:page`). */
  run: z
    .object({
      runId: z.string(),
      status: z.enum(['ok', 'error', 'stopped', 'limit']),
      error: z.string().optional(),
      rounds: z.number().int().nonnegative(),
      tokens: z.number().nonnegative(),
      durationMs: z.number().nonnegative(),
    })
    .optional(),
});

/** A case of a test file, before it runs. */
const TestCaseSummarySchema = z.object({
  id: z.string(),
  name: z.string(),
  line: z.number().int(),
  /** The agent it runs (workspace-relative). */
  agent: z.string(),
  /** Who answers it: `scripted`, `replay FILE`, a models.yaml alias, `ENVIRONMENT/MODEL`. */
  model: z.string(),
});

/** A test file of the workspace: its cases, or the mistakes that keep them from running. */
export const TestFileInfoSchema = z.object({
  /** Workspace-relative, forward slashes (`tests/examples.yaml`). */
  file: z.string(),
  cases: z.array(TestCaseSummarySchema),
  problems: z.array(CatalogProblemSchema),
});

/** Counts of a suite run's results so far. */
const TestCountsSchema = z.object({
  passed: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
  errors: z.number().int().nonnegative(),
  notRun: z.number().int().nonnegative(),
});

/** Where a suite run stands. */
const TestSuiteStateSchema = z.object({
  suiteRunId: z.string(),
  /** Where its transcripts and report.json are, workspace-relative (`runs/tests/suite-…`). */
  folder: z.string(),
  state: z.enum(['running', 'finished', 'stopped']),
  total: z.number().int().nonnegative(),
  done: z.number().int().nonnegative(),
  counts: TestCountsSchema,
  /** Why the run stopped when the host itself failed (a full disk), not a case. */
  error: z.string().optional(),
});

/**
 * The newest suite run recorded in the workspace before this session (its report.json under
 * `runs/tests/`, by the studio or `promptforge test`): its results for the cases that still exist.
 */
const EarlierSuiteSchema = z.object({
  suiteRunId: z.string(),
  /** Where its transcripts and report.json are, workspace-relative (`runs/tests/suite-…`). */
  folder: z.string(),
  /** When it ran (ISO 8601, from its id). */
  time: z.string(),
  /** It was stopped before every case ran. */
  interrupted: z.boolean(),
  results: z.array(TestCaseResultSchema),
});

/** `tests:list`: the test files, this session's latest suite run with its results so far, and an earlier session's. */
export const TestsListingSchema = z.object({
  /** The folder test files live in, workspace-relative (`tests`). */
  folder: z.string(),
  files: z.array(TestFileInfoSchema),
  suite: TestSuiteStateSchema.extend({ results: z.array(TestCaseResultSchema) }).nullable(),
  /** The newest suite run of an earlier session, when its report is there and valid. */
  earlier: EarlierSuiteSchema.nullable(),
});

/** `tests-progress`: a suite run started, a case finished (`result`), or the run ended. */
export const TestsProgressSchema = TestSuiteStateSchema.extend({ result: TestCaseResultSchema.optional() });

export type TestStep = z.infer<typeof TestStepSchema>;
export type TestFailureInfo = z.infer<typeof TestFailureSchema>;
export type TestCaseResultInfo = z.infer<typeof TestCaseResultSchema>;
export type TestCaseSummary = z.infer<typeof TestCaseSummarySchema>;
export type TestFileInfo = z.infer<typeof TestFileInfoSchema>;
export type TestSuiteState = z.infer<typeof TestSuiteStateSchema>;
export type TestsListing = z.infer<typeof TestsListingSchema>;
export type EarlierSuite = z.infer<typeof EarlierSuiteSchema>;
export type TestsProgress = z.infer<typeof TestsProgressSchema>;
