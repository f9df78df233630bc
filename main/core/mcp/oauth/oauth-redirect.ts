/** The loopback listener a sign-in's browser redirect comes back to, checking its state and issuer. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpAuthError } from './oauth-fetch.js';

/** Milliseconds a sign-in waits for the person to finish in the browser. */
export const LOGIN_TIMEOUT_MS = 5 * 60_000;

/** What the redirect must carry to be this sign-in's. */
export interface RedirectExpectation {
  /** The `state` the authorization request sent. */
  state: string;
  /** The authorization server's issuer; a redirect's `iss` must equal it. Undefined when its metadata names none. */
  issuer?: string | undefined;
  /** The server says it always sends `iss` (RFC 9207): a redirect without one is refused. */
  issuerRequired: boolean;
}

function page(title: string, text: string): string {
  const escape = (value: string) =>
    value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
  return `<!doctype html><meta charset="utf-8"><title>${escape(title)}</title><p>${escape(text)}</p>`;
}

/**
 * Listens on 127.0.0.1 (an ephemeral port) for the browser's return from the authorization server,
 * at `/callback` only. The first redirect there decides: one whose `state` is missing or not this
 * sign-in's, whose `iss` is another issuer's (or missing when the server promised one), that
 * carries an error, or that has no code, fails the sign-in with the reason; any other path is
 * answered 404 and changes nothing.
 */
export class LoopbackRedirect {
  private settle: ((result: { code: string } | { error: McpAuthError }) => void) | undefined;
  private early: { code: string } | { error: McpAuthError } | undefined;
  private expectation: RedirectExpectation | undefined;

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<LoopbackRedirect> {
    const holder: { redirect?: LoopbackRedirect } = {};
    const server = createServer((request, response) =>
      holder.redirect?.handle(request.url ?? '/', request.method, response),
    );
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    holder.redirect = new LoopbackRedirect(server, `http://127.0.0.1:${port}/callback`);
    return holder.redirect;
  }

  /** Sets what the redirect must carry; call before the browser is sent to the authorization server. */
  expect(expectation: RedirectExpectation): void {
    this.expectation = expectation;
  }

  /** The authorization code, once the browser comes back; rejects with the reason it cannot be used. */
  wait(signal?: AbortSignal, timeoutMs = LOGIN_TIMEOUT_MS): Promise<string> {
    return new Promise((resolve, reject) => {
      const finish = (result: { code: string } | { error: McpAuthError }) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.settle = undefined;
        if ('code' in result) resolve(result.code);
        else reject(result.error);
      };
      const timer = setTimeout(
        () =>
          finish({
            error: new McpAuthError(
              'timeout',
              `nobody finished signing in within ${Math.round(timeoutMs / 1000)} s; start the sign-in again`,
            ),
          }),
        timeoutMs,
      );
      const onAbort = () => finish({ error: new McpAuthError('cancelled', 'the sign-in was cancelled') });
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      if (this.early) return finish(this.early);
      this.settle = finish;
    });
  }

  close(): void {
    this.server.closeAllConnections();
    this.server.close();
  }

  private handle(target: string, method: string | undefined, response: import('node:http').ServerResponse): void {
    const url = new URL(target, this.url);
    if (method !== 'GET' || url.pathname !== '/callback') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    if (this.early) {
      response.writeHead(409, { 'content-type': 'text/html; charset=utf-8' });
      response.end(page('Already answered', 'This sign-in was already answered; this redirect is ignored.'));
      return;
    }
    const result = this.check(url.searchParams);
    response.writeHead('code' in result ? 200 : 400, {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
    });
    response.end(
      'code' in result
        ? page('Signed in', 'PromptForge Studio received the sign-in. You can close this tab.')
        : page('Sign-in refused', result.error.message),
    );
    this.early = result;
    this.settle?.(result);
  }

  private check(query: URLSearchParams): { code: string } | { error: McpAuthError } {
    const refuse = (text: string) => ({ error: new McpAuthError('refused', text) });
    const expected = this.expectation;
    if (!expected) return refuse('the redirect came before the sign-in asked for it; refused');
    const state = query.get('state');
    if (state === null) return refuse('the redirect carries no state; refused (it is not the answer to this sign-in)');
    if (state !== expected.state)
      return refuse(
        "the redirect's state does not match the one this sign-in sent; refused (it may belong to another sign-in, or be forged)",
      );
    const iss = query.get('iss');
    if (iss === null && expected.issuerRequired)
      return refuse('the redirect carries no iss, which the authorization server promised to send (RFC 9207); refused');
    if (iss !== null && expected.issuer !== undefined && iss !== expected.issuer)
      return refuse(
        `the redirect says it comes from issuer ${JSON.stringify(iss.slice(0, 200))}, not ${expected.issuer}; refused (a mix-up with another authorization server)`,
      );
    const error = query.get('error');
    if (error !== null) {
      const description = query.get('error_description');
      return refuse(
        `the authorization server refused the sign-in: ${error.slice(0, 100)}${description ? ` (${description.slice(0, 300)})` : ''}`,
      );
    }
    const code = query.get('code');
    if (!code) return refuse('the redirect carries no authorization code; refused');
    return { code };
  }
}
