import { useCallback, useEffect, useRef, useState } from 'react';
import { InlineApproval } from '../approvals/InlineApproval';
import type { Theme } from '../shell/theme';
import { wrapUntrusted, wrapUntrustedStrings } from '../../../common/envelope.js';
import type { JsonValue } from '../../../common/json.js';
import type { ArgumentsVerdict, ToolSummary } from '../../../common/studio-schemas.js';
import type { ConversationItem } from '../run/conversation-builder';
import { runStore, useRun } from '../run/run-hooks';
import { InertText } from '../shell/InertText';
import { call, describeError } from '../shell/studio-api';
import { fieldPointers, initialArguments, unsupportedPart, type FormSchema } from './schema-form';
import { SchemaForm } from './SchemaForm';
import './tool-trial.css';
import { ARGUMENTS_CHECK_DEBOUNCE_MS, parseArgumentsText } from '../approvals/use-arguments-check';

type Args = Record<string, unknown>;
type Dispatch = Extract<ConversationItem, { kind: 'dispatch' }>;

/** Shown in place of the run's nonce in the envelope preview: the real one is the run's own. */
const NONCE_PLACEHOLDER = 'NONCE';

/** What a script receives for an untrusted output: the text (or each string) inside the envelope. */
function envelopeOf(text: string, structured: boolean): string {
  if (structured) {
    try {
      return JSON.stringify(wrapUntrustedStrings(JSON.parse(text) as JsonValue, NONCE_PLACEHOLDER), null, 2);
    } catch {
      // Not JSON after all: shown as text.
    }
  }
  return wrapUntrusted(text, NONCE_PLACEHOLDER);
}

function TrialResult({ runId, theme, scroller }: { runId: string; theme: Theme; scroller: () => HTMLElement | null }) {
  const view = useRun(runId);
  const section = useRef<HTMLElement>(null);
  if (!view) {
    return (
      <p className="muted small">
        This trial is no longer held here. Open it from History (run <code>{runId}</code>).
      </p>
    );
  }
  const { snapshot } = view;
  const dispatch = snapshot.items.find((item): item is Dispatch => item.kind === 'dispatch');
  const ended = snapshot.ended;
  return (
    // Focus comes here once the call is decided on its card below (tabIndex -1: not a Tab stop).
    <section className="trial-result" aria-label="Trial result" ref={section} tabIndex={-1}>
      <header className="trial-result-header">
        <h3>Result</h3>
        <span className={`status-pill status-${ended ? ended.status : 'running'}`}>
          {ended ? ended.status : dispatch?.state === 'awaiting approval' ? 'waiting for approval' : 'running'}
        </span>
        <span className="muted small">
          run <code>{runId}</code> · recorded in History
        </span>
      </header>
      {dispatch?.state === 'awaiting approval' ? (
        <div className="trial-approval">
          <p>
            <code>{dispatch.alias}</code> asks before each call: decide here, as for a script&apos;s call (the same card
            is in the Approvals tab).
          </p>
          <InlineApproval
            runId={runId}
            callId={dispatch.callId}
            theme={theme}
            scroller={scroller}
            focusAfter={() => section.current?.focus()}
          />
        </div>
      ) : null}
      {dispatch?.output ? (
        <div className="tool-output">
          <div className="output-header">
            <span className={`trust-badge trust-${dispatch.output.trust}`}>{dispatch.output.trust}</span>
            <span className="muted small">
              output{dispatch.output.structured ? ' (structured)' : ''} · {Math.round(dispatch.output.durationMs)} ms
            </span>
          </div>
          <InertText className="inert-text code-block" text={dispatch.output.text} />
          {dispatch.output.trust === 'untrusted' ? (
            <div className="trial-envelope">
              <p className="small muted">
                A script receives this output inside the run&apos;s envelope, so a model can tell data from instructions
                ({NONCE_PLACEHOLDER} stands for the run&apos;s own nonce):
              </p>
              <InertText
                className="inert-text code-block"
                text={envelopeOf(dispatch.output.text, dispatch.output.structured)}
              />
            </div>
          ) : null}
        </div>
      ) : null}
      {dispatch?.error ? (
        <p className="error-text" role="alert">
          {dispatch.error.stage}: {dispatch.error.message}
        </p>
      ) : null}
      {ended?.error && !dispatch?.error ? (
        <p className="error-text" role="alert">
          {ended.error.message}
        </p>
      ) : null}
    </section>
  );
}

