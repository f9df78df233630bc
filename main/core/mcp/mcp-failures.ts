// How an MCP server's start and call failures read: the host's words first, then the server's own (redacted) and its stderr tail.
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../../../common/error-message.js';
import type { McpServerSpec } from '../catalog/mcp-spec.js';
import { displayUrl, tail } from '../tools/bounded-text.js';
import { ToolFailure } from '../tools/tool-spec.js';
import { MCP_PROGRESS_TIMEOUT_FACTOR } from './mcp-bounds.js';
import { HOST_REFUSED, HOST_REFUSED_DATA } from './mcp-stdio.js';
import { McpStartError } from './mcp-transport.js';
import { authErrorIn, type McpAuthError } from './oauth/oauth-fetch.js';

/** What a failure's words need of the connection it happened on. */
export interface FailureContext {
  spec: McpServerSpec;
  /** `text` with the secrets the host knows redacted. */
  redact(text: string): string;
  /** The server's stderr tail, redacted. */
  stderrTail(): string;
  /** Why the host stopped the server (it broke a bound), if it did. */
  stopReason: string | undefined;
  /** Whether the connection to the server is closed now. */
  closed: boolean;
}

/** Why the server did not start, in the person's words (`error` as the start threw it). */
export function describeStartError(error: unknown, context: FailureContext): McpStartError {
  if (error instanceof McpStartError) return error;
  const spec = context.spec;
  const where =
    spec.transport.type === 'http'
      ? `at ${displayUrl(spec.transport.url)}`
      : `("${[spec.transport.command, ...spec.transport.args].join(' ').slice(0, 200)}")`;
  const code = (error as NodeJS.ErrnoException).code;
  const cause = (error as { cause?: { code?: string } }).cause?.code;
  let reason: string;
  let quoted: string | undefined;
  const auth = authErrorIn(error);
  if (auth) return new McpStartError(context.redact(auth.message), undefined, signInFor(auth.kind, spec));
  if (context.stopReason !== undefined) reason = `the host stopped it while starting because ${context.stopReason}`;
  else if (code === 'ENOENT')
    reason = `the command "${spec.transport.type === 'stdio' ? spec.transport.command : ''}" was not found; check "command:" (a name on PATH, or a path relative to the workspace)`;
  else if (error instanceof McpError && error.code === ErrorCode.RequestTimeout)
    reason = `it did not answer initialize within ${spec.startTimeoutMs} ms; raise "startTimeoutMs:" or check the server`;
  else if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) reason = 'it exited while starting';
  else if (cause === 'ECONNREFUSED' || /ECONNREFUSED|fetch failed/.test(errorMessage(error)))
    reason = 'the connection was refused; check that the server is running and "url:" is right';
  else {
    // The error's own text may be the server's (its answer to initialize, an HTTP body): it is
    // quoted, so that a call's failure puts it in the run's envelope, not among the host's words.
    reason = 'it failed to start: ';
    quoted = context.redact(errorMessage(error).slice(0, 500));
  }
  const stderr = tail(context.stderrTail(), 2000);
  return new McpStartError(
    `${context.redact(`MCP server "${spec.name}" ${where} is not available: ${reason}`)}${quoted ?? ''}`,
    stderr || undefined,
    undefined,
    quoted,
  );
}

/** A request's failure as the run's tool error (`signal` is the run's, `timeoutMs` the request's). */
export function callFailure(
  error: unknown,
  signal: AbortSignal,
  timeoutMs: number,
  context: FailureContext,
): ToolFailure {
  if (signal.aborted) return new ToolFailure('cancelled: the run was stopped');
  if (error instanceof ToolFailure) return error;
  const auth = authErrorIn(error);
  if (auth) return new ToolFailure(context.redact(auth.message), undefined, signInFor(auth.kind, context.spec));
  if (error instanceof McpError) {
    if (error.code === ErrorCode.RequestTimeout)
      return new ToolFailure(
        /total timeout/i.test(error.message)
          ? `timed out after ${timeoutMs * MCP_PROGRESS_TIMEOUT_FACTOR} ms in all (${MCP_PROGRESS_TIMEOUT_FACTOR}× timeoutMs; progress notifications restart the clock only up to that; the request was cancelled)`
          : `timed out after ${timeoutMs} ms (the request was cancelled)`,
      );
    // A server can send the ConnectionClosed code itself; only a closed connection counts.
    if (error.code === ErrorCode.ConnectionClosed && context.closed) {
      const stderr = tail(context.stderrTail(), 2000);
      const message =
        context.stopReason !== undefined
          ? `MCP server "${context.spec.name}" was stopped during the call because ${context.stopReason}; it is started again on the next call`
          : `MCP server "${context.spec.name}" stopped during the call; it is started again on the next call`;
      return stderr ? new ToolFailure(`${message}; its stderr ends: ${stderr}`, stderr) : new ToolFailure(message);
    }
    // Only an error the host made carries its private data object; a server can send the code.
    if (error.code === HOST_REFUSED && error.data === HOST_REFUSED_DATA)
      return new ToolFailure(error.message.replace(/^MCP error -?\d+: /, ''));
    // Any other error message was written by the server.
    const text = context.redact(error.message.slice(0, 4000));
    return new ToolFailure(`the server answered with an error: ${text}`, text);
  }
  const text = context.redact(errorMessage(error).slice(0, 4000));
  return new ToolFailure(`the call failed: ${text}`, text);
}

/** A start failure as a call's error: host words, then the server's stderr tail as tool text. */
export function startFailure(error: unknown): ToolFailure {
  if (!(error instanceof McpStartError)) return new ToolFailure(`the MCP server failed: ${errorMessage(error)}`);
  const quoted = error.quoted !== undefined && error.message.endsWith(error.quoted) ? error.quoted : undefined;
  if (!error.serverText) return new ToolFailure(error.message, quoted, error.signIn);
  // The server's words run from its quoted reason (when there is one) to the end of its stderr.
  const stderr = `; its stderr ends: ${error.serverText}`;
  return new ToolFailure(
    `${error.message}${stderr}`,
    quoted !== undefined ? `${quoted}${stderr}` : error.serverText,
    error.signIn,
  );
}

/** The server to sign in to, when an authorization failure is one a sign-in by the person mends. */
function signInFor(kind: McpAuthError['kind'], spec: McpServerSpec): string | undefined {
  return kind === 'login-required' ? spec.name : undefined;
}
