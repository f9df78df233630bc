import { useEffect, useId, useState } from 'react';
import type { McpServersInfo } from '../../../common/studio-schemas.js';
import { call, describeError, useStudioEvent } from '../shell/studio-api';

/** How much of a server's stderr the explorer shows (the main process keeps 64 KiB). */
const STDERR_SHOWN = 8000;

/** About three lines of the explorer column: a longer description gets a "more" toggle. */
const DESCRIPTION_CLAMP_CHARS = 90;

/**
 * The workspace's MCP servers in the explorer: each with its status (starting, ready, error with
 * the end of its stderr), its tools with their schemas, and restart and stop actions. Listing
 * starts the servers that are not running. Everything a server sent is shown as plain text.
 */
export function McpServersList({ workspaceRoot }: { workspaceRoot: string }) {
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
  // An open tool's description shows about three lines until "more" is pressed.
  const [descriptionOpen, setDescriptionOpen] = useState(false);
  const descriptionId = useId();

  useEffect(() => {
    let live = true;
    call('mcp:list', {}).then(
      (value) => live && setState({ root: workspaceRoot, info: value, error: null }),
      (failure: unknown) => live && setState({ root: workspaceRoot, info: null, error: describeError(failure) }),
    );
    return () => {
      live = false;
    };
  }, [workspaceRoot]);
  useStudioEvent('mcp-changed', (value) => setInfo(value));

  const act = (method: 'mcp:restart' | 'mcp:stop', server: string) => {
    setBusy(server);
    call(method, { server })
      .then(
        (value) => setInfo(value),
        (failure: unknown) => setError(describeError(failure)),
      )
      .finally(() => setBusy(null));
  };

  if (error) return <p className="error-text small">MCP servers: {error}</p>;
  if (!info || info.servers.length === 0) return null;
  return (
    <div className="mcp-servers" aria-label="MCP servers">
      <h3 className="muted small">MCP servers</h3>
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
                <pre className="small">{server.stderrTail.slice(-STDERR_SHOWN)}</pre>
              </details>
            ) : null}
            <ul className="explorer-list">
              {server.tools.map((tool) => (
                <li key={tool.alias}>
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
