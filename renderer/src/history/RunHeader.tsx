import type { RunSummary } from '../../../common/studio-schemas.js';
import type { ConversationSnapshot } from '../run/conversation-builder';
import { formatDuration, formatTime, runCostText } from './format';

/** The agent's name from a script path (`agents/echo-loop.lua` → `echo-loop`). */
function agentOf(script: string): string {
  return (script.split(/[\\/]/).at(-1) ?? script).replace(/\.lua$/, '');
}

/**
 * Which run the panel shows: agent, the model that answered, start, duration, status and cost,
 * and for a fork its parent and step. From the run's summary in the history when it has one, else
 * from the events read so far.
 */
export function RunHeader({ snapshot, summary }: { snapshot: ConversationSnapshot; summary?: RunSummary | undefined }) {
  const start = snapshot.started;
  const end = snapshot.ended;
  if (!start && !summary) return null;
  const script = summary?.script ?? start?.script.path ?? '';
  const model = summary?.model ?? start?.model;
  const status = end?.status ?? summary?.status ?? 'running';
  const durationMs = end?.durationMs ?? summary?.durationMs;
  const cost = end?.cost ?? summary?.cost;
  const startedAt = summary?.startedAt ?? start?.t;
  const forkOf = start?.forkOf ?? summary?.forkOf;
  // A fork is answered from its parent's recording only up to its step: its badge says fork, not replayed.
  const replayed = forkOf === undefined && (summary?.replayed ?? start?.replayOf !== undefined);
  const forkThen = start?.forkOf?.then;
  return (
    <dl className="run-header" aria-label="Run details" title={snapshot.runId}>
      <div>
        <dt>Agent</dt>
        <dd>
          <strong>{summary?.agent ?? agentOf(script)}</strong>
        </dd>
      </div>
      <div>
        <dt>Model</dt>
        <dd>
          {model ? (
            <>
              <code>{model.alias}</code> <span className="muted">({model.provider})</span>
            </>
          ) : start?.toolTrial ? (
            <span className="muted">no model (tool trial)</span>
          ) : (
            '—'
          )}
          {replayed ? <span className="tag">replayed</span> : null}
          {forkOf ? (
            <span
              className="tag fork-tag"
              title={
                forkThen === 'live'
                  ? `Answered from the parent's recording up to step ${forkOf.step}, live after it`
                  : forkThen === 'replay'
                    ? `Answered from the parent's recording up to step ${forkOf.step}, and on replay after it`
                    : `Answered from the parent's recording up to step ${forkOf.step}`
              }
            >
              fork @ {forkOf.step}
              {forkThen ? ` · ${forkThen}` : ''}
            </span>
          ) : null}
        </dd>
      </div>
      <div>
        <dt>Started</dt>
        <dd>{startedAt ? formatTime(startedAt) : '—'}</dd>
      </div>
      <div>
        <dt>Duration</dt>
        <dd>{formatDuration(durationMs)}</dd>
      </div>
      <div>
        <dt>Status</dt>
        <dd>
          <span className={`status-pill status-${status}`}>{status}</span>
        </dd>
      </div>
      <div>
        <dt>Cost</dt>
        <dd>{runCostText(cost, end ? snapshot.rounds.length : (summary?.rounds ?? snapshot.rounds.length))}</dd>
      </div>
      {forkOf ? (
        <div>
          <dt>Fork of</dt>
          <dd title={forkOf.runId}>
            step {forkOf.step} of <code>{forkOf.runId.replace(/^run-/, '').slice(0, 19)}</code>
          </dd>
        </div>
      ) : null}
    </dl>
  );
}
