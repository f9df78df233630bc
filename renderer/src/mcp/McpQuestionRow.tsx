/**
 * An MCP server's question in a run's conversation, as its transcript records it: what the server
 * asked during which call, and how it was answered (by you, at the terminal, or by the host). The
 * server's words stay untrusted text.
 */
import type { RunEvent } from '../../../common/run-events.js';
import { decidedBy } from '../approvals/approval-scope';
import { InertText } from '../shell/InertText';
import { UntrustedText } from './question-parts';
import './mcp.css';

type QuestionEvent = Extract<RunEvent, { type: 'mcp-elicitation' | 'mcp-sampling' }>;

const elicitationOutcome: Record<Extract<QuestionEvent, { type: 'mcp-elicitation' }>['action'], string> = {
  accept: 'Answered',
  decline: 'Declined',
  cancel: 'Cancelled',
  refused: 'Refused',
};

const samplingOutcome: Record<Extract<QuestionEvent, { type: 'mcp-sampling' }>['decision'], string> = {
  approve: 'Approved',
  'approve-edited': 'Approved with an edit',
  deny: 'Denied',
  declined: 'Declined',
  refused: 'Refused',
  failed: 'Approved, but the model round failed',
};

export function McpQuestionRow({ event }: { event: QuestionEvent }) {
  const during = event.callId !== undefined ? ` during ${event.callId}${event.alias ? ` (${event.alias})` : ''}` : '';
  const what =
    event.type === 'mcp-sampling'
      ? 'asked for a model round'
      : event.mode === 'url'
        ? 'asked you to open a page'
        : 'asked you';
  const outcome = event.type === 'mcp-sampling' ? samplingOutcome[event.decision] : elicitationOutcome[event.action];
  return (
    <article className="conversation-card mcp-question-row" aria-label={`MCP server ${event.server} ${what}`}>
      <header className="card-header">
        <span className="small mcp-row-title">
          MCP server <code>{event.server}</code> {what}
          {during}
        </span>
      </header>
      <p className="small">
        {outcome} by {decidedBy(event.source)}
        {event.reason !== undefined ? `: ${event.reason}` : '.'}
      </p>
      {event.type === 'mcp-elicitation' && event.message !== undefined ? (
        <UntrustedText label="the server's message" text={event.message} />
      ) : null}
      {event.type === 'mcp-elicitation' && event.url !== undefined ? <code className="small">{event.url}</code> : null}
      {event.type === 'mcp-elicitation' && event.content !== undefined ? (
        <InertText className="inert-text code-block" text={JSON.stringify(event.content, null, 2)} />
      ) : null}
      {event.type === 'mcp-sampling' && event.content !== undefined ? (
        <>
          <p className="small muted">
            {event.model ? (
              <>
                <code>{event.model.alias}</code> answered
              </>
            ) : (
              'The model answered'
            )}
            {event.usage ? ` · ${event.usage.inputTokens} in / ${event.usage.outputTokens} out` : ''}
          </p>
          <InertText className="inert-text code-block" text={event.content} />
        </>
      ) : null}
    </article>
  );
}
