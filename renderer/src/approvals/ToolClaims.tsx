/** The explorer's line under an MCP tool: what its server claims about it (never checked), and whether the person's rules use that. */
import type { ToolAnnotations } from '../../../common/studio-schemas.js';
import { claimWords } from './server-claims';
import './approvals.css';

export function ToolClaims({
  annotations,
  trusted,
}: {
  annotations?: ToolAnnotations | undefined;
  trusted?: boolean | undefined;
}) {
  const words = claimWords(annotations);
  if (words.length === 0) return null;
  return (
    <span
      className="tool-claims small"
      title={
        trusted
          ? 'What the MCP server says of this tool. You listed the server under trustedServers, so your rules may use it.'
          : 'What the MCP server says of this tool: nothing checks it, and your rules ignore it (the server is not under trustedServers).'
      }
    >
      the server says: {words.join(', ')}
      {trusted ? ' · trusted for rules' : ''}
    </span>
  );
}
