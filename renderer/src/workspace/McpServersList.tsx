import { useEffect, useId, useState } from 'react';
import type { McpServersInfo, ToolSummary } from '../../../common/studio-schemas.js';
import { ToolClaims } from '../approvals/ToolClaims';
import { ToolTags } from './ToolTags';
import { call, describeError, useStudioEvent } from '../shell/studio-api';
import { ReviewTrustButton } from '../trust/ReviewTrustButton';
import { McpServerExtras } from '../mcp/McpServerExtras';
import { manifestServerNames, useWorkspaceTrust } from '../trust/trust-store';

/** How much of a server's stderr the explorer shows (the main process keeps 64 KiB). */
const STDERR_SHOWN = 8000;

/** About three lines of the explorer column: a longer description gets a "more" toggle. */
const DESCRIPTION_CLAMP_CHARS = 90;

/** Why the servers do not start in Restricted mode, and the way to the review. */
function RestrictedServers({ names }: { names: string[] }) {
  return (
    <div className="mcp-servers" aria-label="MCP servers">
      <h3 className="muted small">MCP servers</h3>
      <p className="small mcp-restricted">
        Not started in Restricted mode:{' '}
        {names.map((name, index) => (
          <span key={name}>
            {index > 0 ? ', ' : null}
            <code>{name}</code>
          </span>
        ))}
        . {names.length === 1 ? 'It starts' : 'They start'} only once you trust this workspace.
      </p>
      <ReviewTrustButton className="button button-small">Review and trust…</ReviewTrustButton>
    </div>
  );
}

/**
 * The workspace's MCP servers in the explorer: each with its status (stopped, starting, ready,
 * error with the end of its stderr), its tools (the one place the explorer lists them: their
 * approval and trust tags, the server's claims, their schemas, and Try), and restart and stop actions.
 * Showing them starts none (`mcp:status`); "Start servers and list their tools" starts those not
 * running (`mcp:list`), on the person's click only. In Restricted mode none starts, and it says
 * why. Everything a server sent is shown as plain text.
 */
