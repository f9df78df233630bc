import type { JsonObject } from '../../../common/json.js';
import { redactSecrets } from '../secrets/redact.js';
import { displayUrl, readBodyCapped, tail } from './bounded-text.js';
import { ToolFailure } from './tool-spec.js';
import { errorMessage } from '../../../common/error-message.js';
import { wordsFor, type Surface } from '../surface-words.js';
import {
  MAX_REDIRECTS as SHARED_MAX_REDIRECTS,
  type FetchLike,
  type RedirectableInit,
  RedirectRefusedError,
  fetchFollowingRedirects,
} from '../net/redirects.js';

/** Default milliseconds before an http tool call is abandoned. */
const DEFAULT_HTTP_TIMEOUT_MS = 30_000;
/** Largest response body an http tool accepts, in bytes. */
const HTTP_TOOL_MAX_BYTES = 4 * 1024 * 1024;
/** Most redirects followed for one call (http tools and http_get). */
export const MAX_REDIRECTS = SHARED_MAX_REDIRECTS;

/** Where header secrets come from: the keychain-backed SecretStore (only `get` is needed). */
export interface SecretSource {
  get(name: string): Promise<string | undefined>;
}

/** Settings of one http call (the `http` kind's settings). */
export interface HttpRunOptions {
  url: string;
  headers?: Record<string, string | { secret: string }>;
  timeoutMs?: number;
}

/**
 * POSTs `args` as JSON to the tool's URL and resolves with the response body. Header secrets are
 * resolved here (main process) and redacted (every encoding and fragment the redaction module
 * knows) from every error message and from the returned body, so a server that echoes a key back
 * cannot leak it to the script. A redirect to another origin is refused while secret headers are
 * set: the secret is only ever sent to the origin written in the catalog.
 */
export async function runHttp(
  options: HttpRunOptions,
  args: JsonObject,
  signal: AbortSignal,
  secrets: SecretSource,
  fetchImpl: FetchLike,
  surface?: Surface,
): Promise<string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/plain;q=0.9, */*;q=0.5',
  };
  const secretValues: string[] = [];
  const secretHeaders: string[] = [];
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (typeof value === 'string') {
      headers[name.toLowerCase()] = value;
      continue;
    }
    let secret: string | undefined;
    try {
      secret = await secrets.get(value.secret);
    } catch (error) {
      throw new ToolFailure(`cannot read secret "${value.secret}" for header "${name}": ${errorMessage(error)}`);
    }
    if (secret === undefined) {
      throw new ToolFailure(
        `secret "${value.secret}" for header "${name}" is not set; ${wordsFor(surface).setSecret(value.secret)}`,
      );
    }
    secretValues.push(secret);
    secretHeaders.push(name);
    headers[name.toLowerCase()] = secret;
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_HTTP_TIMEOUT_MS;
  const body = await fetchText(
    fetchImpl,
    options.url,
    { method: 'POST', headers, body: JSON.stringify(args) },
    signal,
    timeoutMs,
    HTTP_TOOL_MAX_BYTES,
    { secretValues, secretHeaders },
  );
  const text = redactSecrets(body.text, secretValues);
  if (!body.ok) {
    // The URL after redirects is the server's choice and may carry the secret too.
    const where = redactSecrets(displayUrl(body.url), secretValues);
    throw new ToolFailure(`HTTP ${body.status} from ${where}: ${tail(text)}`, tail(text));
  }
  return text;
}

/** What {@link fetchText} must keep secret. */
export interface SecretHeaders {
  /** Values to redact from every message. */
  secretValues: readonly string[];
  /** Names of the headers that carry them: no redirect may take these to another origin. */
  secretHeaders: readonly string[];
}

/**
 * One request with a timeout (for the whole redirect chain) and a body cap. Redirects are
 * followed by hand by the shared `fetchFollowingRedirects` (main/core/net/redirects.ts): at most
 * {@link MAX_REDIRECTS}, only to http(s) URLs without user info; a redirect to another origin is
 * refused when secret headers are set, and otherwise followed without any literal header whose
 * name looks like a credential (`Authorization`, `Cookie`, `X-Api-Key`, `X-Auth-Token`, ...).
 * Network failures, timeouts, aborts and oversize bodies become ToolFailures; URLs in messages
 * have no query string or user info, and messages are redacted. `url` is where the body came from.
 */
export async function fetchText(
  fetchImpl: FetchLike,
  url: string,
  init: RedirectableInit,
  signal: AbortSignal,
  timeoutMs: number,
  maxBytes: number,
  secrets: SecretHeaders = { secretValues: [], secretHeaders: [] },
): Promise<{ ok: boolean; status: number; text: string; url: string }> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const combined = AbortSignal.any([signal, timeout]);
  const fail = (message: string) => new ToolFailure(redactSecrets(message, secrets.secretValues));
  let current = url;
  try {
    const { response, url: final } = await fetchFollowingRedirects(
      fetchImpl,
      url,
      { ...init, signal: combined },
      {
        maxRedirects: MAX_REDIRECTS,
        onRequest: (next) => (current = next),
        crossOrigin: (from, to, origin) =>
          secrets.secretHeaders.length > 0
            ? `${from} redirected to another origin (${to}); the secret header ` +
              `${secrets.secretHeaders.map((name) => `"${name}"`).join(', ')} is only sent to ${origin}. ` +
              "Point the tool's url at the final address."
            : undefined,
      },
    );
    const { text, exceeded } = await readBodyCapped(response.body, maxBytes);
    if (exceeded) throw fail(`response from ${displayUrl(final)} exceeded ${maxBytes} bytes`);
    return { ok: response.ok, status: response.status, text, url: final };
  } catch (error) {
    if (error instanceof ToolFailure) throw error;
    if (error instanceof RedirectRefusedError) throw fail(error.message);
    const where = displayUrl(current);
    if (timeout.aborted) throw fail(`timed out after ${timeoutMs} ms waiting for ${where}`);
    if (signal.aborted) throw fail(`cancelled while waiting for ${where}`);
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const detail = cause?.code ?? cause?.message ?? errorMessage(error);
    throw fail(`request to ${where} failed: ${detail}`);
  }
}
