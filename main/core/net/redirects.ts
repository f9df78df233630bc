/**
 * Following HTTP redirects by hand, for every request the host sends with a key or a secret
 * header (http tools, `http_get`, model provider adapters). `fetch` with its default
 * `redirect: 'follow'` would carry every header except `Authorization` to wherever a server
 * points it, so callers never use it: they send through {@link fetchFollowingRedirects}.
 */

/** Most redirects followed for one request. */
export const MAX_REDIRECTS = 5;

/** The statuses that are redirects (with a Location to follow). */
const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/**
 * Header names a request that follows a redirect to another origin never carries, even when
 * nothing marks them secret: the credential headers of the fetch standard, and any name that
 * looks like it carries a key (`x-api-key`, `x-goog-api-key`, `x-auth-token`, ...).
 */
const CREDENTIAL_HEADER_NAME = /auth|key|token|secret|passw|cookie|session|signature|credential/i;

/** The `fetch` these helpers send with; injectable for tests. */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** A request's settings: headers are a plain record (the only form the callers build). */
export type RedirectableInit = Omit<RequestInit, 'headers' | 'redirect'> & { headers?: Record<string, string> };

/** What a caller allows when a response redirects. */
export interface RedirectPolicy {
  /**
   * Decides a redirect from `from` to `to`, an origin other than `origin` (the first URL's):
   * returns the message of the refusal, or undefined to follow (without credential headers).
   */
  crossOrigin(from: string, to: string, origin: string): string | undefined;
  /** Most redirects followed (default {@link MAX_REDIRECTS}). */
  maxRedirects?: number;
  /** Called with each URL just before it is requested, the first one included. */
  onRequest?(url: string): void;
}

/** A redirect the policy (or its shape) does not allow; the message says why and what to do. */
export class RedirectRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RedirectRefusedError';
  }
}

/**
 * Sends `init` to `url` with `redirect: 'manual'` and follows redirects by hand: at most
 * `policy.maxRedirects`, only to http(s) URLs without user info, to another origin only when
 * `policy.crossOrigin` allows it, and then without {@link CREDENTIAL_HEADER_NAME} headers. 303,
 * and 301/302 after a POST, continue as a GET without a body; 307/308 repeat the request.
 * Resolves with the first response that is not a redirect and the URL it came from (a redirect's
 * own body is cancelled unread). A refused redirect throws {@link RedirectRefusedError}, before
 * anything is sent to its target; network failures and aborts reject as `fetch` does. URLs in
 * messages have no user info or query string ({@link urlForMessage}); callers still redact them.
 */
export async function fetchFollowingRedirects(
  fetchImpl: FetchLike,
  url: string,
  init: RedirectableInit,
  policy: RedirectPolicy,
): Promise<{ response: Response; url: string }> {
  const origin = new URL(url).origin;
  const maxRedirects = policy.maxRedirects ?? MAX_REDIRECTS;
  let current = url;
  let request: RedirectableInit = { ...init };
  for (let redirects = 0; ; redirects += 1) {
    policy.onRequest?.(current);
    const response = await fetchImpl(current, { ...request, redirect: 'manual' });
    if (!REDIRECT_STATUSES.has(response.status)) return { response, url: current };
    await response.body?.cancel().catch(() => undefined);
    const from = urlForMessage(current);
    const location = response.headers.get('location');
    if (location === null)
      throw new RedirectRefusedError(`HTTP ${response.status} from ${from} without a Location header`);
    const next = redirectTarget(location, current);
    if (next === undefined) throw new RedirectRefusedError(`${from} redirected to an invalid URL`);
    if (next.protocol !== 'http:' && next.protocol !== 'https:')
      throw new RedirectRefusedError(`${from} redirected to a ${next.protocol} URL; only http and https are followed`);
    if (next.username !== '' || next.password !== '')
      throw new RedirectRefusedError(
        `${from} redirected to a URL with user info (a name or password before the host); such redirects are never followed`,
      );
    if (redirects >= maxRedirects)
      throw new RedirectRefusedError(`more than ${maxRedirects} redirects, starting at ${urlForMessage(url)}`);
    if (next.origin !== origin) {
      const refusal = policy.crossOrigin(from, next.origin, origin);
      if (refusal !== undefined) throw new RedirectRefusedError(refusal);
      request = { ...request, headers: withoutCredentials(request.headers) };
    }
    request = afterRedirect(request, response.status);
    current = next.href;
  }
}

/** A URL for messages: no user info, no query string or fragment (they may carry tokens). */
export function urlForMessage(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return '<invalid url>';
  }
}

function redirectTarget(location: string, base: string): URL | undefined {
  try {
    return new URL(location, base);
  } catch {
    return undefined;
  }
}

function afterRedirect(request: RedirectableInit, status: number): RedirectableInit {
  const method = (request.method ?? 'GET').toUpperCase();
  if (status === 303 || ((status === 301 || status === 302) && method === 'POST')) {
    const headers = { ...request.headers };
    for (const name of Object.keys(headers)) if (name.toLowerCase() === 'content-type') delete headers[name];
    const { body: _body, ...rest } = request;
    return { ...rest, method: method === 'HEAD' ? 'HEAD' : 'GET', headers };
  }
  return request;
}

function withoutCredentials(headers: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = { ...headers };
  for (const name of Object.keys(out)) if (CREDENTIAL_HEADER_NAME.test(name)) delete out[name];
  return out;
}
