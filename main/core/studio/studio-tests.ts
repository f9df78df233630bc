/**
 * Agent tests in the studio: the open workspace's test files and cases, a suite run of all, one
 * file's or one case, with `promptforge test`'s own runner (main/core/testing) on the studio's
 * workers, its progress pushed as `tests-progress`, and its transcripts under `runs/tests/SUITE/`
 * like the CLI's (never in History; the studio opens them by run id, see StudioHistory).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ContractEventName, ContractEventPayload, ContractRequest } from '../../../common/contract.js';
import type {
  TestCaseResultInfo,
  TestCaseSummary,
  TestFileInfo,
  TestsListing,
  TestSuiteState,
} from '../../../common/test-schemas.js';
import { TESTS_DIR, type Workspace } from '../catalog/workspace.js';
import type { SecretStore } from '../credentials/secret-store.js';
import type { WorkerPool } from '../run/worker-pool.js';
import { errorMessage } from '../../../common/error-message.js';
import { findTestFiles, loadTestFile, type LoadedCase, type TestProblem } from '../testing/load-tests.js';
import { jsonReport, stepPhrase } from '../testing/reporters.js';
import { caseModelLabel, type CaseResult } from '../testing/run-case.js';
import type { SpendingLimits } from '../testing/run-case.js';
import type { SpendingCap } from './spending-cap.js';
import { newSuiteRunId, runSuite, TEST_RUNS_DIR, type SuiteOptions } from '../testing/suite.js';
import { ContractError } from './contract-error.js';
import { NO_PRESS } from './person-input.js';
import type { StudioHistory } from './studio-history.js';
import type { StudioTrust } from './studio-trust.js';
import { readEarlierResults } from './earlier-test-results.js';
import { createTestFile } from './test-file-create.js';

/** What the tests part needs from the studio service. */
export interface StudioTestsHost {
  /** The person's approval rules, applied to every case as `promptforge test` applies them. */
  rules: NonNullable<SuiteOptions['rules']>;
  pool: WorkerPool;
  secrets: SecretStore;
  trust: StudioTrust;
  history: StudioHistory;
  emit: <E extends ContractEventName>(event: E, payload: ContractEventPayload<E>) => void;
  /** The open workspace; refuses when none is. */
  requireWorkspace(): Workspace;
  /** The open workspace, if any. */
  workspace(): Workspace | undefined;
  /** Judges the open workspace's trust again just before something of it may run. */
  judgeAgain(ws: Workspace): Promise<void>;
  /** The person's spending cap, which every case runs under as every run of the studio does. */
  spendingCap: SpendingCap;
}

/** How many cases run at once: the studio's workers are shared with the person's own runs. */
const STUDIO_TEST_CONCURRENCY = 2;

/** What a suite run is, while it runs and after. */
interface SuiteRun {
  root: string;
  state: TestSuiteState;
  results: TestCaseResultInfo[];
  controller: AbortController;
  done: Promise<void>;
}

/** Why tests do not run in a restricted workspace, and how to change it. */
const RESTRICTED_TESTS_MESSAGE =
  "This workspace is in Restricted mode, and tests never run restricted: a restricted run is not the workspace's own (its command tools, MCP servers and secrets would be off, and every call that asks would be denied), so its results would say nothing. Review and trust the workspace (Review and trust… under the header), then run the tests again.";

export class StudioTests {
  private suite: SuiteRun | undefined;
  /** The page listed the tests: file changes are then pushed to it. */
  private followed = false;
  private environments: Promise<unknown> | undefined;
  /** The suite runs this session started, by workspace folder: never shown as an earlier session's. */
  private readonly ownSuites = new Map<string, Set<string>>();

  constructor(private readonly host: StudioTestsHost) {}

  /** The test files and cases of the open workspace, and this session's latest suite run. */
  async list(): Promise<TestsListing> {
    const ws = this.host.requireWorkspace();
    this.followed = true;
    const { files, cases } = await this.load(ws);
    const suite = this.suite?.root === ws.root ? this.suite : undefined;
    // A report that cannot be read is no earlier session's results: the listing never fails for it.
    const earlier = await readEarlierResults(ws.root, cases, this.ownSuites.get(ws.root) ?? new Set(), (runId, file) =>
      this.host.history.adoptTestRun(runId, file),
    ).catch(() => null);
    return {
      folder: TESTS_DIR,
      files,
      suite: suite ? { ...suite.state, results: [...suite.results] } : null,
      earlier,
    };
  }

