import { setTimeout as delay } from 'node:timers/promises';
import type { JsonValue } from '../../../common/json.js';
import { ProviderError } from './model-provider.js';
import { redactSecrets } from '../secrets/redact.js';
import { RedirectRefusedError, fetchFollowingRedirects } from '../net/redirects.js';

/**
 * Retry policy for 429 and 5xx answers. Every field is optional; `random` and `sleep` exist so
 * tests can observe the waits without waiting.
 */
export interface RetryOptions {
  /** Retries after the first attempt (default 3). */
  maxRetries?: number;
  /** First backoff step in ms, doubled per retry (default 500). */
  baseDelayMs?: number;
  /** Cap on one backoff wait in ms (default 8000). */
  maxDelayMs?: number;
  /** Longest Retry-After the adapter honours, in ms (default 60000); a longer one fails at once. */
  maxRetryAfterMs?: number;
  /** A number in [0, 1) for jitter (default Math.random). */
  random?: () => number;
  /** Waits `ms` milliseconds; must reject promptly when `signal` aborts. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** HTTP settings every adapter accepts. */
export interface ProviderHttpOptions {
  /** The fetch to use (default: the global fetch). */
  fetch?: typeof fetch;
  retry?: RetryOptions;
  /**
   * Inactivity timeout in ms: the longest wait for the response headers, and then for the next
   * event that carries content (default 600000, the OpenAI SDK's default; slow local models and
   * reasoning models can be silent for minutes). SSE comments, pings, empty events and keep-alive
   * bytes do not restart it: a server that only keeps the connection open times out.
   */
  timeoutMs?: number;
  /**
   * The longest one model round may take in all, in ms, from its first request to its last
   * event, retries included, however steadily content arrives (default
   * {@link DEFAULT_MAX_ROUND_MS}). A round over it fails with a `timeout` error.
   */
  maxRoundMs?: number;
}

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
}

/** One wire request: a JSON POST whose answer is an SSE stream. */
export interface StreamRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** Names of the headers in `headers` that carry the key, for messages (e.g. `x-api-key`). */
  keyHeaders: readonly string[];
}

/**
 * How an adapter tells {@link streamSse} that an event it was given carried content (text, a
 * tool-call fragment, a finish, ...). Only content restarts the stream's inactivity timer;
 * comments, pings, empty events and keep-alive bytes never do.
 */
export class StreamProgress {
  private seen = false;

  /** Marks the batch being handled as having carried content. */
  content(): void {
    this.seen = true;
  }

  /** Whether content was marked since the last call; clears the mark. */
  take(): boolean {
    const seen = this.seen;
    this.seen = false;
    return seen;
  }
}

/** One parsed SSE item: a dispatched event, or a line that is not valid SSE (kept verbatim). */
export type SseItem = { kind: 'event'; event: string | undefined; data: string } | { kind: 'malformed'; line: string };

export const DEFAULT_TIMEOUT_MS = 600_000;
/**
 * Default {@link ProviderHttpOptions.maxRoundMs}: 30 minutes. Well above what a real round needs
 * (64k output tokens at a slow 40 tokens a second is under 30 minutes), and it bounds a round
 * that a hostile or broken endpoint keeps alive by trickling content forever.
 */
export const DEFAULT_MAX_ROUND_MS = 30 * 60_000;
/** The longest delay a Node timer can wait (longer ones fire at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;
const DEFAULT_RETRY = { maxRetries: 3, baseDelayMs: 500, maxDelayMs: 8_000, maxRetryAfterMs: 60_000 };
/** Characters of a provider's error text shown in a message. */
const ERROR_BODY_LIMIT = 500;
/**
 * Bytes of an HTTP error response's body the host reads. Only {@link ERROR_BODY_LIMIT} characters
 * are shown, so a few KiB is plenty (even for text of 4-byte UTF-8 characters); the rest of the
 * body is cancelled unread, so a hostile endpoint cannot make the host download a huge error page.
 */
export const ERROR_BODY_READ_BYTES = 8 * 1024;
/**
 * The longest SSE line, and the longest event (the data of all its lines), the parser accepts, in
 * characters. Real events are small: text and OpenAI/Anthropic tool arguments arrive in many
 * small deltas. Gemini sends a whole call's arguments in one event, and the host sends at most
 * 16 MiB to Lua in one reply, so twice that leaves room for any event a script could receive,
 * while an endless line stops long before it exhausts the host's memory.
 */
