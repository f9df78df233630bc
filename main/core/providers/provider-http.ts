// One provider exchange over HTTP: a JSON POST answered by SSE, with redirects kept in origin, retries, an inactivity timer and a cap per round.
import { ProviderError } from './model-provider.js';
import type { Surface } from '../surface-words.js';
import { RedirectRefusedError, fetchFollowingRedirects } from '../net/redirects.js';
import { SseParser, SseTooLongError, type SseItem } from './sse-parser.js';
import {
  type ProviderEndpoint,
  abortedError,
  describeError,
  errorCode,
  formatDuration,
  httpStatusError,
  providerError,
  streamCutOffError,
} from './provider-errors.js';
import { retryPolicy, retryWait, type RetryOptions, type RetryPolicy } from './retry.js';

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
  /** Where the person reads errors: the advice names a command or a view (default `cli`). */
  surface?: Surface;
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

const DEFAULT_TIMEOUT_MS = 600_000;
/**
 * Default {@link ProviderHttpOptions.maxRoundMs}: 30 minutes. Well above what a real round needs
 * (64k output tokens at a slow 40 tokens a second is under 30 minutes), and it bounds a round
 * that a hostile or broken endpoint keeps alive by trickling content forever.
 */
export const DEFAULT_MAX_ROUND_MS = 30 * 60_000;
/** The longest delay a Node timer can wait (longer ones fire at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;
/**
 * Bytes of an HTTP error response's body the host reads. Only {@link ERROR_BODY_LIMIT} characters
 * are shown, so a few KiB is plenty (even for text of 4-byte UTF-8 characters); the rest of the
 * body is cancelled unread, so a hostile endpoint cannot make the host download a huge error page.
 */
const ERROR_BODY_READ_BYTES = 8 * 1024;

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
  private readonly retry: RetryPolicy;
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
    this.retry = retryPolicy(http.retry);
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
      const wait = this.controller.signal.aborted
        ? { retry: false as const }
        : retryWait(this.retry, response.status, response.headers, attempt, Date.now());
      if (wait.retry) {
        try {
          // The session's signal: a stop or the round's cap ends the wait.
          await this.retry.sleep(wait.ms, this.controller.signal);
        } catch (error) {
          // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- a stop may come during the wait
          if (this.signal.aborted) throw this.aborted();
          if (this.stoppedBy === 'round') throw this.roundCapped();
          throw error;
        }
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- a stop may come during the wait
        if (this.signal.aborted) throw this.aborted();
        if (this.stoppedBy === 'round') throw this.roundCapped();
        continue;
      }
      throw httpStatusError(this.endpoint, {
        status: response.status,
        text,
        attempt,
        refusedRetryAfterMs: wait.refusedRetryAfterMs,
        maxRetryAfterMs: this.retry.maxRetryAfterMs,
      });
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

/** A Node timer delay: at most {@link MAX_TIMER_MS}, and a number (NaN waits the most, not zero). */
function timerDelay(ms: number): number {
  return Number.isFinite(ms) ? Math.min(Math.max(0, ms), MAX_TIMER_MS) : MAX_TIMER_MS;
}
