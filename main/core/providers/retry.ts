// When a provider answer is retried, and how long to wait: 429/408/5xx with capped exponential backoff and Retry-After.
import { setTimeout as delay } from 'node:timers/promises';

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

/** {@link RetryOptions} with every default filled in. */
export type RetryPolicy = Required<RetryOptions>;

const DEFAULT_RETRY = { maxRetries: 3, baseDelayMs: 500, maxDelayMs: 8_000, maxRetryAfterMs: 60_000 };

const defaultSleep = async (ms: number, signal: AbortSignal): Promise<void> => {
  await delay(ms, undefined, { signal });
};

/** The retry policy `options` asks for, with the defaults for what it leaves out. */
export function retryPolicy(options: RetryOptions = {}): RetryPolicy {
  const given = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as Partial<RetryPolicy>;
  return { ...DEFAULT_RETRY, random: Math.random, sleep: defaultSleep, ...given };
}

/**
 * Whether an error answer (`status`, after `attempt` earlier retries) is retried and after how
 * many ms: 429, 408 and 5xx are, up to `maxRetries` times, after the answer's Retry-After when
 * it gives one (a longer one than `maxRetryAfterMs` is refused, and reported), else after an
 * exponential step with equal jitter.
 */
export function retryWait(
  policy: RetryPolicy,
  status: number,
  headers: Headers,
  attempt: number,
  now: number,
): { retry: true; ms: number } | { retry: false; refusedRetryAfterMs?: number } {
  const retryable = status === 429 || status === 408 || status >= 500;
  if (!retryable || attempt >= policy.maxRetries) return { retry: false };
  const retryAfter = parseRetryAfter(headers, now);
  if (retryAfter !== undefined) {
    if (retryAfter > policy.maxRetryAfterMs) return { retry: false, refusedRetryAfterMs: retryAfter };
    return { retry: true, ms: retryAfter };
  }
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  // "Equal jitter": at least half the step, so a retry storm still spreads out but never hammers.
  return { retry: true, ms: Math.round(step / 2 + (policy.random() * step) / 2) };
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
