import { useState } from 'react';
import type { ModelSummary, PendingApproval, RunSummary } from '../../../common/studio-schemas.js';
import { ForkDialog, type ForkTarget } from '../history/ForkDialog';
import { RunHeader } from '../history/RunHeader';
import { runStore } from './run-hooks';
import { ApprovalsPanel } from '../approvals/ApprovalsPanel';
import { McpQuestionsPanel } from '../mcp/McpQuestionsPanel';
import type { McpQuestions } from '../mcp/use-mcp-questions';
import type { ConversationSnapshot } from './conversation-builder';
import { ConversationView, type RunFocus } from './ConversationView';
import { InertText } from '../shell/InertText';
import { formatCost, priceSourceText, priceText, runCostText } from '../history/format';
import type { PagingState } from './run-store';
import type { Theme } from '../shell/theme';
import './run.css';

export type RunTab = 'conversation' | 'approvals' | 'log' | 'usage';

function formatMs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.round(ms)} ms`;
}

function LogView({ snapshot }: { snapshot: ConversationSnapshot | undefined }) {
  if (!snapshot || snapshot.logs.length === 0) return <p className="panel-empty muted">Nothing logged yet.</p>;
  return (
    <ol className="log-view" aria-label="Run log">
      {snapshot.logs.map((line) => (
        <li key={`${line.seq}-${line.level}`} className={`log-entry log-${line.level}`}>
          <time className="muted small">{new Date(line.t).toLocaleTimeString()}</time>
          <InertText className="inert-text" text={line.text} />
        </li>
      ))}
    </ol>
  );
}

function UsageView({ snapshot }: { snapshot: ConversationSnapshot | undefined }) {
  if (!snapshot || (snapshot.rounds.length === 0 && !snapshot.ended))
    return <p className="panel-empty muted">No model rounds yet.</p>;
  const end = snapshot.ended;
  const totalIn = snapshot.rounds.reduce((sum, round) => sum + round.inputTokens, 0);
  const totalOut = snapshot.rounds.reduce((sum, round) => sum + round.outputTokens, 0);
  return (
    // Focusable: it scrolls when a run has many rounds, and a keyboard must reach that too.
    <div className="usage-view" tabIndex={0} role="region" aria-label="Usage and timing">
      <table className="data-table" aria-label="Usage per round">
        <thead>
          <tr>
            <th scope="col">Round</th>
            <th scope="col">Model</th>
            <th scope="col">Input tokens</th>
            <th scope="col">Output tokens</th>
            <th scope="col">Duration</th>
            <th scope="col">Cost</th>
            <th scope="col">Price (from)</th>
          </tr>
        </thead>
        <tbody>
          {snapshot.rounds.map((round) => (
            <tr key={round.round}>
              <td>{round.round}</td>
              <td>
                <code>{round.model}</code>
              </td>
              <td>{round.inputTokens}</td>
              <td>{round.outputTokens}</td>
              <td>{formatMs(round.durationMs)}</td>
              <td>{formatCost(round.cost, round.price?.currency)}</td>
              <td className="usage-price" title={round.price?.url}>
                {round.price ? `${priceText(round.price)} · ` : ''}
                {priceSourceText(round.price)}
              </td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row" colSpan={2}>
              Total
            </th>
            <td>{end?.usage.inputTokens ?? totalIn}</td>
            <td>{end?.usage.outputTokens ?? totalOut}</td>
            <td>{end ? formatMs(end.durationMs) : '…'}</td>
            <td>{end ? runCostText(end.cost, snapshot.rounds.length) : '…'}</td>
            <td />
          </tr>
        </tfoot>
      </table>
      {end ? (
        <dl className="details usage-totals">
          <div className="details-row">
            <dt>Lua CPU time</dt>
            <dd>{formatMs(end.cpuMs)}</dd>
          </div>
          <div className="details-row">
            <dt>Wall time</dt>
            <dd>{formatMs(end.durationMs)}</dd>
          </div>
          <div className="details-row">
            <dt>Tool calls</dt>
            <dd>
              {Object.entries(end.toolCalls)
                .map(([alias, count]) => `${alias} × ${count}`)
                .join(', ') || 'none'}
            </dd>
          </div>
        </dl>
      ) : null}
    </div>
  );
}

/** The run panel: the selected run's conversation, the pending approvals, the log and usage/timing. */
export function RunPanel({
  tab,
  onTab,
  snapshot,
  paging,
  onLoadMore,
  approvals,
  questions,
  taintCheckOf,
  theme,
  running,
  narrow,
  models = [],
  summary,
  emptyHint,
  focus,
  onOpenRules,
}: {
  tab: RunTab;
  onTab: (tab: RunTab) => void;
  snapshot: ConversationSnapshot | undefined;
  /** How far a run opened from its transcript has been read (absent for a run streamed here). */
  paging?: PagingState | undefined;
  /** Reads the next page of the run; `explicit` when the person asked for it. */
  onLoadMore?: (explicit: boolean) => void;
  approvals: PendingApproval[];
  /** The MCP servers' questions waiting for the person, shown above the tool calls in Approvals. */
  questions: McpQuestions;
  /** The tool's taint-check setting; true when unknown. */
  taintCheckOf: (alias: string) => boolean;
  theme: Theme;
  running: boolean;
  narrow: boolean;
  /** The workspace's models, offered to a fork to go on live with. */
  models?: ModelSummary[] | undefined;
  /** The shown run's entry in the history, for its header (the model that answered, a fork's parent). */
  summary?: RunSummary | undefined;
  /** What the conversation says when no run is shown: true for the view beside it. */
  emptyHint?: string | undefined;
  /** A step of the shown run to scroll to and mark (a failing test's diverging step). */
  focus?: RunFocus | undefined;
  /** Opens the Rules view (from a notice that the rules file cannot be read). */
  onOpenRules: () => void;
}) {
  const [forking, setForking] = useState<ForkTarget | null>(null);
  // [id, label, the part of the label a narrow panel leaves out]: the pill keeps to the tab row.
  const tabs: Array<[RunTab, string, string?]> = [
    ['conversation', 'Conversation'],
    ['approvals', 'Approvals'],
    ['log', 'Log'],
    ['usage', 'Usage', '/Timing'],
  ];
  // A run read only in part has no run-end yet, but it is not running: it is being read.
  const status = snapshot?.ended?.status ?? (paging && !paging.complete ? 'partial' : snapshot ? 'running' : undefined);
  return (
    <section className={`run-panel${narrow ? ' run-panel-narrow' : ''}`} aria-label="Run panel">
      <div className="run-panel-header">
        <div
          role="tablist"
          aria-label="Run views"
          className="tabs"
          onKeyDown={(event) => {
            // Arrow keys move between tabs (the WAI-ARIA tabs pattern).
            if (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') return;
            const index = tabs.findIndex(([id]) => id === tab);
            const next = tabs[(index + (event.key === 'ArrowRight' ? 1 : tabs.length - 1)) % tabs.length]![0];
            onTab(next);
            document.getElementById(`tab-${next}`)?.focus();
          }}
        >
          {tabs.map(([id, label, extra]) => (
            <button
              key={id}
              type="button"
              role="tab"
              id={`tab-${id}`}
              aria-selected={tab === id}
              tabIndex={tab === id ? 0 : -1}
              aria-controls={`tabpanel-${id}`}
              className="tab"
              onClick={() => onTab(id)}
              aria-label={extra !== undefined ? `${label}${extra}` : undefined}
            >
              {label}
              {extra !== undefined ? <span className="narrow-hidden">{extra}</span> : null}
              {id === 'approvals' && approvals.length + questions.count > 0 ? (
                <span className="count-badge" aria-label={`${approvals.length + questions.count} pending`}>
                  {approvals.length + questions.count}
                </span>
              ) : null}
            </button>
          ))}
        </div>
        {snapshot ? (
          <div className="run-status" title={snapshot.runId}>
            {running && status === 'running' ? <span className="spinner" aria-hidden="true" /> : null}
            <span className={`status-pill status-${status}`} aria-label={`Run status ${status}`}>
              {snapshot.awaiting > 0 ? (
                <>
                  waiting<span className="narrow-hidden"> for approval</span>
                </>
              ) : (
                status
              )}
            </span>
          </div>
        ) : null}
      </div>
      {snapshot ? <RunHeader snapshot={snapshot} summary={summary} /> : null}
      <div role="tabpanel" id={`tabpanel-${tab}`} aria-labelledby={`tab-${tab}`} className="tab-panel">
        {tab === 'conversation' ? (
          <ConversationView
            snapshot={snapshot}
            paging={paging}
            onLoadMore={onLoadMore}
            taintCheckOf={taintCheckOf}
            theme={theme}
            emptyHint={emptyHint}
            focus={focus}
            // A tool trial has no script to fork: it is tried again from the explorer instead.
            onFork={
              snapshot && snapshot.started && !snapshot.started.toolTrial
                ? (target) => setForking({ ...target, runId: snapshot.runId })
                : undefined
            }
          />
        ) : null}
        {tab === 'approvals' ? (
          <>
            <McpQuestionsPanel questions={questions} alone={approvals.length === 0} />
            <ApprovalsPanel theme={theme} onOpenRules={onOpenRules} />
          </>
        ) : null}
        {tab === 'log' ? <LogView snapshot={snapshot} /> : null}
        {tab === 'usage' ? <UsageView snapshot={snapshot} /> : null}
      </div>
      {forking ? (
        <ForkDialog
          target={forking}
          models={models}
          onClose={() => setForking(null)}
          onForked={(runId) => {
            setForking(null);
            runStore.started(runId);
            onTab('conversation');
          }}
        />
      ) : null}
    </section>
  );
}
