/**
 * What an approval card says besides the call: which of the person's rules is part of why it asks
 * (or why none decided it), its sinks, and what the tool's MCP server claims about it.
 */
import type { PendingApproval } from '../../../common/studio-schemas.js';
import { DrawnPlain } from './DefinitionChange';
import { claimsSentence, claimsTrustSentence } from './server-claims';

/** Which rule applied to the call, or why none did. */
export function RuleLine({ approval }: { approval: PendingApproval }) {
  const { rule } = approval;
  if (!rule)
    return (
      <p className="card-rule small muted">
        No rule of yours decides this call, so{' '}
        {approval.reason === 'tainted' ? 'its untrusted arguments make it ask' : 'the tool’s policy (ask) makes it ask'}
        .
      </p>
    );
  return (
    <div className="card-rule small">
      <p>
        <span className="card-fact-label">Rule:</span> <DrawnPlain text={rule.text} />
      </p>
      {rule.changes && rule.changes.length > 0 ? (
        <ul className="definition-change-details">
          {rule.changes.map((change) => (
            <li key={change}>
              <DrawnPlain text={change} />
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/** The argument pointers marked as sinks: they ask on any untrusted text, whatever the rules. */
export function SinksLine({ sinks }: { sinks: readonly string[] | undefined }) {
  if (!sinks || sinks.length === 0) return null;
  return (
    <p className="card-sinks small">
      <span className="card-fact-label">Sinks:</span>{' '}
      {sinks.map((sink, index) => (
        <span key={sink}>
          {index > 0 ? ', ' : ''}
          <code>
            <DrawnPlain text={sink} />
          </code>
        </span>
      ))}{' '}
      (ask on any untrusted text)
    </p>
  );
}

/** What the tool's MCP server claims about it, as its claims, and whether the person's rules use them. */
export function ServerClaims({
  annotations,
  trusted,
}: Pick<PendingApproval, 'annotations'> & { trusted: boolean | undefined }) {
  const sentence = claimsSentence(annotations);
  if (sentence === '') return null;
  return (
    <p className="server-claims small">
      <span className="card-fact-label">{sentence}.</span> <span className="muted">{claimsTrustSentence(trusted)}</span>
    </p>
  );
}
