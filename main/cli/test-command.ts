/** `promptforge test [PATH…]`: loads the workspace's test files, runs their cases and reports. */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import type { Workspace } from '../core/catalog/workspace.js';
import type { WorkerPool } from '../core/run/worker-pool.js';
import type * as TestingModules from '../core/testing/suite.js';
import { parse } from './cli-args.js';
import { stopText, untilInterrupted, UsageError } from './cli-errors.js';
import { wordsFor } from '../core/surface-words.js';
import { forLauncher, type CliIo, type Printer } from './cli-io.js';
import { loadCatalogModules, workspaceRoot } from './cli-workspace.js';
import { TEST_EXIT } from './exit-codes.js';
import { shellWord, terminalSafeJson } from './terminal-text.js';
import { decideWorkspaceTrust } from './trust-command.js';

/** The test machinery, loaded only by this command. */
async function loadTesting() {
  const [suite, load, reporters, update, runCase] = await Promise.all([
    import('../core/testing/suite.js'),
    import('../core/testing/load-tests.js'),
    import('../core/testing/reporters.js'),
    import('../core/testing/update-expectations.js'),
    import('../core/testing/run-case.js'),
    // The environments shipped with PromptForge register themselves when loaded.
    import('../core/agentdojo/environments.js'),
  ]);
  return { suite, load, reporters, update, runCase };
}

/** What `--model` names, split and checked against models.yaml. */
function modelList(flag: string | undefined, workspace: Workspace): string[] | undefined {
  if (flag === undefined) return undefined;
  const models = [...new Set(flag.split(',').map((model) => model.trim()))];
  if (models.some((model) => model === ''))
    throw new UsageError(`--model needs model aliases separated by commas, got "${flag}"`);
  const known = workspace.models.list().map((model) => model.alias);
  for (const model of models)
    if (!workspace.models.get(model)) throw new UsageError(wordsFor('cli').unknownModel(model, known));
  return models;
}

function positiveInteger(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1)
    throw new UsageError(`${flag} must be a whole number of 1 or more, got "${value}"`);
  return number;
}

