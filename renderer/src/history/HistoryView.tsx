import { useState } from 'react';
import type { ComparePage, RunSummary } from '../../../common/studio-schemas.js';
import { call, describeError } from '../shell/studio-api';
import './history.css';

function formatDuration(ms: number | undefined): string {
  if (ms === undefined) return '—';
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}

function formatTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime())
    ? iso
    : date.toLocaleString(undefined, {
        month: 'short',
        day: 'numeric',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
      });
}

/** Saves text as a file through a Blob and an anchor with `download` (no Node, no dialog API). */
function downloadText(fileName: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/x-ndjson' }));
  const anchor = document.createElement('a');
  anchor.href = url;
  anchor.download = fileName;
  anchor.rel = 'noopener';
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 1000);
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
  const [comparison, setComparison] = useState<({ left: string; right: string } & ComparePage) | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [onlyDifferences, setOnlyDifferences] = useState(false);

  const toggle = (runId: string): void => {
    setSelected((current) =>
      current.includes(runId) ? current.filter((id) => id !== runId) : [...current, runId].slice(-2),
    );
  };

  /** Compares the two selected runs (or pages the shown comparison): the core reads both only as far as needed. */
  const compare = async (window?: { left: string; right: string; from: number }): Promise<void> => {
    const [left, right] = window ? [window.left, window.right] : selected;
    if (left === undefined || right === undefined) return;
    setError(null);
    try {
      const result = await call('history:compare', {
        left,
        right,
        ...(window && { from: window.from, count: COMPARE_PAGE_ROWS }),
      });
      setComparison({ left, right, ...result });
    } catch (failure) {
      setError(describeError(failure));
    }
  };
  const firstShown = comparison?.rows[0]?.index ?? 1;
  const lastShown = comparison?.rows.at(-1)?.index ?? 0;

  const exportRun = async (runId: string): Promise<void> => {
    setError(null);
    try {
      const result = await call('history:export', { runId });
      downloadText(result.fileName, result.text);
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
        <span className="muted small">{runs.length} runs · tick two to compare</span>
        <div className="toolbar-spacer" />
        <button
          type="button"
          className="button button-primary"
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
      <div className="history-scroll">
        {runs.length === 0 ? (
          <p className="muted">No runs yet. Run an agent and it shows up here.</p>
        ) : (
          <table className="data-table history-table" aria-label="Runs">
            <thead>
              <tr>
                <th scope="col">
                  <span className="visually-hidden">Compare</span>
                </th>
                <th scope="col">Started</th>
                <th scope="col">Script</th>
                <th scope="col">Status</th>
                <th scope="col">Rounds</th>
                <th scope="col">Tokens</th>
                <th scope="col">Duration</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {runs.map((run) => (
                <tr
                  key={run.runId}
                  data-run-id={run.runId}
                  className={selected.includes(run.runId) ? 'selected' : undefined}
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
                    <code>{run.script.replace(/^agents\//, '')}</code>
                  </td>
                  <td>
                    <span className={`status-pill status-${run.status}`}>{run.status}</span>
                  </td>
                  <td>{run.rounds}</td>
                  <td>
                    {run.inputTokens} / {run.outputTokens}
                  </td>
                  <td>{formatDuration(run.durationMs)}</td>
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
              <label className="small">
                <input
                  type="checkbox"
                  checked={onlyDifferences}
                  onChange={(event) => setOnlyDifferences(event.target.checked)}
                />{' '}
                Only differences
              </label>
            </div>
            <table className="data-table compare-table">
              <thead>
                <tr>
                  <th scope="col">#</th>
                  <th scope="col">Kind</th>
                  <th scope="col">{comparison.left}</th>
                  <th scope="col">{comparison.right}</th>
                </tr>
              </thead>
              <tbody>
                {comparison.rows
                  .filter((row) => !onlyDifferences || !row.same)
                  .map((row) => (
                    <tr key={row.index} className={row.same ? 'row-same' : 'row-differs'} data-same={row.same}>
                      <td>{row.index}</td>
                      <td>{row.kind}</td>
                      <td>
                        <pre className="inert-text compare-cell">{row.left ?? '—'}</pre>
                      </td>
                      <td>
                        <pre className="inert-text compare-cell">{row.right ?? '—'}</pre>
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