export const MAX_SSE_EVENT_CHARS = 32 * 1024 * 1024;

const defaultSleep = async (ms: number, signal: AbortSignal): Promise<void> => {
  await delay(ms, undefined, { signal });
};

/**
 * Sends `request`, retrying 429/5xx answers, and yields the SSE items of the answer as they
 * arrive, one batch per network read (batches keep the per-event cost of async iteration off
 * the hot path; see bench/providers.bench.ts). The adapter calls `progress.content()` while it
 * handles a batch that carried content: only that restarts the inactivity timer.
 *
 * Redirects are followed by hand, only within the origin of `request.url` (at most 5, see
 * main/core/net/redirects.ts): a redirect to another origin is refused before anything is sent
 * there, since the request carries the key and the conversation.
 *
 * Every failure is a {@link ProviderError} whose message has the secrets scrubbed: `aborted`
 * when `signal` fires, `timeout` on inactivity or when the round passes its overall cap,
 * `connection` for a refused redirect, `stream` when the connection breaks mid-body or a line
 * or event exceeds {@link MAX_SSE_EVENT_CHARS}. Ending the iteration early cancels the request.
 */
export async function* streamSse(
  endpoint: ProviderEndpoint,
  request: StreamRequest,
  http: ProviderHttpOptions,
  signal: AbortSignal,
  progress: StreamProgress,
): AsyncGenerator<SseItem[]> {
  const session = new HttpSession(endpoint, request, http, signal);
  try {
    const response = await session.open();
    if (!response.body) throw session.streamCutOff('the response had no body');
    const reader = response.body.getReader();
    const parser = new SseParser();
    try {
      // The headers arrived: a fresh wait for the first content.
      session.restartIdle();
      for (;;) {
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await session.whileOpen(reader.read());
        } catch (error) {
          throw session.classifyFailure(error, 'stream');
        }
        if (chunk.done) break;
        const items = session.parse(() => parser.push(chunk.value));
        if (items.length === 0) {
          // Comments, whitespace, half an event: the timer runs on.
          session.sawKeepAlive();
          continue;
        }
        // The timeout measures the provider's silence, not the time the consumer spends.
        session.pauseIdle();
        progress.take();
        yield items;
        if (progress.take()) session.restartIdle();
        else {
          session.sawKeepAlive();
          session.resumeIdle();
        }
      }
      const rest = session.parse(() => parser.end());
      if (rest.length > 0) yield rest;
    } finally {
      reader.cancel().catch(() => undefined);
    }
  } finally {
    session.close();
  }
}

/** Parses an SSE `data` payload as JSON, or returns undefined when it is not JSON. */
export function parseJsonData(data: string): JsonValue | undefined {
  try {
    return JSON.parse(data) as JsonValue;
  } catch {
    return undefined;
  }
}

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

class HttpSession {
  private readonly controller = new AbortController();
  private readonly forwardAbort = (): void => this.controller.abort();
  private readonly abortedPromise: Promise<never>;
  /** The inactivity timer, its deadline (performance.now()) and, while paused, the time left. */
  private idleTimer: NodeJS.Timeout | undefined;
  private idleDeadline = 0;
  private idleLeft: number | undefined;
  /** Whether something other than content arrived since the inactivity timer last restarted. */
  private keepAlive = false;
  private readonly roundTimer: NodeJS.Timeout;
  /** Which limit stopped the round, if one did. */
  private stoppedBy: 'idle' | 'round' | undefined;
  private readonly timeoutMs: number;
  private readonly maxRoundMs: number;
  private readonly retry: Required<RetryOptions>;
  private readonly fetchImpl: typeof fetch;

  constructor(
    private readonly endpoint: ProviderEndpoint,
    private readonly request: StreamRequest,
    http: ProviderHttpOptions,
    private readonly signal: AbortSignal,
  ) {
    // Forwarded by hand rather than with AbortSignal.any, which keeps every round's signal
    // reachable from the long-lived run signal until that one is collected.
    signal.addEventListener('abort', this.forwardAbort, { once: true });
    this.abortedPromise = new Promise<never>((_resolve, reject) => {
      this.controller.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
    });
    this.abortedPromise.catch(() => undefined);
    this.timeoutMs = http.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxRoundMs = http.maxRoundMs ?? DEFAULT_MAX_ROUND_MS;
    this.roundTimer = setTimeout(() => this.stop('round'), timerDelay(this.maxRoundMs));
    // The round's own work keeps the process alive; an abandoned round must not for half an hour.
    this.roundTimer.unref();
    this.retry = {
      ...DEFAULT_RETRY,
      random: Math.random,
      sleep: defaultSleep,
      ...withoutUndefined(http.retry ?? {}),
    };
    this.fetchImpl = http.fetch ?? globalThis.fetch;
  }