export async function testCommand(args: string[], io: CliIo, print: Printer, interrupt: AbortSignal): Promise<number> {
  const { values, positionals } = parse('test', args, {
    workspace: { type: 'string' },
    filter: { type: 'string' },
    model: { type: 'string' },
    jobs: { type: 'string' },
    json: { type: 'boolean' },
    junit: { type: 'string' },
    update: { type: 'boolean' },
  });
  const jobs = positiveInteger('--jobs', values.jobs) ?? availableParallelism();
  if (values.update && values.model !== undefined)
    throw new UsageError("--update records what each case's own model did; drop --model to use it");
  const first = positionals[0] === undefined ? undefined : path.resolve(io.cwd, positionals[0]);
  const found = await workspaceRoot(io, values.workspace, [...(first ? [path.dirname(first), first] : []), io.cwd]);
  if (!found)
    throw new UsageError(
      'promptforge test runs in a workspace (a folder with promptforge.yaml, tools.yaml or models.yaml); pass --workspace DIR or run it inside one',
    );
  const catalog = await loadCatalogModules();
  let workspace = await catalog.loadWorkspace(found);
  for (const problem of workspace.problems) print.err(catalog.formatProblem(problem));
  const testing = await loadTesting();
  const { files, missing, otherWorkspaces } = testing.load.findTestFiles(found, io.cwd, positionals);
  if (missing.length > 0) throw new UsageError(`no such test file or folder: ${missing.join(', ')}`);
  if (files.length === 0 && otherWorkspaces.length > 0)
    throw new UsageError(
      `no test files of the workspace ${path.relative(io.cwd, found) || '.'} there: ${otherWorkspaces
        .map((dir) => path.relative(io.cwd, dir))
        .join(', ')} ${otherWorkspaces.length === 1 ? 'is a workspace' : 'are workspaces'} of its own; test ${
        otherWorkspaces.length === 1 ? 'it' : 'each'
      } with: ${otherWorkspaces.map((dir) => forLauncher(`promptforge test --workspace ${shellWord(path.relative(io.cwd, dir))}`, io.env)).join(' ; ')}`,
    );
  if (files.length === 0)
    throw new UsageError(
      `no test files: ${positionals.length ? positionals.join(' ') : `${path.join(found, catalog.TESTS_DIR)}`} holds no .yaml file (docs/testing.md shows the format)`,
    );
  const models = modelList(values.model, workspace);

  const loadCases = async (from: Workspace) => {
    const problems: import('../core/testing/load-tests.js').TestProblem[] = [];
    const taken = new Set<string>();
    const cases = [];
    for (const file of files) cases.push(...(await testing.load.loadTestFile(from, file, problems, taken)));
    return { cases, problems };
  };
  let { cases, problems } = await loadCases(workspace);
  if (problems.length > 0) {
    for (const problem of problems) print.err(catalog.formatProblem(problem));
    print.say(`${problems.length} problem(s) in the test files; nothing ran`);
    return TEST_EXIT.usage;
  }
  const filter = values.filter?.toLowerCase();
  const selected = (list: typeof cases) =>
    filter === undefined
      ? list
      : list.filter((testCase) => `${testCase.file}\n${testCase.name}\n${testCase.id}`.toLowerCase().includes(filter));
  cases = selected(cases);
  if (cases.length === 0)
    throw new UsageError(
      `no case matches --filter "${values.filter}"; the test files hold ${files.length} file(s) of cases`,
    );

  // A suite of replays only runs nothing of the workspace (as `run --replay`): it is not asked about.
  const offline =
    models === undefined &&
    cases.every((testCase) => typeof testCase.spec.model === 'object' && 'recording' in testCase.spec.model);
  const decided = offline
    ? undefined
    : await untilInterrupted(
        decideWorkspaceTrust(workspace, io, print, { restricted: false, what: 'test it', offerRestricted: false }),
        interrupt,
      );
  if (decided && decided.workspace !== workspace) {
    // The person trusted the workspace as it is now: the cases are read again against it.
    workspace = decided.workspace;
    ({ cases, problems } = await loadCases(workspace));
    if (problems.length > 0) {
      for (const problem of problems) print.err(catalog.formatProblem(problem));
      return TEST_EXIT.usage;
    }
    cases = selected(cases);
  }
  if (interrupt.aborted) {
    print.say(`${stopText(interrupt)} before any case ran`);
    return TEST_EXIT.interrupted;
  }

  const suiteRunId = testing.suite.newSuiteRunId();
  const folder = path.join(workspace.root, testing.suite.TEST_RUNS_DIR, suiteRunId);
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const ownPool = io.pool ? undefined : await startPool(jobs);
  const pool = io.pool ?? ownPool!;
  const tty = (io.stderr as { isTTY?: boolean }).isTTY === true && !values.json;
  const counts = { passed: 0, failed: 0 };
  const shownPath = (file: string) => {
    const relative = path.relative(io.cwd, file);
    return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
  };
  const replayHint = (result: import('../core/testing/run-case.js').CaseResult) => {
    if (!result.run?.transcript) return undefined;
    const testCase = cases.find((c) => c.id === result.id);
    const agent = testCase ? path.join(workspace.root, testCase.spec.agent) : 'AGENT';
    return `replay: ${forLauncher(`promptforge run ${shellWord(shownPath(agent))} --replay ${shellWord(shownPath(result.run.transcript))}`, io.env)}`;
  };
  // The rules machinery (YAML, RE2) loads only for the commands that run something.
  const rulesModule = await import('./rules-command.js');
  const ruleUsage = rulesModule.ruleUsage(io);
  const warned = new Set<string>();
  const warnOnce = (text: string) => {
    if (warned.has(text)) return;
    warned.add(text);
    print.err(text);
  };
  let suite: TestingModules.SuiteResult;
  try {
    suite = await testing.suite.runSuite({
      workspace,
      pool,
      trust: { state: decided?.state ?? 'empty', ...(decided && { store: decided.store }), via: 'terminal' },
      secrets: io.secrets(),
      env: io.env,
      rules: {
        store: rulesModule.ruleStore(io),
        usage: ruleUsage,
        definitions: rulesModule.ruleDefinitions(io),
        onWarning: (text) => warnOnce(text),
      },
      cases,
      ...(models && { models }),
      concurrency: jobs,
      folder,
      signal: interrupt,
      keepObserved: values.update === true,
      onResult: (result, done, total) => {
        if (result.outcome === 'passed') counts.passed += 1;
        else counts.failed += 1;
        if (tty) io.stderr.write(`\r\x1b[K[${done}/${total}] ${counts.passed} passed, ${counts.failed} failed`);
      },
    });
  } finally {
    if (tty) io.stderr.write('\r\x1b[K');
    if (ownPool) await ownPool.close();
    await ruleUsage.flush();
  }

  const { reporters } = testing;
  const report = reporters.jsonReport(suite, { suiteRunId, folder });
  writeFileSync(path.join(folder, 'report.json'), `${JSON.stringify(report, null, 2)}\n`, { mode: 0o600 });
  if (values.junit !== undefined) {
    const junitFile = path.resolve(io.cwd, values.junit);
    mkdirSync(path.dirname(junitFile), { recursive: true });
    writeFileSync(
      junitFile,
      reporters.junitXml(suite, { suiteRunId, timestamp: new Date().toISOString(), byModel: models !== undefined }),
    );
  }

  const updates = values.update && !suite.interrupted ? applyUpdates(testing, workspace.root, cases, suite, print) : [];
  const summary = reporters.countResults(suite);
  if (values.json) io.stdout.write(`${terminalSafeJson({ ...report, ...(values.update && { updates }) })}\n`);
  else {
    for (const result of suite.results)
      if (result.outcome !== 'passed')
        for (const line of reporters.caseLines(result, { replay: replayHint })) print.out(line);
    if (models) for (const line of reporters.comparisonTable(suite.results, models)) print.out(line);
    for (const diff of updates) for (const line of diff.lines) print.out(line);
    print.out(
      `${summary.passed} passed, ${summary.failed} failed, ${summary.errors} could not run${summary.notRun ? `, ${summary.notRun} not run` : ''} (${summary.total} in all, ${(suite.durationMs / 1000).toFixed(1)} s)`,
    );
    print.say(`transcripts and report.json in ${shownPath(folder)}`);
  }
  if (suite.interrupted) {
    print.say(`${stopText(interrupt)}: running cases were stopped; the partial report is written`);
    return TEST_EXIT.interrupted;
  }
  return summary.failed + summary.errors > 0 ? TEST_EXIT.failed : TEST_EXIT.passed;
}

