import { useEffect, useState } from 'react';
import type { ComparedRun, RunComparison, RunSummary } from '../../../common/studio-schemas.js';
import { call, describeError } from '../shell/studio-api';
import { changedPart } from './compare-diff';
import { forkTree } from './fork-tree';
import { formatDuration, formatTime, runCostText } from './format';
import './history.css';

/** A column header of a comparison: the agent and when the run started. */
function ColumnTitle({ run }: { run: ComparedRun }) {
  return (
    <span title={run.runId}>
      <span className="compare-column-title">{run.agent || run.runId}</span>
      <span className="compare-column-time">{run.startedAt ? formatTime(run.startedAt) : run.runId}</span>
    </span>
  );
}

/** A cell of a differing row, with the part that differs from the other side marked. */
function DiffCell({ text, other }: { text: string | null; other: string | null }) {
  if (text === null) return <pre className="inert-text compare-cell">—</pre>;
  const { before, changed, after } = changedPart(text, other);
  return (
    <pre className="inert-text compare-cell">
      {before}
      {changed !== '' ? <mark>{changed}</mark> : null}
      {after}
    </pre>
  );
}

/** Rows per page when paging through a comparison. */
const COMPARE_PAGE_ROWS = 101;

/** The runs of the workspace: open, replay, export, and compare two side by side. */
export function HistoryView({
  runs,
  onOpen,
  onReplay,
}: {
  runs: RunSummary[];
  onOpen: (runId: string) => void;
  onReplay: (run: RunSummary) => void;
}) {
  const [selected, setSelected] = useState<string[]>([]);
  const [comparison, setComparison] = useState<RunComparison | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [onlyDifferences, setOnlyDifferences] = useState(false);

  const toggle = (runId: string): void => {
    setSelected((current) =>
      current.includes(runId) ? current.filter((id) => id !== runId) : [...current, runId].slice(-2),
    );
  };

  /** Compares the two selected runs (or pages the shown comparison): the core reads both only as far as needed. */
  const compare = async (window?: { left: ComparedRun; right: ComparedRun; from: number }): Promise<void> => {
    const [left, right] = window ? [window.left.runId, window.right.runId] : selected;
    if (left === undefined || right === undefined) return;
    setError(null);
    try {
      const result = await call('history:compare', {
        left,
        right,
        ...(window && { from: window.from, count: COMPARE_PAGE_ROWS }),
      });
      setComparison(result);
      // A new comparison opens at its first difference: that row is scrolled to and focused.
      if (!window) setOpenAt(result.firstDifference);
    } catch (failure) {
      setError(describeError(failure));
    }
  };
  const [openAt, setOpenAt] = useState<number | null>(null);
  useEffect(() => {
    if (openAt === null) return;
    setOpenAt(null);
    const row = document.querySelector<HTMLElement>(`.compare-table tr[data-row="${openAt}"]`);
    row?.scrollIntoView({ block: 'start' });
    row?.focus({ preventScroll: true });
  }, [openAt, comparison]);
  const firstShown = comparison?.rows[0]?.index ?? 1;
  const lastShown = comparison?.rows.at(-1)?.index ?? 0;

  // Main asks where to save and copies the transcript as a stream; nothing crosses but the path.
  const exportRun = async (runId: string): Promise<void> => {
    setError(null);
    setSaved(null);
    try {
      const result = await call('history:export', { runId });
      if (result.path !== null) setSaved(`Saved ${runId} to ${result.path}`);
    } catch (failure) {
      setError(describeError(failure));
    }
  };

  const differing = comparison?.rows.filter((row) => !row.same).length ?? 0;
  return (
    <section className="history-view" aria-labelledby="history-title">
      <div className="editor-toolbar">
        <h2 id="history-title" className="editor-title">
          Run history
        </h2>
        <span className="muted small history-count">
          {runs.length} run{runs.length === 1 ? '' : 's'} · tick two to compare
        </span>
        <div className="toolbar-spacer" />
        <button
          type="button"
          className="button button-primary compare-button"
          disabled={selected.length !== 2}
          onClick={() => void compare()}
        >
          Compare selected
        </button>
      </div>
      {error ? (
        <p className="error-text" role="alert">
          {error}
        </p>
      ) : null}
      <p className="muted small" role="status">
        {saved}
      </p>
      <div className="history-scroll">
        {runs.length === 0 ? (
          <p className="muted">No runs yet. Run an agent and it shows up here.</p>
        ) : (
          <table className="data-table history-table" aria-label="Runs">
            <thead>
              <tr>
                <th scope="col" className="select-column">
                  <span className="visually-hidden">Compare</span>
                </th>
                <th scope="col" className="started-column">
                  Started
                </th>
                <th scope="col">Agent</th>
                <th scope="col">Model</th>
                <th scope="col" className="status-column">
                  Status
                </th>
                <th scope="col" className="usage-column">
                  Rounds
                </th>
                <th scope="col" className="usage-column">
                  Duration
                </th>
                <th scope="col" className="usage-column">
                  Cost
                </th>
                <th scope="col" className="actions-column">
                  Actions
                </th>
              </tr>
            </thead>
            <tbody>
              {forkTree(runs).map(({ run, depth }) => (
                <tr
                  key={run.runId}
                  data-run-id={run.runId}
                  data-fork-depth={depth}
                  className={
                    [selected.includes(run.runId) ? 'selected' : '', depth > 0 ? 'fork-child' : ''].join(' ').trim() ||
                    undefined
                  }
                >
                  <td>
                    <input
                      type="checkbox"
                      checked={selected.includes(run.runId)}
                      onChange={() => toggle(run.runId)}
                      aria-label={`Select ${run.runId} for comparison`}
                    />
                  </td>
                  <td title={run.runId}>
                    {formatTime(run.startedAt)}
                    {run.replayOf ? <span className="tag">replay</span> : null}
                  </td>
                  <td title={run.script}>
                    {depth > 0 ? (
                      <span className="fork-mark" aria-hidden="true">
                        {'↳'}
                      </span>
                    ) : null}
                    <code>{run.agent}</code>
                    {run.forkOf ? (
                      <span className="tag" title={`forked from ${run.forkOf.runId} at step ${run.forkOf.step}`}>
                        fork @ {run.forkOf.step}
                        {run.forkOf.edited ? ', edited' : ''}
                      </span>
                    ) : null}
                  </td>
                  <td title={run.model ? `${run.model.provider} ${run.model.modelId}` : undefined}>
                    {run.model ? <code>{run.model.alias}</code> : '—'}
                  </td>
                  <td>
                    <span className={`status-pill status-${run.status}`}>{run.status}</span>
                  </td>
                  <td className="usage-column" title={`${run.inputTokens} input / ${run.outputTokens} output tokens`}>
                    {run.rounds}
                  </td>
                  <td className="usage-column">{formatDuration(run.durationMs)}</td>
                  <td className="usage-column">{run.status === 'running' ? '…' : runCostText(run.cost, run.rounds)}</td>
                  <td className="actions-cell">
                    <button
                      type="button"
                      className="button button-small"
                      onClick={() => onOpen(run.runId)}
                      aria-label={`Open ${run.runId}`}
                    >
                      Open
                    </button>
                    <button
                      type="button"
                      className="button button-small"
                      onClick={() => onReplay(run)}
                      aria-label={`Replay ${run.runId}`}
                    >
                      Replay
                    </button>
                    <button
                      type="button"
                      className="button button-small"
                      onClick={() => void exportRun(run.runId)}
                      aria-label={`Export ${run.runId}`}
                    >
                      Export
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {comparison ? (
          <div className="comparison" aria-label="Run comparison" role="region">
            <div className="comparison-header">
              <h3>
                {differing === 0 ? 'The runs match' : `${differing} differing row${differing === 1 ? '' : 's'}`} of{' '}
                {comparison.rows.length}
              </h3>
              <p className="small muted compare-window">
                {comparison.firstDifference === null
                  ? `No difference in ${comparison.compared.toLocaleString('en')} rows.`
                  : `First difference at row ${comparison.firstDifference.toLocaleString('en')}.`}{' '}
                Showing rows {firstShown.toLocaleString('en')}–{lastShown.toLocaleString('en')}.
              </p>
              <button
                type="button"
                className="button button-small"
                disabled={firstShown <= 1}
                onClick={() => void compare({ ...comparison, from: Math.max(1, firstShown - COMPARE_PAGE_ROWS) })}
              >
                Earlier rows
              </button>
              <button
                type="button"
                className="button button-small"
                disabled={comparison.complete && lastShown >= comparison.compared}
                onClick={() => void compare({ ...comparison, from: lastShown + 1 })}
              >
                Later rows
              </button>
              <label className="small compare-only-differences">
                <input
                  type="checkbox"
                  checked={onlyDifferences}
                  onChange={(event) => setOnlyDifferences(event.target.checked)}
                />{' '}
                Only differences
              </label>
            </div>
            {comparison.scriptsDiffer ? (
              <p className="compare-warning" role="alert">
                These runs ran different scripts (<code>{comparison.left.script}</code>
                {comparison.left.script === comparison.right.script ? (
                  ' changed between them'
                ) : (
                  <>
                    {' '}
                    and <code>{comparison.right.script}</code>
                  </>
                )}
                ): rows may differ because the code differs, not the model or the tools.
              </p>
            ) : null}
            {comparison.fork ? (
              <p className="small muted">
                The {comparison.fork.side} run is a fork of the other at step {comparison.fork.step}
                {comparison.fork.row !== null ? `, row ${comparison.fork.row}` : ''}: the rows before it were answered
                from the recording.
              </p>
            ) : null}
            <table className="data-table compare-table">
              <thead>
                <tr>
                  <th scope="col" className="compare-index-column">
                    #
                  </th>
                  <th scope="col" className="compare-kind-column">
                    Kind
                  </th>
                  <th scope="col">
                    <ColumnTitle run={comparison.left} />
                  </th>
                  <th scope="col">
                    <ColumnTitle run={comparison.right} />
                  </th>
                </tr>
              </thead>
              <tbody>
                {comparison.rows
                  .filter((row) => !onlyDifferences || !row.same)
                  .map((row) => (
                    <tr
                      key={row.index}
                      className={`${row.same ? 'row-same' : 'row-differs'}${row.index === comparison.fork?.row ? ' fork-point' : ''}`}
                      data-same={row.same}
                      data-row={row.index}
                      tabIndex={row.index === comparison.firstDifference ? -1 : undefined}
                      aria-label={
                        row.index === comparison.firstDifference ? `First difference, row ${row.index}` : undefined
                      }
                    >
                      <td>
                        {row.index}
                        {row.index === comparison.fork?.row ? <span className="tag">fork point</span> : null}
                        {row.index === comparison.firstDifference ? (
                          <span className="tag">first difference</span>
                        ) : null}
                      </td>
                      <td>{row.kind}</td>
                      <td>
                        {row.same ? (
                          <pre className="inert-text compare-cell">{row.left ?? '—'}</pre>
                        ) : (
                          <DiffCell text={row.left} other={row.right} />
                        )}
                      </td>
                      <td>
                        {row.same ? (
                          <pre className="inert-text compare-cell">{row.right ?? '—'}</pre>
                        ) : (
                          <DiffCell text={row.right} other={row.left} />
                        )}
                      </td>
                    </tr>
                  ))}
              </tbody>
            </table>
          </div>
        ) : null}
      </div>
    </section>
  );
}