  /** (Re)starts the inactivity timer with the full timeout. */
  restartIdle(): void {
    this.keepAlive = false;
    this.idleLeft = undefined;
    this.scheduleIdle(this.timeoutMs);
  }

  /** Stops the inactivity timer while the consumer holds the stream, keeping the time left. */
  pauseIdle(): void {
    if (this.idleTimer === undefined) return;
    this.idleLeft = Math.max(0, this.idleDeadline - performance.now());
    this.disarm();
  }

  /** Restarts the inactivity timer with the time that was left when it paused. */
  resumeIdle(): void {
    const left = this.idleLeft ?? this.timeoutMs;
    this.idleLeft = undefined;
    this.scheduleIdle(left);
  }

  /** Records that bytes arrived that carried no content. */
  sawKeepAlive(): void {
    this.keepAlive = true;
  }

  private scheduleIdle(ms: number): void {
    this.disarm();
    this.idleDeadline = performance.now() + ms;
    this.idleTimer = setTimeout(() => this.stop('idle'), timerDelay(ms));
  }

  private stop(limit: 'idle' | 'round'): void {
    this.stoppedBy ??= limit;
    this.controller.abort();
  }

  /**
   * Settles with `operation`, or rejects as soon as the round is aborted or times out. undici
   * does not reliably reject a body read that starts after its fetch was aborted (observed on
   * Node 20: the read never settles), so abort never depends on it.
   */
  whileOpen<T>(operation: Promise<T>): Promise<T> {
    if (this.controller.signal.aborted) {
      operation.catch(() => undefined);
      return Promise.reject(new Error('aborted'));
    }
    return Promise.race([operation, this.abortedPromise]);
  }

  close(): void {
    this.disarm();
    clearTimeout(this.roundTimer);
    this.signal.removeEventListener('abort', this.forwardAbort);
    // No abort() here: a consumer that stops early is handled by cancelling the body reader, and
    // aborting a finished fetch costs a DOMException per round (bench/providers.bench.ts).
  }

  async open(): Promise<Response> {
    if (this.signal.aborted) throw this.aborted();
    for (let attempt = 0; ; attempt += 1) {
      this.restartIdle();
      let response: Response;
      try {
        ({ response } = await this.whileOpen(
          fetchFollowingRedirects(
            this.fetchImpl,
            this.request.url,
            {
              method: 'POST',
              headers: this.request.headers,
              body: this.request.body,
              signal: this.controller.signal,
            },
            { crossOrigin: (from, to, origin) => this.crossOriginRefusal(from, to, origin) },
          ),
        ));
      } catch (error) {
        throw this.classifyFailure(error, 'connect');
      }
      if (response.ok) return response;
      const text = await this.readErrorBody(response);
      this.disarm();
      // A body read that timed out aborted this session's fetches, so there is no retry.
      const wait = this.controller.signal.aborted ? { retry: false as const } : this.retryWait(response, attempt);
      if (wait.retry) {
        try {
          // The session's signal: a stop or the round's cap ends the wait.
          await this.retry.sleep(wait.ms, this.controller.signal);
        } catch (error) {
          if (this.signal.aborted) throw this.aborted();
          if (this.stoppedBy === 'round') throw this.roundCapped();
          throw error;
        }
        if (this.signal.aborted) throw this.aborted();
        if (this.stoppedBy === 'round') throw this.roundCapped();
        continue;
      }
      throw this.httpError(response.status, text, attempt, wait.refusedRetryAfterMs);
    }
  }