/** `--update`: each failing case's observed run written into its file; the diffs, to be printed. */
function applyUpdates(
  testing: Awaited<ReturnType<typeof loadTesting>>,
  root: string,
  cases: readonly import('../core/testing/load-tests.js').LoadedCase[],
  suite: TestingModules.SuiteResult,
  print: Printer,
): { file: string; lines: string[] }[] {
  const byFile = new Map<string, { index: number; result: (typeof suite.results)[number] }[]>();
  for (const result of suite.results) {
    if (result.outcome !== 'failed' || !result.observed) continue;
    const testCase = cases.find((c) => c.id === result.id);
    if (!testCase) continue;
    const list = byFile.get(testCase.file) ?? [];
    list.push({ index: testCase.index, result });
    byFile.set(testCase.file, list);
  }
  const diffs: { file: string; lines: string[] }[] = [];
  for (const [file, updates] of byFile) {
    const absolute = path.resolve(root, file);
    const before = readFileSync(absolute, 'utf8');
    const after = testing.update.updatedTestFile(before, updates);
    const lines = testing.update.lineDiff(before, after, file);
    if (lines.length === 0) continue;
    writeFileSync(absolute, after);
    diffs.push({ file, lines });
    print.say(`--update wrote new expectations for ${updates.length} case(s) into ${file} (the diff is printed)`);
  }
  if (byFile.size === 0) print.say('--update: no failing case, nothing to write');
  return diffs;
}

/** A pool of `size` Lua workers, already warming. */
async function startPool(size: number): Promise<WorkerPool> {
  const { WorkerPool } = await import('../core/run/worker-pool.js');
  const pool = new WorkerPool({ size });
  pool.prewarm();
  return pool;
}
