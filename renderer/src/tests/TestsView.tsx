import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { TestCaseResultInfo, TestCaseSummary, TestFailureInfo } from '../../../common/test-schemas.js';
import { MINIMAL_TEST_FILE } from '../../../common/test-example.js';
import { checkFileName, TEST_FILE_NAME } from '../../../common/file-name.js';
import { InertText } from '../shell/InertText';
import { describeError, StudioCallError, useStudioEvent } from '../shell/studio-api';
import { ReviewTrustButton } from '../trust/ReviewTrustButton';
import { AgentNameDialog } from '../workspace/AgentFileDialogs';
import { caseStatus, divergingFailure, progressText, statusLabel, type CaseStatus } from './tests-logic';
import { testsStore, useTests } from './tests-store';
import './tests.css';

/** Opens a case's run in the conversation view, at the step given (where it diverged). */
type OpenRun = (runId: string, focus?: { seq: number; label: string }) => void;

function StatusBadge({ status, earlier = false }: { status: CaseStatus; earlier?: boolean }) {
  return (
    <span className={`test-status test-status-${status}`}>
      {statusLabel[status]}
      {earlier ? ' (earlier)' : ''}
    </span>
  );
}

/** When an earlier session's suite ran, in the person's own words for dates. */
function earlierTime(time: string): string {
  return new Date(time).toLocaleString();
}

/** The file the dialog names: `tests/NAME.yaml`. */
const TEST_FILE = {
  label: 'Test file name',
  folder: 'tests/',
  extension: '.yaml',
  hint: (
    <>
      Letters, digits, - and _ (a dot inside too); the file is <code>tests/NAME.yaml</code>, and never replaces one that
      is there.
    </>
  ),
};

/** One assertion that did not hold: which, where the run diverged, expected and actual. */
function FailureEntry({
  failure,
  runId,
  onOpenRun,
}: {
  failure: TestFailureInfo;
  runId: string | undefined;
  onOpenRun: OpenRun;
}) {
  const step = failure.step;
  return (
    <li className="test-failure">
      <div className="test-failure-head">
        <code className="test-failure-field">{failure.field}</code>
        {failure.where ? <span className="muted small">{failure.where}</span> : null}
        {step && runId ? (
          <button
            type="button"
            className="button button-small"
            onClick={() => onOpenRun(runId, { seq: step.seq, label: `${failure.field} ${failure.where ?? ''}`.trim() })}
            aria-label={`Show in the conversation: event ${step.seq} (${failure.field})`}
          >
            Show in the conversation
          </button>
        ) : null}
      </div>
      <dl className="test-values">
        <dt>Expected</dt>
        <dd>
          <InertText className="inert-text code-block" text={failure.expected} />
        </dd>
        <dt>Actual</dt>
        <dd>
          <InertText className="inert-text code-block" text={failure.actual} />
        </dd>
      </dl>
    </li>
  );
}