  /**
   * The first {@link ERROR_BODY_READ_BYTES} bytes of an error response's body as text (invalid
   * or cut UTF-8 becomes U+FFFD or is dropped at the cut), ending in `…` when more may follow.
   * The rest of the body is cancelled unread. A body that breaks off or stalls still yields the
   * bytes that arrived, so the HTTP status is what gets reported; only a stop is thrown.
   */
  private async readErrorBody(response: Response): Promise<string> {
    if (!response.body) return '';
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let text = '';
    let bytes = 0;
    let complete = false;
    try {
      while (bytes < ERROR_BODY_READ_BYTES) {
        this.restartIdle();
        const chunk = await this.whileOpen(reader.read());
        if (chunk.done) {
          complete = true;
          break;
        }
        const room = ERROR_BODY_READ_BYTES - bytes;
        const piece = chunk.value.length > room ? chunk.value.subarray(0, room) : chunk.value;
        bytes += piece.length;
        text += decoder.decode(piece, { stream: true });
      }
    } catch {
      if (this.signal.aborted) throw this.aborted();
    } finally {
      reader.cancel().catch(() => undefined);
    }
    // Not flushing the decoder drops a character cut in half by the read limit.
    if (complete) return text + decoder.decode();
    return text === '' ? '' : `${text}…`;
  }

  private retryWait(
    response: Response,
    attempt: number,
  ): { retry: true; ms: number } | { retry: false; refusedRetryAfterMs?: number } {
    const status = response.status;
    const retryable = status === 429 || status === 408 || status >= 500;
    if (!retryable || attempt >= this.retry.maxRetries) return { retry: false };
    const retryAfter = parseRetryAfter(response.headers, Date.now());
    if (retryAfter !== undefined) {
      if (retryAfter > this.retry.maxRetryAfterMs) return { retry: false, refusedRetryAfterMs: retryAfter };
      return { retry: true, ms: retryAfter };
    }
    const step = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** attempt);
    // "Equal jitter": at least half the step, so a retry storm still spreads out but never hammers.
    return { retry: true, ms: Math.round(step / 2 + (this.retry.random() * step) / 2) };
  }

  private httpError(
    status: number,
    text: string,
    attempt: number,
    refusedRetryAfterMs: number | undefined,
  ): ProviderError {
    const { label, providerId } = this.endpoint;
    const said = text.trim() ? ` Provider said: ${describeProviderText(text, this.endpoint.secrets)}` : '';
    const tries = attempt === 0 ? '' : ` after ${attempt} ${attempt === 1 ? 'retry' : 'retries'}`;
    if (status === 401 || status === 403) {
      const lead = this.endpoint.hasKey ? `key rejected by ${label}` : `${label} requires a key and none is set`;
      return providerError(
        this.endpoint,
        'auth',
        `${lead} (HTTP ${status}). Set a new key with \`promptforge keys set ${providerId}\` or in the Credentials view of the studio.${said}`,
        status,
      );
    }
    if (status === 429) {
      const why =
        refusedRetryAfterMs !== undefined
          ? ` and asks to wait ${Math.ceil(refusedRetryAfterMs / 1000)} s, longer than the ${Math.round(this.retry.maxRetryAfterMs / 1000)} s PromptForge waits`
          : tries;
      return providerError(
        this.endpoint,
        'rate-limit',
        `${label} is rate limiting requests (HTTP 429)${why}. Wait a moment and run again, or check your plan's limits.${said}`,
        status,
      );
    }
    if (status >= 500 || status === 408) {
      return providerError(
        this.endpoint,
        'server',
        `${label} returned a server error (HTTP ${status})${tries}. Try again later.${said}`,
        status,
      );
    }
    return providerError(
      this.endpoint,
      'bad-request',
      `${label} rejected the request (HTTP ${status}).${said}`,
      status,
    );
  }

  /** Maps a fetch or body-read failure to a ProviderError. */
  classifyFailure(error: unknown, phase: 'connect' | 'stream'): ProviderError {
    if (error instanceof ProviderError) return error;
    if (error instanceof RedirectRefusedError)
      return providerError(this.endpoint, 'connection', `${this.endpoint.label}: ${error.message}`);
    if (this.signal.aborted) return this.aborted();
    if (this.stoppedBy === 'round') return this.roundCapped();
    if (this.stoppedBy === 'idle') {
      const seconds = this.timeoutMs >= 1000 ? `${Math.round(this.timeoutMs / 1000)} s` : `${this.timeoutMs} ms`;
      const what =
        phase === 'connect'
          ? `did not answer within ${seconds}`
          : this.keepAlive
            ? `sent no content within ${seconds}, only keep-alives (SSE comments, pings, empty events) or lines it could not read, which do not count as activity`
            : `stopped sending within ${seconds}`;
      return providerError(
        this.endpoint,
        'timeout',
        `${this.endpoint.label} ${what} (request to ${this.request.url}). Try again, or raise the provider timeout.`,
      );
    }
    const code = errorCode(error);
    if (phase === 'connect') {
      const hint = this.endpoint.connectionHint ? ` ${this.endpoint.connectionHint}` : '';
      return providerError(
        this.endpoint,
        'connection',
        `could not connect to ${this.endpoint.label} at ${this.request.url} (${code ?? describeError(error)}).${hint}`,
      );
    }
    return streamCutOffError(this.endpoint, code ?? describeError(error));
  }

  /** Runs a parser step; a line or event over the limit becomes a `stream` error (the caller cancels the body). */
  parse(step: () => SseItem[]): SseItem[] {
    try {
      return step();
    } catch (error) {
      if (!(error instanceof SseTooLongError)) throw error;
      throw providerError(
        this.endpoint,
        'stream',
        `${this.endpoint.label} sent ${error.message}, the most PromptForge reads in one line or event; the stream was stopped and the round's output is incomplete`,
      );
    }
  }

  streamCutOff(detail: string): ProviderError {
    return streamCutOffError(this.endpoint, detail);
  }

  private aborted(): ProviderError {
    return abortedError(this.endpoint);
  }

  /** The error for a round stopped by {@link ProviderHttpOptions.maxRoundMs}. */
  private roundCapped(): ProviderError {
    return providerError(
      this.endpoint,
      'timeout',
      `the round with ${this.endpoint.label} was stopped after ${formatDuration(this.maxRoundMs)}, the most one model round may take (request to ${this.request.url}); the round's output is incomplete. ` +
        `If the model really needs longer, raise the provider option \`maxRoundMs\` (default ${formatDuration(DEFAULT_MAX_ROUND_MS)}).`,
    );
  }

  /** Why a redirect to another origin is not followed: the key and the conversation stay with the configured one. */
  private crossOriginRefusal(from: string, to: string, origin: string): string {
    const names = this.request.keyHeaders.map((name) => `"${name}"`).join(', ');
    const sent = names !== '' ? `the key (header ${names}) and the conversation are` : 'the conversation is';
    return (
      `${from} redirected to another origin (${to}); ${sent} only sent to ${origin}, the origin of the model's base URL. ` +
      "Set the model's baseUrl to the final address (or fix the redirect on the server)."
    );
  }

  private disarm(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }
}

