/** A tool's approval and trust tags, as the explorer shows them (ask / deny, untrusted). */
import type { ToolSummary } from '../../../common/studio-schemas.js';

export function ToolTags({ tool }: { tool: Pick<ToolSummary, 'approval' | 'trust'> }) {
  if (tool.approval === 'auto' && tool.trust !== 'untrusted') return null;
  return (
    <span className="tool-badges">
      {tool.approval !== 'auto' ? <span className={`tag approval-${tool.approval}`}>{tool.approval}</span> : null}
      {tool.trust === 'untrusted' ? <span className="tag trust-untrusted">untrusted</span> : null}
    </span>
  );
}
