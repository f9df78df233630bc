import type { JsonObject } from '../../../common/json.js';
import { redactSecrets } from '../secrets/redact.js';
import { displayUrl, readBodyCapped, tail } from './bounded-text.js';
import { ToolFailure } from './tool-spec.js';
import { errorMessage } from '../../../common/error-message.js';

/** Default milliseconds before an http tool call is abandoned. */
export const DEFAULT_HTTP_TIMEOUT_MS = 30_000;
/** Largest response body an http tool accepts, in bytes. */
export const HTTP_TOOL_MAX_BYTES = 4 * 1024 * 1024;
/** Most redirects followed for one call (http tools and http_get). */
export const MAX_REDIRECTS = 5;

/** Where header secrets come from: the keychain-backed SecretStore (only `get` is needed). */
export interface SecretSource {
  get(name: string): Promise<string | undefined>;
}

/** The `fetch` used for http tools; injectable for tests. */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

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
        `secret "${value.secret}" for header "${name}" is not set; store it with \`promptforge keys set ${value.secret}\` or in the studio's credentials settings`,
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

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Headers a redirect to another origin never carries, even when written literally in the catalog. */
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

/**
 * One request with a timeout (for the whole redirect chain) and a body cap. Redirects are
 * followed by hand, at most {@link MAX_REDIRECTS}, only to http(s) URLs; a redirect to another
 * origin is refused when secret headers are set, and drops credential headers otherwise.
 * Network failures, timeouts, aborts and oversize bodies become ToolFailures; URLs in messages
 * have no query string or user info, and messages are redacted. `url` is where the body came from.
 */
export async function fetchText(
  fetchImpl: FetchLike,
  url: string,
  init: RequestInit,
  signal: AbortSignal,
  timeoutMs: number,
  maxBytes: number,
  secrets: SecretHeaders = { secretValues: [], secretHeaders: [] },
): Promise<{ ok: boolean; status: number; text: string; url: string }> {
  const origin = new URL(url).origin;
  const timeout = AbortSignal.timeout(timeoutMs);
  const combined = AbortSignal.any([signal, timeout]);
  const fail = (message: string) => new ToolFailure(redactSecrets(message, secrets.secretValues));
  let current = url;
  let request: RequestInit = { ...init };
  try {
    for (let redirects = 0; ; redirects += 1) {
      const response = await fetchImpl(current, { ...request, signal: combined, redirect: 'manual' });
      if (REDIRECTS.has(response.status)) {
        await response.body?.cancel().catch(() => undefined);
        const location = response.headers.get('location');
        if (location === null)
          throw fail(`HTTP ${response.status} from ${displayUrl(current)} without a Location header`);
        const next = redirectTarget(location, current);
        if (next === undefined) throw fail(`${displayUrl(current)} redirected to an invalid URL`);
        if (next.protocol !== 'http:' && next.protocol !== 'https:')
          throw fail(`${displayUrl(current)} redirected to a ${next.protocol} URL; only http and https are followed`);
        if (redirects >= MAX_REDIRECTS)
          throw fail(`more than ${MAX_REDIRECTS} redirects, starting at ${displayUrl(url)}`);
        if (next.origin !== origin) {
          if (secrets.secretHeaders.length > 0)
            throw fail(
              `${displayUrl(current)} redirected to another origin (${next.origin}); the secret header ` +
                `${secrets.secretHeaders.map((name) => `"${name}"`).join(', ')} is only sent to ${origin}. ` +
                "Point the tool's url at the final address.",
            );
          request = { ...request, headers: withoutCredentials(request.headers) };
        }
        request = afterRedirect(request, response.status);
        current = next.href;
        continue;
      }
      const { text, exceeded } = await readBodyCapped(response.body, maxBytes);
      if (exceeded) throw fail(`response from ${displayUrl(current)} exceeded ${maxBytes} bytes`);
      return { ok: response.ok, status: response.status, text, url: current };
    }
  } catch (error) {
    if (error instanceof ToolFailure) throw error;
    const where = displayUrl(current);
    if (timeout.aborted) throw fail(`timed out after ${timeoutMs} ms waiting for ${where}`);
    if (signal.aborted) throw fail(`cancelled while waiting for ${where}`);
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const detail = cause?.code ?? cause?.message ?? errorMessage(error);
    throw fail(`request to ${where} failed: ${detail}`);
  }
}

function redirectTarget(location: string, base: string): URL | undefined {
  try {
    return new URL(location, base);
  } catch {
    return undefined;
  }
}

/** 303, and 301/302 after a POST, continue as a GET without a body (as browsers do); 307/308 repeat the request. */
function afterRedirect(request: RequestInit, status: number): RequestInit {
  const method = (request.method ?? 'GET').toUpperCase();
  if (status === 303 || ((status === 301 || status === 302) && method === 'POST')) {
    const headers = { ...(request.headers as Record<string, string> | undefined) };
    delete headers['content-type'];
    const { body: _body, ...rest } = request;
    return { ...rest, method: method === 'HEAD' ? 'HEAD' : 'GET', headers };
  }
  return request;
}

function withoutCredentials(headers: RequestInit['headers']): Record<string, string> {
  const out: Record<string, string> = { ...(headers as Record<string, string> | undefined) };
  for (const name of Object.keys(out)) if (CREDENTIAL_HEADERS.includes(name.toLowerCase())) delete out[name];
  return out;
}
