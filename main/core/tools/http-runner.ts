import type { JsonObject } from '../../../common/json.js';
import { displayUrl, readBodyCapped, redact, tail } from './bounded-text.js';
import { ToolFailure } from './tool-spec.js';

/** Default milliseconds before an http tool call is abandoned. */
export const DEFAULT_HTTP_TIMEOUT_MS = 30_000;
/** Largest response body an http tool accepts, in bytes. */
export const HTTP_TOOL_MAX_BYTES = 4 * 1024 * 1024;

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
 * resolved here (main process) and scrubbed from every error message and from the returned body,
 * so a server that echoes a key back cannot leak it to the script.
 */
export async function runHttp(
  options: HttpRunOptions,
  args: JsonObject,
  signal: AbortSignal,
  secrets: SecretSource,
  fetchImpl: FetchLike,
): Promise<string> {
  const where = displayUrl(options.url);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/plain;q=0.9, */*;q=0.5',
  };
  const secretValues: string[] = [];
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (typeof value === 'string') {
      headers[name.toLowerCase()] = value;
      continue;
    }
    let secret: string | undefined;
    try {
      secret = await secrets.get(value.secret);
    } catch (error) {
      throw new ToolFailure(`cannot read secret "${value.secret}" for header "${name}": ${(error as Error).message}`);
    }
    if (secret === undefined) {
      throw new ToolFailure(
        `secret "${value.secret}" for header "${name}" is not set; store it with \`promptforge keys set ${value.secret}\` or in the studio's credentials settings`,
      );
    }
    secretValues.push(secret);
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
    secretValues,
  );
  if (!body.ok) throw new ToolFailure(redact(`HTTP ${body.status} from ${where}: ${tail(body.text)}`, secretValues));
  return redact(body.text, secretValues);
}

/**
 * One request with a timeout and a body cap. Network failures, timeouts, aborts and oversize
 * bodies become ToolFailures; the URL in messages has no query string or user info.
 */
export async function fetchText(
  fetchImpl: FetchLike,
  url: string,
  init: RequestInit,
  signal: AbortSignal,
  timeoutMs: number,
  maxBytes: number,
  secretValues: readonly string[] = [],
): Promise<{ ok: boolean; status: number; text: string }> {
  const where = displayUrl(url);
  const timeout = AbortSignal.timeout(timeoutMs);
  const combined = AbortSignal.any([signal, timeout]);
  try {
    const response = await fetchImpl(url, { ...init, signal: combined, redirect: 'follow' });
    const { text, exceeded } = await readBodyCapped(response.body, maxBytes);
    if (exceeded) throw new ToolFailure(`response from ${where} exceeded ${maxBytes} bytes`);
    return { ok: response.ok, status: response.status, text };
  } catch (error) {
    if (error instanceof ToolFailure) throw error;
    if (timeout.aborted) throw new ToolFailure(`timed out after ${timeoutMs} ms waiting for ${where}`);
    if (signal.aborted) throw new ToolFailure(`cancelled while waiting for ${where}`);
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const detail = cause?.code ?? cause?.message ?? (error as Error).message;
    throw new ToolFailure(redact(`request to ${where} failed: ${detail}`, secretValues));
  }
}