export function McpServersList({
  workspaceRoot,
  tools,
  onTry,
}: {
  workspaceRoot: string;
  /** The workspace's tools, for each MCP tool's approval, trust and claims. */
  tools: readonly ToolSummary[];
  /** Opens "Try a tool" for `alias`. */
  onTry: (alias: string) => void;
}) {
  // What the servers' list says, for the workspace it was read for: another workspace shows
  // "loading" (null) until its own list arrives, without an effect clearing the old one.
  const [state, setState] = useState<{ root: string; info: McpServersInfo | null; error: string | null }>({
    root: workspaceRoot,
    info: null,
    error: null,
  });
  const current = state.root === workspaceRoot ? state : { root: workspaceRoot, info: null, error: null };
  const { info, error } = current;
  const setInfo = (value: McpServersInfo) => setState({ root: workspaceRoot, info: value, error: null });
  const setError = (value: string) =>
    setState((old) =>
      old.root === workspaceRoot ? { ...old, error: value } : { root: workspaceRoot, info: null, error: value },
    );
  const [openTool, setOpenTool] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [listing, setListing] = useState(false);
  const { trust } = useWorkspaceTrust();
  const restricted = trust?.state === 'restricted';
  // An open tool's description shows about three lines until "more" is pressed.
  const [descriptionOpen, setDescriptionOpen] = useState(false);
  const descriptionId = useId();

  // Read again when the workspace's trust changes: trusting it makes its servers (stopped) appear.
  const trustKey = trust ? `${trust.state} ${trust.digest}` : '';
  useEffect(() => {
    let live = true;
    call('mcp:status', {}).then(
      (value) => live && setState({ root: workspaceRoot, info: value, error: null }),
      (failure: unknown) => live && setState({ root: workspaceRoot, info: null, error: describeError(failure) }),
    );
    return () => {
      live = false;
    };
  }, [workspaceRoot, trustKey]);
  useStudioEvent('mcp-changed', (value) => setInfo(value));

  const startAll = () => {
    setListing(true);
    call('mcp:list', {})
      .then(
        (value) => setInfo(value),
        (failure: unknown) => setError(describeError(failure)),
      )
      .finally(() => setListing(false));
  };

  const act = (method: 'mcp:restart' | 'mcp:stop', server: string) => {
    setBusy(server);
    call(method, { server })
      .then(
        (value) => setInfo(value),
        (failure: unknown) => setError(describeError(failure)),
      )
      .finally(() => setBusy(null));
  };

  const restrictedNames = restricted ? manifestServerNames(trust) : [];
  if (restrictedNames.length > 0) return <RestrictedServers names={restrictedNames} />;
  if (error) return <p className="error-text small">MCP servers: {error}</p>;
  if (!info || info.servers.length === 0) return null;
  const allReady = info.servers.every((server) => server.state === 'ready');
  return (
    <div className="mcp-servers" aria-label="MCP servers">
      <h3 className="muted small">MCP servers</h3>
      <button
        type="button"
        className="button button-small mcp-start"
        // aria-disabled, not disabled: the button keeps focus while the servers start.
        aria-disabled={listing}
        aria-describedby={`${descriptionId}-start-note`}
        onClick={() => {
          if (!listing) startAll();
        }}
      >
        {listing ? 'Starting…' : 'Start servers and list their tools'}
      </button>
      <p id={`${descriptionId}-start-note`} className="muted small mcp-start-note">
        {allReady
          ? 'Every server is running.'
          : 'Opening a folder starts none; a run or a tool trial starts the one it needs.'}
      </p>
      <ul className="explorer-list">
        {info.servers.map((server) => (
          <li key={server.name} className="mcp-server" aria-label={`MCP server ${server.name}`}>
            <div className="explorer-entry">
              <span
                className={`status-dot status-${server.state === 'ready' ? 'ok' : server.state}`}
                aria-hidden="true"
              />
              <span className="item-label">{server.name}</span>
              <span className="tag">{server.transport}</span>
              <span className="muted small" aria-label={`status ${server.state}`}>
                {server.state}
              </span>
            </div>
            {/* On their own line: the explorer column is narrow, and the name must stay readable. */}
            <div className="mcp-actions button-row">
              <button
                type="button"
                className="button button-small"
                disabled={busy === server.name}
                onClick={() => act('mcp:restart', server.name)}
                aria-label={`Restart MCP server ${server.name}`}
              >
                restart
              </button>
              <button
                type="button"
                className="button button-small"
                disabled={busy === server.name || server.state === 'stopped'}
                onClick={() => act('mcp:stop', server.name)}
                aria-label={`Stop MCP server ${server.name}`}
              >
                stop
              </button>
            </div>
            {server.error ? <p className="error-text small">{server.error}</p> : null}
            {server.state === 'error' && server.stderrTail.trim() ? (
              <details>
                <summary className="small">stderr</summary>
                {/* Focusable, so a keyboard can scroll a long stack trace. */}
                <pre className="small" tabIndex={0} aria-label={`stderr of ${server.name}`}>
                  {server.stderrTail.slice(-STDERR_SHOWN)}
                </pre>
              </details>
            ) : null}
            <ul className="explorer-list">
              {server.tools.map((tool) => (
                <li key={tool.alias} className="mcp-tool">
                  <button
                    type="button"
                    className="explorer-item tool-item"
                    title={`${tool.alias}: ${tool.description}`}
                    aria-expanded={openTool === tool.alias}
                    onClick={() => {
                      setOpenTool(openTool === tool.alias ? null : tool.alias);
                      setDescriptionOpen(false);
                    }}
                  >
                    <span className="item-label alias-label">{tool.alias}</span>
                  </button>
                  <ToolRowExtras summary={tools.find((entry) => entry.alias === tool.alias)} onTry={onTry} />
                  {openTool === tool.alias ? (
                    <div className="small">
                      <p
                        id={`${descriptionId}-${tool.alias}`}
                        className={`mcp-description${descriptionOpen ? '' : ' clamped'}`}
                      >
                        {tool.description}
                      </p>
                      {tool.description.length > DESCRIPTION_CLAMP_CHARS ? (
                        <button
                          type="button"
                          className="mcp-more small"
                          aria-expanded={descriptionOpen}
                          aria-controls={`${descriptionId}-${tool.alias}`}
                          onClick={() => setDescriptionOpen(!descriptionOpen)}
                        >
                          {descriptionOpen ? 'less' : 'more'}
                        </button>
                      ) : null}
                      <pre aria-label={`Input schema of ${tool.alias}`}>
                        {JSON.stringify(tool.inputSchema, null, 2)}
                      </pre>
                      {tool.outputSchema ? (
                        <pre aria-label={`Output schema of ${tool.alias}`}>
                          {JSON.stringify(tool.outputSchema, null, 2)}
                        </pre>
                      ) : null}
                    </div>
                  ) : null}
                </li>
              ))}
            </ul>
            {/* Sign-in, resources and prompts: a section of its own (renderer/src/mcp). */}
            <McpServerExtras server={server} />
          </li>
        ))}
      </ul>
      {info.problems.map((problem, index) => (
        <p key={index} className="error-text small">
          {problem.file}:{problem.line}: {problem.message}
        </p>
      ))}
    </div>
  );
}

/** An MCP tool's tags and the server's claims, as the Tools list shows them, and its Try button. */
function ToolRowExtras({ summary, onTry }: { summary: ToolSummary | undefined; onTry: (alias: string) => void }) {
  if (!summary) return null;
  return (
    <div className="mcp-tool-extras">
      <ToolTags tool={summary} />
      <button
        type="button"
        className="button button-small"
        onClick={() => onTry(summary.alias)}
        aria-label={`Try ${summary.alias}`}
      >
        Try
      </button>
      <ToolClaims annotations={summary.annotations} trusted={summary.annotationsTrusted} />
    </div>
  );
}