/**
 * Reads `retry-after-ms` (OpenAI) or `retry-after` (seconds or an HTTP date) into milliseconds.
 * Exported for tests.
 */
export function parseRetryAfter(headers: Headers, now: number): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(value)) return Math.max(0, Math.round(Number(value) * 1000));
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

function errorCode(error: unknown): string | undefined {
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

function describeError(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error && cause.message ? `${error.message}: ${cause.message}` : error.message;
  }
  return String(error);
}

/** A Node timer delay: at most {@link MAX_TIMER_MS}, and a number (NaN waits the most, not zero). */
function timerDelay(ms: number): number {
  return Number.isFinite(ms) ? Math.min(Math.max(0, ms), MAX_TIMER_MS) : MAX_TIMER_MS;
}

/** A duration in words: `300 ms`, `45 s`, `30 min`. */
export function formatDuration(ms: number): string {
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms >= 1000) return `${Math.round(ms / 1000)} s`;
  return `${ms} ms`;
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Thrown by {@link SseParser} when a line or an event is longer than its limit. */
export class SseTooLongError extends Error {
  constructor(
    readonly what: 'line' | 'event',
    readonly limitChars: number,
  ) {
    super(`an SSE ${what} longer than ${formatChars(limitChars)}`);
    this.name = 'SseTooLongError';
  }
}

/**
 * Incremental Server-Sent Events parser (WHATWG HTML §9.2), tolerant of a missing final blank line.
 * Each pushed chunk is scanned once: an unfinished line is kept as a list of pieces and joined only
 * when its end arrives, so the work is linear in the stream's length. A line or an event longer
 * than `maxEventChars` characters throws {@link SseTooLongError}.
 */
export class SseParser {
  private readonly decoder = new TextDecoder();
  private readonly maxEventChars: number;
  /** The unfinished last line, in pieces, and its length. */
  private pending: string[] = [];
  private pendingChars = 0;
  private event: string | undefined;
  private data: string[] = [];
  /** Characters of `data` joined with line feeds. */
  private dataChars = 0;
  private skipLeadingLineFeed = false;
  private out: SseItem[] = [];

  constructor(options: { maxEventChars?: number } = {}) {
    this.maxEventChars = options.maxEventChars ?? MAX_SSE_EVENT_CHARS;
  }