/**
 * "Try a tool": a form generated from the tool's JSON Schema, a raw JSON view kept in sync,
 * live validation by the core (`args:check`), and Run (`tool:trial`), which calls the tool through
 * the same dispatcher, approval gate and trust rules as a script and records the trial as a run.
 * Keyed by alias in {@link ToolTrialView}: another tool starts afresh.
 */
function ToolTrial({ tool, theme }: { tool: ToolSummary; theme: Theme }) {
  const schema = tool.parameters as FormSchema;
  const unsupported = unsupportedPart(schema);
  const [args, setArgs] = useState<Args>(() => initialArguments(schema));
  const [raw, setRaw] = useState(() => JSON.stringify(initialArguments(schema), null, 2));
  const [rawError, setRawError] = useState<string | null>(null);
  const [verdict, setVerdict] = useState<ArgumentsVerdict | null>(null);
  const [checkError, setCheckError] = useState<string | null>(null);
  const [runError, setRunError] = useState<string | null>(null);
  const [starting, setStarting] = useState(false);
  const [runId, setRunId] = useState<string | null>(null);
  const sequence = useRef(0);
  const formRef = useRef<HTMLDivElement>(null);
  const body = useRef<HTMLDivElement>(null);
  const scroller = useCallback(() => body.current, []);
  const liveTimer = useRef<number | undefined>(undefined);
  // The last `args:check` asked (answered or still in flight), with what it checked.
  const lastCheck = useRef<{ key: string; answer: Promise<ArgumentsVerdict> } | null>(null);

  /**
   * The core's verdict on `value`: the last check's when it was for these very arguments (and
   * this schema), else a new `args:check`. A failed call is not kept, so the next one asks again.
   */
  const check = (value: Args): Promise<ArgumentsVerdict> => {
    const key = JSON.stringify([tool.alias, tool.parameters, value]);
    if (lastCheck.current?.key === key) return lastCheck.current.answer;
    const answer = call('args:check', { alias: tool.alias, arguments: value as JsonValue });
    lastCheck.current = { key, answer };
    answer.catch(() => {
      if (lastCheck.current?.answer === answer) lastCheck.current = null;
    });
    return answer;
  };

  // Live validation by the core's ajv; answers of older checks are dropped.
  useEffect(() => {
    const current = ++sequence.current;
    liveTimer.current = window.setTimeout(() => {
      liveTimer.current = undefined;
      check(args).then(
        (answer) => {
          if (current !== sequence.current) return;
          setVerdict(answer);
          setCheckError(null);
        },
        (error: unknown) => {
          if (current === sequence.current) setCheckError(describeError(error));
        },
      );
    }, ARGUMENTS_CHECK_DEBOUNCE_MS);
    return () => window.clearTimeout(liveTimer.current);
    // `check` reads only tool.alias and tool.parameters, listed here.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [args, tool.alias, tool.parameters]);

  const fromForm = (next: Args): void => {
    setArgs(next);
    setRaw(JSON.stringify(next, null, 2));
    setRawError(null);
    setRunError(null);
  };
  const fromRaw = (text: string): void => {
    setRaw(text);
    setRunError(null);
    const parsed = parseArgumentsText(text);
    if (!parsed.ok) {
      // "Not JSON yet: …" while the person is still typing; "The arguments must be a JSON object" else.
      const problem = parsed.problem.replace(/^not JSON/, 'Not JSON yet');
      setRawError(`${problem.charAt(0).toUpperCase()}${problem.slice(1)}.`);
      return;
    }
    setRawError(null);
    setArgs(parsed.value as Args);
  };

  const problems = verdict?.problems ?? [];
  // Problems placed by pointer alone: at their field when the form shows it, else under the form.
  const fields = unsupported ? new Set<string>() : fieldPointers(schema, args);
  const unplaced = problems.filter((problem) => !fields.has(problem.pointer));
  const run = async (): Promise<void> => {
    setRunError(null);
    if (rawError) {
      setRunError(`Not run: ${rawError}`);
      return;
    }
    setStarting(true);
    try {
      // The verdict of exactly these arguments: the live check's when it checked them (answered
      // or in flight), else asked now, in place of the live check still waiting to ask.
      window.clearTimeout(liveTimer.current);
      const answer = await check(args);
      setVerdict(answer);
      setCheckError(null);
      if (!answer.valid) {
        setRunError(
          `Not run: ${answer.problems.length} problem${answer.problems.length === 1 ? '' : 's'} with the arguments. Fix the marked fields.`,
        );
        formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
        return;
      }
      const started = await call('tool:trial', { alias: tool.alias, arguments: args as Record<string, JsonValue> });
      runStore.started(started.runId);
      setRunId(started.runId);
    } catch (error) {
      setRunError(`Not run: ${describeError(error)}`);
    } finally {
      setStarting(false);
    }
  };
  const live = useRun(runId);
  const running = runId !== null && live !== undefined && live.snapshot.ended === undefined;

  return (
    <section className="tool-trial" aria-label={`Try tool ${tool.alias}`}>
      <div className="editor-toolbar">
        <h2 className="editor-title" title={`Try ${tool.alias}`}>
          Try {tool.alias}
        </h2>
        <span className="tag">{tool.kind}</span>
        <span className={`trust-badge trust-${tool.trust}`}>{tool.trust}</span>
        <span className={`tag approval-${tool.approval}`}>approval: {tool.approval}</span>
        <span className={`validation-status ${verdict && !verdict.valid ? 'has-errors' : 'valid'}`} role="status">
          {verdict === null
            ? 'Checking…'
            : verdict.valid
              ? 'Arguments valid'
              : `${verdict.problems.length} problem${verdict.problems.length === 1 ? '' : 's'}`}
        </span>
        <div className="toolbar-spacer" />
        <button
          type="button"
          className="button button-primary"
          onClick={() => void run()}
          disabled={starting || running}
          // The visible text first, so the name a voice-control user says is the one they see.
          aria-label={running ? `Running… ${tool.alias}` : `Run ${tool.alias}`}
        >
          {running ? 'Running…' : 'Run'}
        </button>
      </div>
      <div className="tool-trial-body" ref={body}>
        {tool.description ? <p className="trial-description">{tool.description}</p> : null}
        <p className="muted small">
          A trial is one call through the same dispatcher, approval gate and trust rules as a script&apos;s{' '}
          <code>tools.call</code>, and is recorded in History like a run. Defined in <code>{tool.source}</code>.
        </p>
        {runError ? (
          <p className="error-text" role="alert">
            {runError}
          </p>
        ) : null}
        {checkError ? <p className="error-text small">Could not check the arguments: {checkError}</p> : null}
        <div className="trial-columns">
          <div className="trial-form" ref={formRef}>
            <h3>Arguments</h3>
            {unsupported ? (
              <p className="trial-note" role="note">
                {unsupported} Edit the arguments as JSON; the core still checks them against the schema.
              </p>
            ) : (
              <SchemaForm schema={schema} value={args} problems={problems} onChange={fromForm} />
            )}
            {unplaced.length > 0 ? (
              <div className="trial-field-problems">
                {unplaced.map((problem, index) => (
                  <p key={index} className="field-problem">
                    {problem.message} <span className="problem-fix">Fix: {problem.fix}</span>
                  </p>
                ))}
              </div>
            ) : null}
          </div>
          <div className="trial-raw">
            <h3>
              <label htmlFor="trial-raw-json">JSON</label>
            </h3>
            <textarea
              id="trial-raw-json"
              className="text-input json-input"
              aria-label="Arguments as JSON"
              aria-invalid={rawError !== null || undefined}
              aria-describedby="trial-raw-problem"
              value={raw}
              rows={Math.min(18, Math.max(6, raw.split('\n').length + 1))}
              spellCheck={false}
              onChange={(event) => fromRaw(event.target.value)}
            />
            <p id="trial-raw-problem" className="field-problem" hidden={rawError === null}>
              {rawError ?? ''}
            </p>
            <details className="trial-schema">
              <summary className="small">Schema</summary>
              <pre className="inert-text code-block small">{JSON.stringify(tool.parameters, null, 2)}</pre>
            </details>
            {runId ? <TrialResult runId={runId} theme={theme} scroller={scroller} /> : null}
          </div>
        </div>
      </div>
    </section>
  );
}

/** The trial view of `alias`, or a note when the catalog no longer has it (edited meanwhile). */
export function ToolTrialView({ alias, tools, theme }: { alias: string; tools: readonly ToolSummary[]; theme: Theme }) {
  const tool = tools.find((candidate) => candidate.alias === alias);
  if (!tool)
    return (
      <div className="panel-empty">
        <p className="muted">
          There is no tool <code>{alias}</code> in this workspace any more. Pick one under Tools in the explorer.
        </p>
      </div>
    );
  return <ToolTrial key={alias} tool={tool} theme={theme} />;
}