/** What is known of the selected case: where it is, its result, each failure, and its actions. */
function CaseDetails({
  testCase,
  file,
  result,
  status,
  running,
  earlier,
  onRun,
  onOpenRun,
}: {
  testCase: TestCaseSummary;
  file: string;
  result: TestCaseResultInfo | undefined;
  status: CaseStatus;
  running: boolean;
  /** When the result shown is an earlier session's: when it ran. */
  earlier: string | null;
  onRun: () => void;
  onOpenRun: OpenRun;
}) {
  const diverged = result ? divergingFailure(result) : undefined;
  const runId = result?.run?.runId;
  return (
    <section className="test-details" aria-labelledby="test-details-title">
      <h3 id="test-details-title" className="test-details-title">
        {testCase.name}
      </h3>
      <p className="muted small test-details-where">
        {file}:{testCase.line} · <code>{testCase.agent}</code> · {testCase.model}
      </p>
      <div className="button-row test-details-actions">
        <StatusBadge status={status} earlier={earlier !== null} />
        <button type="button" className="button button-small" disabled={running} onClick={onRun}>
          Run this case
        </button>
        {runId ? (
          <button
            type="button"
            className="button button-small"
            onClick={() =>
              onOpenRun(
                runId,
                diverged?.step
                  ? { seq: diverged.step.seq, label: `${diverged.field} ${diverged.where ?? ''}`.trim() }
                  : undefined,
              )
            }
          >
            {diverged?.step ? 'Open where it diverged' : 'Open its run'}
          </button>
        ) : null}
      </div>
      {result && earlier !== null ? (
        <p className="muted small test-earlier-note">From an earlier session: run {earlierTime(earlier)}.</p>
      ) : null}
      {result?.run ? (
        <p className="muted small">
          Run {result.run.status}
          {result.run.error ? `: ${result.run.error}` : ''} · {result.run.rounds} round
          {result.run.rounds === 1 ? '' : 's'} · {Math.round(result.run.durationMs)} ms
        </p>
      ) : null}
      {result?.error ? <p className="error-text">{result.error}</p> : null}
      {result && result.failures.length > 0 ? (
        <ol className="test-failures" aria-label="Assertions that did not hold">
          {result.failures.map((failure, index) => (
            <FailureEntry key={index} failure={failure} runId={runId} onOpenRun={onOpenRun} />
          ))}
        </ol>
      ) : null}
      {!result ? <p className="muted small">Not run in this session yet.</p> : null}
    </section>
  );
}

/** What the view shows before there is any test file: what one is, and one to start from. */
function NoTests({ folder, onNew }: { folder: string; onNew: () => void }) {
  return (
    <div className="tests-empty">
      <h3>No tests yet</h3>
      <p>
        <button type="button" className="button button-primary" onClick={onNew}>
          New test file…
        </button>
      </p>
      <p>
        A test file is a YAML file under <code>{folder}/</code>. Each case in it runs one agent against a model you
        choose (scripted replies written in the case, a recording, or a live model) under an approval policy, then
        checks what the run did: which tools it called and with what, what asked for approval, the final reply, the
        status. The studio lists the files here as soon as they are saved, and runs them with the same runner as{' '}
        <code>promptforge test</code>.
      </p>
      <p>
        New test file… writes one with a case for the agent you have open. Or, for the example workspace, save this as{' '}
        <code>{folder}/echo.yaml</code>:
      </p>
      <pre className="code-block tests-example">{MINIMAL_TEST_FILE}</pre>
      <p className="muted small">
        docs/testing.md describes every field, with a larger worked example (the example workspace ships
        tests/examples.yaml).
      </p>
    </div>
  );
}

/**
 * The Tests view: the workspace's test files and cases (one listbox, arrow keys move, one tab
 * stop), Run all, Run this case and Stop, the progress of a suite run, and for the selected case
 * its result with every failed assertion (expected, actual, and the step where the run diverged,
 * which opens in the conversation view with Fork from here at hand).
 */
