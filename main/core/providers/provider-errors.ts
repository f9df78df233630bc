// How a provider exchange fails, in words: ProviderErrors with secrets scrubbed, and the mapping of HTTP statuses and network failures.
import { ProviderError } from './model-provider.js';
import { wordsFor, type Surface } from '../surface-words.js';
import { redactSecrets } from '../secrets/redact.js';

/** Who an HTTP exchange is with, for error messages. */
export interface ProviderEndpoint {
  /** Provider id, used in the `promptforge keys set <id>` hint. */
  providerId: string;
  /** Human name, e.g. "OpenAI" or "Ollama". */
  label: string;
  /** Extra sentence for connection failures, e.g. how to start a local server. */
  connectionHint?: string;
  /** Whether a key was configured (changes the 401 wording). */
  hasKey: boolean;
  /** Values scrubbed from every message (the key). */
  secrets: readonly (string | undefined)[];
  /** Where the person reads the errors (their advice names a command or a view). */
  surface?: Surface | undefined;
}

/** Characters of a provider's error text shown in a message. */
const ERROR_BODY_LIMIT = 500;

/** The error for a stream that ended before its terminal event. */
export function streamCutOffError(endpoint: ProviderEndpoint, detail: string): ProviderError {
  return new ProviderError(
    'stream',
    redactSecrets(
      `the ${endpoint.label} stream was cut off before it finished (${detail}); the round's output is incomplete`,
      endpoint.secrets,
    ),
  );
}

/** The error for a round stopped through its AbortSignal. */
export function abortedError(endpoint: ProviderEndpoint): ProviderError {
  return providerError(endpoint, 'aborted', `the request to ${endpoint.label} was stopped`);
}

/** Builds a ProviderError with the endpoint's secrets scrubbed from the message. */
export function providerError(
  endpoint: ProviderEndpoint,
  kind: ProviderError['kind'],
  message: string,
  status?: number,
): ProviderError {
  return new ProviderError(kind, redactSecrets(message, endpoint.secrets), status);
}

/** Shortens and scrubs a provider's error text for inclusion in a message. */
export function describeProviderText(text: string, secrets: readonly (string | undefined)[]): string {
  const scrubbed = redactSecrets(text.trim(), secrets);
  const oneLine = scrubbed.replace(/\s+/g, ' ');
  return oneLine.length > ERROR_BODY_LIMIT ? `${oneLine.slice(0, ERROR_BODY_LIMIT)}…` : oneLine;
}

/**
 * The error for an HTTP error answer that is not retried: `auth` for 401/403 (with how to set a new
 * key), `rate-limit` for 429 (saying when a Retry-After was too long to honour), `server` for 5xx
 * and 408, `bad-request` for the rest. `text` is the start of the answer's body, shown scrubbed.
 */
export function httpStatusError(
  endpoint: ProviderEndpoint,
  answer: {
    status: number;
    text: string;
    attempt: number;
    refusedRetryAfterMs: number | undefined;
    maxRetryAfterMs: number;
  },
): ProviderError {
  const { status, text, attempt, refusedRetryAfterMs } = answer;
  const { label, providerId } = endpoint;
  const said = text.trim() ? ` Provider said: ${describeProviderText(text, endpoint.secrets)}` : '';
  const tries = attempt === 0 ? '' : ` after ${attempt} ${attempt === 1 ? 'retry' : 'retries'}`;
  if (status === 401 || status === 403) {
    const lead = endpoint.hasKey ? `key rejected by ${label}` : `${label} requires a key and none is set`;
    return providerError(
      endpoint,
      'auth',
      `${lead} (HTTP ${status}). Set a new key ${wordsFor(endpoint.surface).keyWhere(providerId)}.${said}`,
      status,
    );
  }
  if (status === 429) {
    const why =
      refusedRetryAfterMs !== undefined
        ? ` and asks to wait ${Math.ceil(refusedRetryAfterMs / 1000)} s, longer than the ${Math.round(answer.maxRetryAfterMs / 1000)} s PromptForge waits`
        : tries;
    return providerError(
      endpoint,
      'rate-limit',
      `${label} is rate limiting requests (HTTP 429)${why}. Wait a moment and run again, or check your plan's limits.${said}`,
      status,
    );
  }
  if (status >= 500 || status === 408) {
    return providerError(
      endpoint,
      'server',
      `${label} returned a server error (HTTP ${status})${tries}. Try again later.${said}`,
      status,
    );
  }
  return providerError(endpoint, 'bad-request', `${label} rejected the request (HTTP ${status}).${said}`, status);
}

/** The most specific error code (`ECONNREFUSED`...) in a failure's causes, if any. */
export function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'ABORT_ERR') return code;
    const nested = (current as { errors?: unknown }).errors;
    if (Array.isArray(nested) && nested.length > 0) {
      const inner = errorCode(nested[0]);
      if (inner) return inner;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** A failure in words, with its cause. */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error && cause.message ? `${error.message}: ${cause.message}` : error.message;
  }
  return String(error);
}

/** A duration in words: `300 ms`, `45 s`, `30 min`. */
export function formatDuration(ms: number): string {
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms >= 1000) return `${Math.round(ms / 1000)} s`;
  return `${ms} ms`;
}