  /**
   * "New test file…": writes `tests/NAME.yaml` with a starter case for `agent` (else the workspace's
   * first agent). Writing runs nothing, so a restricted workspace may too. See createTestFile.
   */
  async create(request: ContractRequest<'tests:create'>): Promise<{ file: string }> {
    const ws = this.host.requireWorkspace();
    const created = await createTestFile(ws.root, ws.agents, request.name, request.agent);
    // The page that follows the tests sees the new file at once (the watcher says so again later).
    await this.workspaceChanged(ws);
    return created;
  }

  /** The workspace changed on disk (or here): its test files are listed again, for a page that follows them. */
  async workspaceChanged(ws: Workspace): Promise<void> {
    if (!this.followed) return;
    const { files } = await this.load(ws);
    if (this.host.workspace() === ws) this.host.emit('tests-changed', { files });
  }

  /** Runs every case, one file's (`file`), or one case (`caseId`); returns at once, results follow as events. */
  async run(request: ContractRequest<'tests:run'>): Promise<{ suiteRunId: string; total: number }> {
    const ws = this.host.requireWorkspace();
    if (this.suite?.state.state === 'running')
      throw new ContractError('tests-running', 'a test run is in progress: stop it, or wait for it to end');
    await this.host.judgeAgain(ws);
    const { files, cases, problems } = await this.load(ws);
    const wanted = request.file?.split('\\').join('/');
    if (wanted !== undefined && !files.some((file) => file.file === wanted))
      throw new ContractError(
        'no-tests',
        `${wanted} is not a test file of this workspace (they are under ${TESTS_DIR}/)`,
      );
    const blocking = problems.filter((problem) => wanted === undefined || problem.file === wanted);
    if (blocking.length > 0 && request.case === undefined)
      throw new ContractError(
        'test-file-problems',
        `${blocking.length} mistake(s) in the test files, first ${blocking[0]!.file}:${blocking[0]!.line}: ${blocking[0]!.message}; fix them, then run again`,
      );
    const selected = cases.filter(
      (testCase) =>
        (wanted === undefined || testCase.file === wanted) &&
        (request.case === undefined || testCase.id === request.case),
    );
    if (selected.length === 0)
      throw new ContractError(
        'no-tests',
        request.case !== undefined
          ? `no case "${request.case}" in the test files (they may have changed): list them again`
          : `no cases to run: add a test file under ${TESTS_DIR}/ (docs/testing.md shows the format)`,
      );
    // Replaying recordings runs nothing of the workspace (as `promptforge test` says); anything else
    // would run restricted, which a test never does.
    const offline = selected.every(
      (testCase) => typeof testCase.spec.model === 'object' && 'recording' in testCase.spec.model,
    );
    if (!this.host.trust.trusted && !offline) throw new ContractError('workspace-restricted', RESTRICTED_TESTS_MESSAGE);
    // Read now: a cap that cannot be read stops the suite before anything runs, as it stops a run.
    const cap = await this.host.spendingCap.limits();
    return this.start(ws, selected, cap);
  }

  private start(ws: Workspace, cases: LoadedCase[], cap: SpendingLimits): { suiteRunId: string; total: number } {
    const suiteRunId = newSuiteRunId();
    const folder = path.join(ws.root, TEST_RUNS_DIR, suiteRunId);
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const controller = new AbortController();
    const state: TestSuiteState = {
      suiteRunId,
      folder: path.posix.join(TEST_RUNS_DIR.split(path.sep).join('/'), suiteRunId),
      state: 'running',
      total: cases.length,
      done: 0,
      counts: { passed: 0, failed: 0, errors: 0, notRun: 0 },
    };
    const suite: SuiteRun = { root: ws.root, state, results: [], controller, done: Promise.resolve() };
    const own = this.ownSuites.get(ws.root) ?? new Set<string>();
    own.add(suiteRunId);
    this.ownSuites.set(ws.root, own);
    this.suite = suite;
    const trust = this.host.trust;
    const run = async () => {
      try {
        const finished = await runSuite({
          workspace: ws,
          pool: this.host.pool,
          // A suite runs long after the call that started it was answered: a case's model at a new
          // origin is refused, never asked about (main's dialogs need the person's press).
          trust: {
            state: trust.state,
            store: trust.store,
            confirmKeyOrigin: trust.keyOriginAsker(ws, NO_PRESS),
            keyOriginNote: trust.keyOriginNote(ws),
            via: 'studio',
          },
          secrets: this.host.secrets,
          rules: this.host.rules,
          surface: 'studio',
          cap,
          cases,
          concurrency: STUDIO_TEST_CONCURRENCY,
          folder,
          signal: controller.signal,
          onResult: (result, done) => {
            if (result.run?.transcript) this.host.history.addTestRun(result.run.runId, result.run.transcript);
            const info = resultInfo(result);
            suite.results.push(info);
            state.done = done;
            state.counts = countsOf(suite.results, 0);
            this.host.emit('tests-progress', { ...state, result: info });
          },
        });
        state.counts = countsOf(suite.results, finished.notRun.length);
        state.state = finished.interrupted ? 'stopped' : 'finished';
        // As `promptforge test` writes it, so the folder reads the same whoever ran it.
        writeFileSync(
          path.join(folder, 'report.json'),
          `${JSON.stringify(jsonReport(finished, { suiteRunId, folder }), null, 2)}\n`,
          { mode: 0o600 },
        );
      } catch (error) {
        // The runner reports a case's own problems as its result; this is the host failing (a full disk).
        state.state = 'stopped';
        state.error = `the test run stopped: ${errorMessage(error)}`;
      } finally {
        this.host.emit('tests-progress', { ...state });
      }
    };
    suite.done = run();
    this.host.emit('tests-progress', { ...state });
    return { suiteRunId, total: cases.length };
  }