export function TestsView({
  workspaceRoot,
  onOpenRun,
  activeAgent,
  onOpenFile,
}: {
  workspaceRoot: string;
  onOpenRun: OpenRun;
  /** The agent open in the editor: a new test file's case runs it (else main takes the first agent). */
  activeAgent: string | null;
  /** Shows a workspace file in the file viewer, focus in its text (the new test file). */
  onOpenFile: (path: string) => void;
}) {
  const tests = useTests();
  const [selected, setSelected] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  // Cancelled: focus goes back to the button that opened the dialog, once the modal dialog is gone.
  const opener = useRef<HTMLElement | null>(null);
  const restoreFocus = useRef(false);
  const openDialog = (): void => {
    opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    setCreating(true);
  };
  useEffect(() => {
    if (creating || !restoreFocus.current) return;
    restoreFocus.current = false;
    if (opener.current?.isConnected) opener.current.focus();
  }, [creating]);
  const options = useRef(new Map<string, HTMLElement>());

  useEffect(() => void testsStore.load(workspaceRoot), [workspaceRoot]);
  useStudioEvent('tests-progress', (event) => testsStore.progress(event));
  useStudioEvent('tests-changed', (event) => testsStore.filesChanged(event.files));

  const running = tests.suite?.state === 'running';
  const cases = tests.files.flatMap((file) => file.cases.map((testCase) => ({ file: file.file, testCase })));
  const current = cases.find((entry) => entry.testCase.id === selected) ?? cases[0];
  const statusOf = (id: string): CaseStatus => caseStatus(id, tests.results, tests.queued);
  const problems = tests.files.flatMap((file) => file.problems);

  const select = (id: string, focus: boolean): void => {
    setSelected(id);
    if (focus) options.current.get(id)?.focus();
  };
  const openCase = (id: string): void => {
    const result = tests.results.get(id);
    const runId = result?.run?.runId;
    if (!runId) return;
    const diverged = divergingFailure(result);
    onOpenRun(
      runId,
      diverged?.step
        ? { seq: diverged.step.seq, label: `${diverged.field} ${diverged.where ?? ''}`.trim() }
        : undefined,
    );
  };
  const onListKey = (event: KeyboardEvent<HTMLDivElement>): void => {
    if (!current) return;
    const at = cases.findIndex((entry) => entry.testCase.id === current.testCase.id);
    const to =
      event.key === 'ArrowDown'
        ? Math.min(at + 1, cases.length - 1)
        : event.key === 'ArrowUp'
          ? Math.max(at - 1, 0)
          : event.key === 'Home'
            ? 0
            : event.key === 'End'
              ? cases.length - 1
              : undefined;
    if (to !== undefined) {
      event.preventDefault();
      select(cases[to]!.testCase.id, true);
    } else if (event.key === 'Enter') {
      event.preventDefault();
      openCase(current.testCase.id);
    }
  };
  const runCases = (request: { file?: string; case?: string }, ids: string[]): void =>
    void testsStore.run(request, ids);

  /** Checked here as the person typed it, then by main, which writes it; the new file then opens. */
  const createFile = async (name: string): Promise<string | null> => {
    const checked = checkFileName(name, TEST_FILE_NAME);
    if ('problem' in checked) return checked.problem;
    try {
      const file = await testsStore.create(name, activeAgent);
      setCreating(false);
      onOpenFile(file);
      return null;
    } catch (failure) {
      return failure instanceof StudioCallError ? failure.message : describeError(failure);
    }
  };

  const suite = tests.suite;
  return (
    <section className="tests-view" aria-labelledby="tests-title">
      <div className="editor-toolbar">
        <h2 id="tests-title" className="editor-title">
          Tests
        </h2>
        <span className="muted small">
          {cases.length} case{cases.length === 1 ? '' : 's'} in {tests.files.length} file
          {tests.files.length === 1 ? '' : 's'} under {tests.folder}/
        </span>
        <div className="toolbar-spacer" />
        <button type="button" className="button" onClick={openDialog}>
          New test file…
        </button>
        {running ? (
          <button type="button" className="button" onClick={() => void testsStore.stop()}>
            Stop
          </button>
        ) : null}
        <button
          type="button"
          className="button button-primary"
          disabled={running || cases.length === 0}
          onClick={() =>
            runCases(
              {},
              cases.map((entry) => entry.testCase.id),
            )
          }
        >
          Run all
        </button>
      </div>
      {suite ? (
        <div className="tests-progress">
          <div
            className="tests-progress-bar"
            role="progressbar"
            aria-label="Test run progress"
            aria-valuemin={0}
            aria-valuemax={suite.total}
            aria-valuenow={suite.done}
            aria-valuetext={`${suite.done} of ${suite.total} cases`}
            style={{ ['--done' as string]: suite.total === 0 ? '0' : String(suite.done / suite.total) }}
          >
            <div className="tests-progress-fill" />
          </div>
          <span className="small">{progressText(suite)}</span>
          {suite.error ? <span className="error-text small">{suite.error}</span> : null}
        </div>
      ) : null}
      {tests.earlier ? (
        <p className="tests-earlier small" role="note">
          Results marked <em>earlier</em> are from an earlier session: the run of {earlierTime(tests.earlier.time)} (
          <code>{tests.earlier.folder}</code>). Run the cases to see this session&rsquo;s.
        </p>
      ) : null}
      {/* Polite: the end of a run is said once, where the person is. */}
      <p className="visually-hidden" role="status" aria-live="polite">
        {suite && suite.state !== 'running' ? progressText(suite) : ''}
      </p>
      {tests.refusal ? (
        <div className="tests-refusal" role="alert">
          <p>{tests.refusal.message}</p>
          <div className="button-row">
            {tests.refusal.code === 'workspace-restricted' ? (
              <ReviewTrustButton className="button button-small">Review and trust…</ReviewTrustButton>
            ) : null}
            <button type="button" className="button button-small" onClick={() => testsStore.dismissRefusal()}>
              Dismiss
            </button>
          </div>
        </div>
      ) : null}
      {tests.error ? (
        <p className="error-text" role="alert">
          Could not read the test files: {tests.error}
        </p>
      ) : null}
      <div className="tests-scroll">
        {problems.length > 0 ? (
          <section className="tests-problems" aria-labelledby="tests-problems-title">
            <h3 id="tests-problems-title">Mistakes in the test files (their cases do not run)</h3>
            <ul>
              {problems.map((problem, index) => (
                <li key={index}>
                  <code>
                    {problem.file}:{problem.line}:{problem.column}
                  </code>{' '}
                  {problem.message} <span className="muted">({problem.fix})</span>
                </li>
              ))}
            </ul>
          </section>
        ) : null}
        {tests.files.length === 0 && !tests.loading && tests.error === null ? (
          <NoTests folder={tests.folder} onNew={openDialog} />
        ) : null}
        {cases.length > 0 && current ? (
          <div className="tests-body">
            <div className="tests-list-pane">
              <div role="listbox" aria-label="Test cases" className="tests-list" onKeyDown={onListKey}>
                {tests.files
                  .filter((file) => file.cases.length > 0)
                  .map((file) => (
                    <div role="group" aria-label={file.file} key={file.file} className="tests-file">
                      <div role="presentation" className="tests-file-name muted small">
                        {file.file}
                      </div>
                      {file.cases.map((testCase) => {
                        const status = statusOf(testCase.id);
                        const isCurrent = testCase.id === current.testCase.id;
                        return (
                          <div
                            key={testCase.id}
                            role="option"
                            aria-selected={isCurrent}
                            tabIndex={isCurrent ? 0 : -1}
                            data-case-id={testCase.id}
                            className={`tests-case${isCurrent ? ' current' : ''}`}
                            ref={(node) => {
                              if (node) options.current.set(testCase.id, node);
                              else options.current.delete(testCase.id);
                            }}
                            onClick={() => select(testCase.id, true)}
                            onDoubleClick={() => openCase(testCase.id)}
                          >
                            <StatusBadge status={status} earlier={tests.fromEarlier.has(testCase.id)} />
                            <span className="tests-case-name">{testCase.name}</span>
                          </div>
                        );
                      })}
                    </div>
                  ))}
              </div>
              <p className="muted small tests-hint">↑ ↓ pick a case · Enter opens its run</p>
            </div>
            <CaseDetails
              testCase={current.testCase}
              file={current.file}
              result={tests.results.get(current.testCase.id)}
              status={statusOf(current.testCase.id)}
              running={running}
              earlier={tests.fromEarlier.has(current.testCase.id) ? (tests.earlier?.time ?? null) : null}
              onRun={() => runCases({ case: current.testCase.id }, [current.testCase.id])}
              onOpenRun={onOpenRun}
            />
          </div>
        ) : null}
      </div>
      {creating ? (
        <AgentNameDialog
          title="New test file"
          intro={
            <p>
              The new file under <code>{tests.folder}/</code> starts with one case for{' '}
              {activeAgent ? <code>{activeAgent}</code> : 'the workspace’s first agent'}: a scripted model (offline, no
              key) whose one reply ends the run, expected to end ok. It opens in the file viewer; docs/testing.md
              describes every field.
            </p>
          }
          initialName=""
          submitLabel="Create"
          file={TEST_FILE}
          onSubmit={createFile}
          onClose={() => {
            restoreFocus.current = true;
            setCreating(false);
          }}
        />
      ) : null}
    </section>
  );
}
