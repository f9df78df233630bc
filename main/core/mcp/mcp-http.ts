import { displayUrl } from '../tools/bounded-text.js';
import { MAX_MCP_MESSAGE_BYTES } from './mcp-bounds.js';

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * Whether `to` is within the origin of `from`: the same scheme, host and port, or the https form
 * of an http URL on the same host with both on default ports (the SDK's `same-origin` rule).
 */
function withinOrigin(from: URL, to: URL): boolean {
  if (from.protocol === to.protocol && from.hostname === to.hostname && from.port === to.port) return true;
  return (
    from.hostname === to.hostname &&
    from.protocol === 'http:' &&
    from.port === '' &&
    to.protocol === 'https:' &&
    to.port === ''
  );
}

export interface ServerFetchOptions {
  /** The server's `url:` from tools.yaml. */
  url: string;
  /** Names of the headers that carry secrets: keychain values, or literal values of secret-looking names. */
  secretHeaders: readonly string[];
  /** Stops the server when it breaks a bound; `reason` says how, as "it ...". */
  onBroken: (reason: string) => void;
}

/**
 * The fetch of a Streamable HTTP server's transport. The runtime never follows a redirect
 * (`redirect: "manual"` on every request): the SDK follows those that stay within the origin
 * (its default `redirectPolicy: "same-origin"`) through this fetch again. On top of that, here,
 * whatever the SDK does: a request that carries a secret header (see
 * {@link ServerFetchOptions.secretHeaders}) is never sent outside the origin of `url`, and a
 * redirect of one to another origin fails the request, naming where it pointed. Response bodies
 * stop after {@link MAX_MCP_MESSAGE_BYTES}; the server is then stopped (`onBroken`): the SDK drops
 * an SSE stream that fails, and the call waiting for its answer on that stream would otherwise
 * wait until its timeout.
 */
export function serverFetch(options: ServerFetchOptions) {
  const origin = new URL(options.url);
  const carriesSecret = (init?: RequestInit): boolean => {
    if (options.secretHeaders.length === 0 || !init?.headers) return false;
    const headers = new Headers(init.headers);
    return options.secretHeaders.some((name) => headers.has(name));
  };
  return async (input: string | URL, init?: RequestInit): Promise<Response> => {
    const target = new URL(input instanceof Request ? input.url : input);
    const secret = carriesSecret(init);
    if (secret && !withinOrigin(origin, target))
      throw new Error(
        `refused to send a request with the server's secret headers to ${displayUrl(target.href)}, outside the origin of ${displayUrl(origin.href)}`,
      );
    const response = await fetch(input, { ...init, redirect: 'manual' });
    const location = REDIRECT_STATUSES.has(response.status) ? response.headers.get('location') : null;
    if (secret && location !== null) {
      let next: URL | undefined;
      try {
        next = new URL(location, target);
      } catch {
        next = undefined;
      }
      if (!next || !withinOrigin(origin, next)) {
        await response.body?.cancel().catch(() => undefined);
        throw new Error(
          `the server answered ${response.status} redirecting to ${next ? displayUrl(next.href) : 'an invalid URL'}, outside the origin of ${displayUrl(origin.href)}; a request carrying the server's secret headers does not follow it`,
        );
      }
    }
    if (!response.body) return response;
    let total = 0;
    const capped = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          total += chunk.byteLength;
          if (total > MAX_MCP_MESSAGE_BYTES) {
            const reason = `it sent more than ${MAX_MCP_MESSAGE_BYTES} bytes in one response`;
            controller.error(new Error(`the server sent more than ${MAX_MCP_MESSAGE_BYTES} bytes in one response`));
            options.onBroken(reason);
          } else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(capped, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
