/** Pieces the MCP server cards share: who asks and during which run, and the server's words as untrusted text. */
import type { ReactNode } from 'react';
import type { RunOrigin } from '../approvals/run-origins';
import { InertText } from '../shell/InertText';
import { duringCall } from './elicitation-form';

/** "MCP server ask asks you", with the run (its agent) and the call the question came with. */
export function QuestionHeading({
  id,
  server,
  what,
  badge,
  question,
  origin,
}: {
  id: string;
  server: string;
  what: string;
  badge: ReactNode;
  question: { runId: string; callId?: string | undefined; alias?: string | undefined };
  origin: RunOrigin | undefined;
}) {
  const during = duringCall(question);
  return (
    <>
      <header className="card-header">
        <h3 id={id}>
          MCP server <code>{server}</code> {what}
        </h3>
        {badge}
      </header>
      <p id={`${id}-origin`} className="approval-origin small">
        {origin ? (
          <>
            Agent <code>{origin.agent}</code>, run <code>{question.runId}</code>
          </>
        ) : (
          <>
            Run <code>{question.runId}</code>
          </>
        )}
        {during !== '' ? `, ${during}` : ''}
      </p>
    </>
  );
}

/** The server's words: inert text under an "untrusted" badge, never markup, never followed. */
export function UntrustedText({ label, text }: { label: string; text: string }) {
  return (
    <div className="mcp-untrusted">
      <div className="output-header">
        <span className="trust-badge trust-untrusted">untrusted</span>
        <span className="muted small">{label}</span>
      </div>
      {/* Focusable: a long text scrolls in its box, and the keyboard must reach it too. */}
      <div className="mcp-server-text" tabIndex={0} role="group" aria-label={`${label} (untrusted)`}>
        <InertText className="inert-text code-block" text={text} />
      </div>
    </div>
  );
}