  /** Stops the running suite: running cases stop, the rest never start. */
  stop(): { stopped: boolean } {
    if (this.suite?.state.state !== 'running') return { stopped: false };
    this.suite.controller.abort();
    return { stopped: true };
  }

  /** Another workspace is being opened, or the studio closes: the running suite stops and is forgotten. */
  async forget(): Promise<void> {
    const suite = this.suite;
    this.suite = undefined;
    this.followed = false;
    if (!suite) return;
    suite.controller.abort();
    await suite.done.catch(() => undefined);
  }

  /** Every test file under tests/, its cases (summarised) and its mistakes. */
  private async load(ws: Workspace): Promise<{ files: TestFileInfo[]; cases: LoadedCase[]; problems: TestProblem[] }> {
    // The environments PromptForge ships (AgentDojo's suites) register themselves when loaded.
    this.environments ??= import('../agentdojo/environments.js');
    await this.environments;
    const { files: paths } = findTestFiles(ws.root, ws.root, []);
    const taken = new Set<string>();
    const files: TestFileInfo[] = [];
    const cases: LoadedCase[] = [];
    const problems: TestProblem[] = [];
    for (const absolute of paths) {
      const mine: TestProblem[] = [];
      const loaded = await loadTestFile(ws, absolute, mine, taken);
      const file = path.relative(ws.root, absolute).split(path.sep).join('/');
      files.push({ file, cases: loaded.map(summary), problems: mine });
      cases.push(...loaded);
      problems.push(...mine);
    }
    return { files, cases, problems };
  }
}

function summary(testCase: LoadedCase): TestCaseSummary {
  return {
    id: testCase.id,
    name: testCase.name,
    line: testCase.line,
    agent: testCase.spec.agent,
    model: caseModelLabel(testCase),
  };
}

/** A case's result as the page sees it: its transcript by run id (never a path), each step in words. */
function resultInfo(result: CaseResult): TestCaseResultInfo {
  return {
    id: result.id,
    name: result.name,
    file: result.file,
    line: result.line,
    model: result.model,
    outcome: result.outcome,
    failures: result.failures.map((failure) => ({
      field: failure.field,
      expected: failure.expected,
      actual: failure.actual,
      ...(failure.step && { step: failure.step }),
      where: failure.step ? stepPhrase(failure.step) : null,
    })),
    ...(result.error !== undefined && { error: result.error }),
    ...(result.run && {
      run: {
        runId: result.run.runId,
        status: result.run.status,
        ...(result.run.error !== undefined && { error: result.run.error }),
        rounds: result.run.rounds,
        tokens: result.run.tokens,
        durationMs: result.run.durationMs,
      },
    }),
  };
}

function countsOf(results: readonly TestCaseResultInfo[], notRun: number): TestSuiteState['counts'] {
  const counts = { passed: 0, failed: 0, errors: 0, notRun };
  for (const result of results) {
    if (result.outcome === 'passed') counts.passed += 1;
    else if (result.outcome === 'failed') counts.failed += 1;
    else counts.errors += 1;
  }
  return counts;
}
