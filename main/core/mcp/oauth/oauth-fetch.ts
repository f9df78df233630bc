/** The fetch of sign-in requests (metadata, registration, token): bounded in time and size, no redirects. */
import { displayUrl } from '../../tools/bounded-text.js';
import { isLoopbackUrl } from '../../net/loopback.js';

/** Milliseconds one request to a metadata, registration or token endpoint may take. */
export const OAUTH_REQUEST_TIMEOUT_MS = 15_000;
/** Largest answer of a metadata, registration or token endpoint, in bytes. */
const MAX_OAUTH_RESPONSE_BYTES = 1024 * 1024;

/** Why a sign-in cannot go on; the message says what happened and what to do. */
export class McpAuthError extends Error {
  constructor(
    readonly kind: 'login-required' | 'refused' | 'timeout' | 'loop' | 'cancelled',
    message: string,
  ) {
    super(message);
    this.name = 'McpAuthError';
  }
}

/** The McpAuthError inside `error` (thrown as it is, or as the cause of a wrapping error), if any. */
export function authErrorIn(error: unknown): McpAuthError | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; depth += 1) {
    if (current instanceof McpAuthError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Whether `url` may carry a sign-in: https, or http to this machine. */
export function secureEnough(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || (parsed.protocol === 'http:' && isLoopbackUrl(url));
  } catch {
    return false;
  }
}

/**
 * Whether `issuer`'s metadata may name `endpoint` for main to send a request to (token,
 * registration, revocation): {@link secureEnough}, and on this machine only when the issuer is on
 * this machine too. A remote issuer naming a loopback endpoint would have the host POST a body it
 * chose (its own "token") to a local service on another port.
 */
export function endpointAllowedFor(issuer: string, endpoint: string): boolean {
  return secureEnough(endpoint) && (!isLoopbackUrl(endpoint) || isLoopbackUrl(issuer));
}

/**
 * Refuses metadata of the authorization server `issuer` naming an endpoint that is not https
 * ({@link secureEnough}), or one main sends to (token, registration) on this machine when the
 * issuer is not ({@link endpointAllowedFor}). The authorization endpoint opens in the browser.
 */
export function checkEndpoints(
  issuer: string,
  metadata: { [field in 'authorization_endpoint' | 'token_endpoint' | 'registration_endpoint']?: string | undefined },
): void {
  for (const [field, endpoint] of [
    ['authorization_endpoint', metadata.authorization_endpoint],
    ['token_endpoint', metadata.token_endpoint],
    ['registration_endpoint', metadata.registration_endpoint],
  ] as const) {
    if (endpoint === undefined) continue;
    if (!secureEnough(endpoint))
      throw new McpAuthError(
        'refused',
        `the authorization server's ${field} ${displayUrl(endpoint)} is not https; refused`,
      );
    if (field !== 'authorization_endpoint' && !endpointAllowedFor(issuer, endpoint))
      throw new McpAuthError(
        'refused',
        `the authorization server's ${field} ${displayUrl(endpoint)} is on this machine while the server ${displayUrl(issuer)} is not; refused`,
      );
  }
}

/**
 * A fetch for the SDK's sign-in steps. Each request ends after `timeoutMs` (or when `signal`
 * aborts) with an error naming the endpoint; a redirect is refused (a metadata or token endpoint
 * that sends the request elsewhere is not followed); a plain-http URL other than loopback is
 * refused before anything is sent; an answer is read up to {@link MAX_OAUTH_RESPONSE_BYTES}.
 */
export function oauthFetch(options: { timeoutMs?: number; signal?: AbortSignal } = {}) {
  const timeoutMs = options.timeoutMs ?? OAUTH_REQUEST_TIMEOUT_MS;
  return async (input: string | URL, init?: RequestInit): Promise<Response> => {
    const url = input instanceof Request ? input.url : String(input);
    const shown = displayUrl(url);
    if (!secureEnough(url))
      throw new McpAuthError(
        'refused',
        `refused to send a sign-in request to ${shown}: it is not https (plain http is accepted only on this machine)`,
      );
    const timer = AbortSignal.timeout(timeoutMs);
    const signals = [timer, ...(options.signal ? [options.signal] : []), ...(init?.signal ? [init.signal] : [])];
    let response: Response;
    try {
      response = await fetch(input, { ...init, redirect: 'manual', signal: AbortSignal.any(signals) });
    } catch (error) {
      if (timer.aborted)
        throw new McpAuthError('timeout', `${shown} did not answer within ${timeoutMs} ms; the sign-in stopped`);
      if (options.signal?.aborted) throw new McpAuthError('cancelled', 'the sign-in was cancelled');
      throw error;
    }
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel().catch(() => undefined);
      const location = response.headers.get('location');
      throw new McpAuthError(
        'refused',
        `${shown} answered ${response.status} redirecting to ${location ? displayUrl(location) : 'nowhere'}; a sign-in request does not follow redirects`,
      );
    }
    if (!response.body) return response;
    let total = 0;
    const capped = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          total += chunk.byteLength;
          if (total > MAX_OAUTH_RESPONSE_BYTES)
            controller.error(
              new McpAuthError('refused', `${shown} sent more than ${MAX_OAUTH_RESPONSE_BYTES} bytes; refused`),
            );
          else controller.enqueue(chunk);
        },
      }),
    );
    // The timer goes on while the body is read: a server that sends headers and then stalls stops too.
    return new Response(capped, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