  /** Feeds bytes; returns the items completed by them. */
  push(bytes: Uint8Array): SseItem[] {
    this.scan(this.decoder.decode(bytes, { stream: true }));
    return this.take();
  }

  /** Ends the stream; returns what the last bytes completed. */
  end(): SseItem[] {
    this.scan(this.decoder.decode());
    if (this.pendingChars > 0) this.line(this.takePending(''));
    if (this.data.length > 0) this.dispatch();
    return this.take();
  }

  private take(): SseItem[] {
    const items = this.out;
    this.out = [];
    return items;
  }

  /** Splits newly decoded text into lines; the unfinished rest waits in `pending`. */
  private scan(text: string): void {
    let start = 0;
    if (this.skipLeadingLineFeed && text.length > 0) {
      if (text.charCodeAt(0) === 10) start = 1;
      this.skipLeadingLineFeed = false;
    }
    // Positions of the next CR and LF at or after `start` (-1: none in the rest of `text`), each
    // searched again only once passed, so a chunk is scanned once whatever its line endings.
    let cr = text.indexOf('\r', start);
    let lf = text.indexOf('\n', start);
    while (cr !== -1 || lf !== -1) {
      if (cr !== -1 && (lf === -1 || cr < lf)) {
        this.lineEnd(text, start, cr);
        if (cr + 1 < text.length) {
          start = text.charCodeAt(cr + 1) === 10 ? cr + 2 : cr + 1;
        } else {
          // A lone CR at the end of a chunk may be half of a CRLF split across chunks.
          this.skipLeadingLineFeed = true;
          start = cr + 1;
        }
      } else {
        this.lineEnd(text, start, lf);
        start = lf + 1;
      }
      if (cr !== -1 && cr < start) cr = text.indexOf('\r', start);
      if (lf !== -1 && lf < start) lf = text.indexOf('\n', start);
    }
    if (start < text.length) {
      this.checkLine(text.length - start);
      this.pending.push(text.slice(start));
      this.pendingChars += text.length - start;
    }
  }

  /** Handles the line that ends at `end` in `text` (it started in `pending`, if any). */
  private lineEnd(text: string, start: number, end: number): void {
    this.checkLine(end - start);
    const tail = text.slice(start, end);
    this.line(this.pendingChars === 0 ? tail : this.takePending(tail));
  }

  /** Throws when `more` characters would make the current line too long. */
  private checkLine(more: number): void {
    if (this.pendingChars + more > this.maxEventChars) throw new SseTooLongError('line', this.maxEventChars);
  }

  private takePending(last: string): string {
    this.pending.push(last);
    const line = this.pending.join('');
    this.pending = [];
    this.pendingChars = 0;
    return line;
  }

  private line(line: string): void {
    if (line === '') {
      if (this.data.length > 0) this.dispatch();
      else this.event = undefined;
      return;
    }
    const first = line.charCodeAt(0);
    if (first === 58 /* ':' */) return;
    // Blank-looking lines (spaces, tabs) are keep-alive padding, not fields and not malformed.
    if ((first === 32 || first === 9) && line.trim() === '') return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32 /* ' ' */) value = value.slice(1);
    switch (field) {
      case 'data':
        this.dataChars += (this.data.length > 0 ? 1 : 0) + value.length;
        if (this.dataChars > this.maxEventChars) throw new SseTooLongError('event', this.maxEventChars);
        this.data.push(value);
        return;
      case 'event':
        this.event = value;
        return;
      case 'id':
      case 'retry':
        return;
      default:
        this.out.push({ kind: 'malformed', line });
    }
  }

  private dispatch(): void {
    this.out.push({
      kind: 'event',
      event: this.event,
      data: this.data.length === 1 ? this.data[0]! : this.data.join('\n'),
    });
    this.event = undefined;
    this.data = [];
    this.dataChars = 0;
  }
}

/** A character count in words: `32 MiB`, `8 KiB`, `100 characters` (a MiB is 1,048,576 characters). */
export function formatChars(chars: number): string {
  if (chars >= 1 << 20 && chars % (1 << 20) === 0)
    return `${chars / (1 << 20)} MiB (${chars.toLocaleString('en-US')} characters)`;
  if (chars >= 1 << 10 && chars % (1 << 10) === 0)
    return `${chars / (1 << 10)} KiB (${chars.toLocaleString('en-US')} characters)`;
  return `${chars.toLocaleString('en-US')} characters`;
}
