/**
 * A Streamable HTTP server's sign-in in the explorer: signed in (as whom, until when, which
 * scopes; never a token) or not; Sign in (main opens the system browser on the person's press and
 * waits for it to come back; the wait can be cancelled) and Sign out (main asks first, in its own
 * dialog). On a call that failed for want of a sign-in (`onFailedCall`) it offers the sign-in only,
 * and says that nothing is retried by itself.
 */
import { useEffect, useState } from 'react';
import type { McpLoginStateView } from '../../../common/mcp-person.js';
import { call, describeError } from '../shell/studio-api';
import { loginSummary } from './mcp-lists';

export function McpLogin({
  server,
  version,
  onFailedCall = false,
}: {
  server: string;
  version: string;
  onFailedCall?: boolean;
}) {
  const [state, setState] = useState<{ for: string; login: McpLoginStateView | null } | undefined>(undefined);
  const [waiting, setWaiting] = useState(false);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  // Read again when the server's state changes (a sign-in a run asked for, a sign-out elsewhere).
  useEffect(() => {
    let live = true;
    call('mcp:login-state', { server }).then(
      (login) => live && setState({ for: server, login }),
      (failure: unknown) => {
        if (!live) return;
        // On a failed call the offer is only a name to look up (a recording's, perhaps): a server
        // this workspace cannot sign in to now (restricted, gone) offers nothing there.
        if (onFailedCall) setState({ for: server, login: null });
        else setError(describeError(failure));
      },
    );
    return () => {
      live = false;
    };
  }, [server, version, onFailedCall]);
  const login = state?.for === server ? state.login : undefined;
  if (login === null) return null;

  const signIn = (): void => {
    setWaiting(true);
    setError(null);
    setMessage(null);
    call('mcp:login', { server })
      .then(
        (next) => {
          setState({ for: server, login: next });
          setMessage(
            onFailedCall
              ? 'Signed in. The call is not retried by itself: run the agent again, or fork from this call.'
              : 'Signed in.',
          );
        },
        (failure: unknown) => setError(describeError(failure)),
      )
      .finally(() => setWaiting(false));
  };
  const signOut = (): void => {
    setBusy(true);
    setError(null);
    setMessage(null);
    call('mcp:logout', { server })
      .then(
        (result) => {
          setState({ for: server, login: result.state });
          if (!result.signedOut) setMessage('Still signed in.');
          else if (result.revoked) setMessage('Signed out; the authorization server revoked the tokens.');
          else setMessage('Signed out.');
          // Tokens the server may still accept are said aloud, never left as a quiet success.
          const problem = result.revokeProblem;
          if (problem) setError(`${problem.charAt(0).toUpperCase()}${problem.slice(1)}.`);
        },
        (failure: unknown) => setError(describeError(failure)),
      )
      .finally(() => setBusy(false));
  };

  const signedIn = login?.state === 'signed-in' || login?.state === 'expired';
  return (
    <div className="mcp-login" role="group" aria-label={`Sign-in of MCP server ${server}`}>
      <p className="small mcp-login-state">{login === undefined ? 'Reading the sign-in…' : loginSummary(login)}</p>
      {waiting ? (
        <div className="button-row">
          <span className="small" role="status">
            Waiting for your browser to come back…
          </span>
          <button
            type="button"
            className="button button-small"
            onClick={() => void call('mcp:cancel-login', { server }).catch(() => undefined)}
          >
            Cancel sign-in
          </button>
        </div>
      ) : (
        <div className="button-row">
          <button
            type="button"
            className="button button-small"
            disabled={busy || login === undefined || login.state === 'unavailable'}
            onClick={signIn}
            aria-label={`${signedIn ? 'Sign in again to' : 'Sign in to'} MCP server ${server}`}
          >
            {onFailedCall ? `Sign in to MCP server ${server}…` : signedIn ? 'Sign in again…' : 'Sign in…'}
          </button>
          {signedIn && !onFailedCall ? (
            <button
              type="button"
              className="button button-small"
              disabled={busy}
              onClick={signOut}
              aria-label={`Sign out of MCP server ${server}`}
            >
              Sign out…
            </button>
          ) : null}
        </div>
      )}
      <p className="small muted" role="status">
        {message}
      </p>
      {error ? (
        <p role="alert" className="error-text small">
          {error}
        </p>
      ) : null}
    </div>
  );
}
