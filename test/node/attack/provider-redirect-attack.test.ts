import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { AnthropicProvider } from '../../../main/core/providers/anthropic-provider.js';
import { createProvider } from '../../../main/core/providers/create-provider.js';
import { GeminiProvider } from '../../../main/core/providers/gemini-provider.js';
import type { ModelProvider } from '../../../main/core/providers/model-provider.js';
import { OpenAIChatProvider } from '../../../main/core/providers/openai-chat-provider.js';
import type { ProviderHttpOptions } from '../../../main/core/providers/provider-http.js';
import { MAX_REDIRECTS } from '../../../main/core/net/redirects.js';
import { createToolRunner } from '../../../main/core/tools/tool-runner.js';
import { ToolFailure } from '../../../main/core/tools/tool-spec.js';
import {
  CANARY_KEY,
  type LoopbackServer,
  type RecordedRequest,
  type Responder,
  collect,
  expectNoKey,
  fixture,
  sse,
  startLoopbackServer,
} from '../providers/loopback-server.js';
import { plainRequest } from '../providers/requests.js';
import { spec } from '../tools/helpers.js';

/**
 * A model endpoint (or a workspace that names one) that redirects the request elsewhere. The red
 * team saw Anthropic's `x-api-key` and Gemini's `x-goog-api-key` follow a 307 to another origin:
 * fetch's own redirect handling drops only `Authorization`. Now no request that carries a key
 * follows a redirect to another origin, whatever the status, the header or the shape of the
 * Location; the other origin never receives a request. Same-origin redirects are followed (at
 * most 5). The http tools share the same redirect code (main/core/net/redirects.ts).
 */

const servers: LoopbackServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function start(...responders: Responder[]): Promise<LoopbackServer> {
  const server = await startLoopbackServer(...responders);
  servers.push(server);
  return server;
}

/** Redirects every request with `status` to `location(request)`. */
function redirect(status: number, location: (request: RecordedRequest) => string): Responder {
  return (request: RecordedRequest, response: ServerResponse) => {
    response.writeHead(status, { location: location(request) });
    response.end();
  };
}

/** What a hostile origin answers: a valid stream, so that following the redirect would "work". */
const accepting = (body: string): Responder => sse(body);

interface AdapterCase {
  name: string;
  label: string;
  keyHeader: string;
  /** The path the adapter posts to, under the server's origin. */
  path: string;
  make(origin: string, http?: ProviderHttpOptions): ModelProvider;
  okBody: string;
  model: string;
}

const adapters: AdapterCase[] = [
  {
    name: 'OpenAI',
    label: 'OpenAI',
    keyHeader: 'authorization',
    path: '/v1/chat/completions',
    make: (origin, http = {}) =>
      new OpenAIChatProvider({
        ...http,
        baseUrl: `${origin}/v1`,
        apiKey: CANARY_KEY,
        providerId: 'openai',
        label: 'OpenAI',
        retry: { maxRetries: 0 },
      }),
    okBody: fixture('openai/text.sse'),
    model: 'gpt-4o-mini',
  },
  {
    name: 'Anthropic',
    label: 'Anthropic',
    keyHeader: 'x-api-key',
    path: '/v1/messages',
    make: (origin, http = {}) =>
      new AnthropicProvider({ ...http, baseUrl: origin, apiKey: CANARY_KEY, retry: { maxRetries: 0 } }),
    okBody: fixture('anthropic/text.sse'),
    model: 'claude-sonnet-4-5',
  },
  {
    name: 'Gemini',
    label: 'Google Gemini',
    keyHeader: 'x-goog-api-key',
    path: '/v1beta/models/gemini-2.5-flash:streamGenerateContent',
    make: (origin, http = {}) =>
      new GeminiProvider({ ...http, baseUrl: `${origin}/v1beta`, apiKey: CANARY_KEY, retry: { maxRetries: 0 } }),
    okBody: fixture('gemini/text.sse'),
    model: 'gemini-2.5-flash',
  },
];

const STATUSES = [301, 302, 303, 307, 308];

describe.each(adapters)('$name adapter: a redirect to another origin', (adapter) => {
  const crossOriginMessage = (first: LoopbackServer, to: string) =>
    `${adapter.label}: ${first.url}${adapter.path} redirected to another origin (${to}); the key (header "${adapter.keyHeader}") and the conversation are only sent to ${first.url}, the origin of the model's base URL. Set the model's baseUrl to the final address (or fix the redirect on the server).`;

  it.each(STATUSES)(
    'a %i to a server on another port of the same host is refused; that server receives nothing',
    async (status) => {
      const other = await start(accepting(adapter.okBody));
      const first = await start(redirect(status, () => `${other.url}/collect`));
      const result = await collect(adapter.make(first.url), plainRequest(adapter.model));
      expect(result.error?.kind).toBe('connection');
      expect(result.error?.message).toBe(crossOriginMessage(first, other.url));
      expect(other.requests).toHaveLength(0);
      expect(first.requests).toHaveLength(1);
      expect(first.requests[0]!.headers[adapter.keyHeader]).toContain(CANARY_KEY);
      expectNoKey(result);
    },
  );

  it('the same port under another host name (localhost for 127.0.0.1) is another origin too', async () => {
    const first = await start(
      redirect(307, (request) => `http://localhost:${new URL(`http://${request.headers.host}`).port}/v1/x`),
      accepting(adapter.okBody),
    );
    const port = new URL(first.url).port;
    const result = await collect(adapter.make(first.url), plainRequest(adapter.model));
    expect(result.error?.message).toBe(crossOriginMessage(first, `http://localhost:${port}`));
    expect(first.requests).toHaveLength(1);
  });

  it('a scheme-relative Location (//host:port/...) to another origin is refused', async () => {
    const other = await start(accepting(adapter.okBody));
    const first = await start(redirect(308, () => `//${new URL(other.url).host}/steal`));
    const result = await collect(adapter.make(first.url), plainRequest(adapter.model));
    expect(result.error?.message).toBe(crossOriginMessage(first, other.url));
    expect(other.requests).toHaveLength(0);
  });

  it('https → http on the same host and port (a downgrade) is refused before anything is sent in clear', async () => {
    // A loopback stand-in for TLS: the adapter talks to https://127.0.0.1:PORT, the shim carries
    // those requests to the plain server, and records every URL the adapter asked for.
    const server = await start(
      redirect(307, (request) => `http://${request.headers.host}${request.url}`),
      accepting(adapter.okBody),
    );
    const secure = server.url.replace('http:', 'https:');
    const asked: string[] = [];
    const shim: typeof fetch = (input, init) => {
      const url = String(input);
      asked.push(url);
      return fetch(url.startsWith(secure) ? url.replace(secure, server.url) : url, init);
    };
    const result = await collect(adapter.make(secure, { fetch: shim }), plainRequest(adapter.model));
    expect(result.error?.kind).toBe('connection');
    expect(result.error?.message).toContain(`redirected to another origin (${server.url})`);
    expect(result.error?.message).toContain(`only sent to ${secure}`);
    expect(asked).toEqual([`${secure}${adapter.path}${adapter.name === 'Gemini' ? '?alt=sse' : ''}`]);
    expect(server.requests).toHaveLength(1);
  });

  it('a chain that stays on the origin for a hop, leaves it, and would come back is refused where it leaves', async () => {
    const other = await start(redirect(307, (request) => `${first.url}/back${request.url}`));
    const first: LoopbackServer = await start(
      redirect(307, () => '/hop'),
      redirect(307, () => `${other.url}/away`),
      accepting(adapter.okBody),
    );
    const result = await collect(adapter.make(first.url), plainRequest(adapter.model));
    expect(result.error?.message).toBe(
      crossOriginMessage(first, other.url).replace(
        `${first.url}${adapter.path} redirected`,
        `${first.url}/hop redirected`,
      ),
    );
    expect(first.requests.map((request) => request.url)).toEqual([expect.stringContaining(adapter.path), '/hop']);
    expect(other.requests).toHaveLength(0);
  });

  it('a Location carrying the key (in its path and query) does not put the key in the message', async () => {
    const other = await start(accepting(adapter.okBody));
    const first = await start(redirect(302, () => `${other.url}/k/${CANARY_KEY}?key=${CANARY_KEY}`));
    const result = await collect(adapter.make(first.url), plainRequest(adapter.model));
    expect(result.error?.kind).toBe('connection');
    expectNoKey(result);
    expect(other.requests).toHaveLength(0);
  });

  it('a Location with user info is refused, even to the same origin, and the password is not shown', async () => {
    const first = await start(
      redirect(307, (request) => `http://attacker:hunter2-password@${request.headers.host}/v1/other`),
      accepting(adapter.okBody),
    );
    const result = await collect(adapter.make(first.url), plainRequest(adapter.model));
    expect(result.error?.kind).toBe('connection');
    expect(result.error?.message).toBe(
      `${adapter.label}: ${first.url}${adapter.path} redirected to a URL with user info (a name or password before the host); such redirects are never followed`,
    );
    expect(result.error?.message).not.toContain('hunter2');
    expect(first.requests).toHaveLength(1);
  });

  it('a redirect to a file: URL is refused', async () => {
    const first = await start(redirect(307, () => 'file:///etc/passwd'));
    const result = await collect(adapter.make(first.url), plainRequest(adapter.model));
    expect(result.error?.message).toContain('redirected to a file: URL; only http and https are followed');
  });

  it('a same-origin relative 307 is followed, repeating the POST with its body and the key', async () => {
    const first = await start(
      redirect(307, () => '/moved'),
      accepting(adapter.okBody),
    );
    const result = await collect(adapter.make(first.url), plainRequest(adapter.model));
    expect(result.error).toBeUndefined();
    expect(result.events.at(-1)?.type).toBe('finish');
    const [original, repeated] = first.requests;
    expect(repeated).toMatchObject({ method: 'POST', url: '/moved', body: original!.body });
    expect(repeated!.headers[adapter.keyHeader]).toContain(CANARY_KEY);
  });

  it(`a same-origin redirect loop stops after ${MAX_REDIRECTS} redirects`, async () => {
    const loop = await start(redirect(308, (request) => `/${Number(request.url.split('/')[1]) + 1 || 1}`));
    const result = await collect(adapter.make(loop.url), plainRequest(adapter.model));
    expect(result.error?.kind).toBe('connection');
    expect(result.error?.message).toBe(
      `${adapter.label}: more than ${MAX_REDIRECTS} redirects, starting at ${loop.url}${adapter.path}`,
    );
    expect(loop.requests).toHaveLength(MAX_REDIRECTS + 1);
  });
});

describe('providers built the way a run builds them', () => {
  it('createProvider: an Anthropic preset with a catalog base URL does not follow a 307 elsewhere', async () => {
    const other = await start(accepting(fixture('anthropic/text.sse')));
    const first = await start(redirect(307, () => `${other.url}/v1/messages`));
    const provider = createProvider({ providerId: 'anthropic', baseUrl: first.url, apiKey: CANARY_KEY });
    const result = await collect(provider, plainRequest('claude-sonnet-4-5'));
    expect(result.error?.kind).toBe('connection');
    expect(other.requests).toHaveLength(0);
    expectNoKey(result);
  });

  it('a provider without a key still does not send the conversation to another origin', async () => {
    const other = await start(accepting(fixture('openai/text.sse')));
    const first = await start(redirect(307, () => `${other.url}/v1/chat/completions`));
    const provider = createProvider({ providerId: 'ollama', baseUrl: `${first.url}/v1` });
    const result = await collect(provider, plainRequest('llama3.1'));
    expect(result.error?.message).toBe(
      `Ollama: ${first.url}/v1/chat/completions redirected to another origin (${other.url}); the conversation is only sent to ${first.url}, the origin of the model's base URL. Set the model's baseUrl to the final address (or fix the redirect on the server).`,
    );
    expect(other.requests).toHaveLength(0);
  });

  it('extra headers an adapter is given do not travel to another origin either', async () => {
    const other = await start(accepting(fixture('openai/text.sse')));
    const first = await start(redirect(307, () => `${other.url}/v1/chat/completions`));
    const provider = new OpenAIChatProvider({
      baseUrl: `${first.url}/v1`,
      providerId: 'openrouter',
      headers: { 'x-custom-auth': CANARY_KEY },
    });
    const result = await collect(provider, plainRequest('m'));
    expect(result.error?.kind).toBe('connection');
    expect(other.requests).toHaveLength(0);
  });
});

describe('http tools: the same redirect code', () => {
  const secrets = { get: async (name: string) => (name === 'api' ? CANARY_KEY : undefined) };
  const runner = createToolRunner({ workspaceRoot: undefined, secrets });
  const signal = () => new AbortController().signal;
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: unknown) => error as Error,
    );

  it('a literal key-like header (X-Api-Key, X-Auth-Token, Cookie) never reaches another origin', async () => {
    const other = await start((request, response) => void response.end(JSON.stringify(request.headers)));
    const first = await start(redirect(307, () => other.url));
    const tool = spec('open', {
      kind: 'http',
      url: first.url,
      headers: {
        'X-Api-Key': 'literal-key-value',
        'X-Auth-Token': 'literal-token',
        Cookie: 'session=1',
        'X-Goog-Api-Key': 'another-literal',
        'X-Client': 'pf',
      },
    });
    const seen = JSON.parse(await runner.run(tool, {}, signal())) as Record<string, string>;
    expect(seen['x-client']).toBe('pf');
    for (const name of ['x-api-key', 'x-auth-token', 'cookie', 'x-goog-api-key']) expect(seen[name]).toBeUndefined();
    expect(first.requests[0]!.headers['x-api-key']).toBe('literal-key-value');
  });

  it('literal headers next to a secret header: the redirect is refused, nothing reaches the other origin', async () => {
    const other = await start((_request, response) => void response.end('stolen'));
    const first = await start(redirect(302, () => other.url));
    const tool = spec('api', {
      kind: 'http',
      url: first.url,
      headers: { 'X-Client': 'pf', Authorization: { secret: 'api' } },
    });
    const error = await failure(runner.run(tool, {}, signal()));
    expect(error).toBeInstanceOf(ToolFailure);
    expect(error?.message).toBe(
      `${first.url}/ redirected to another origin (${other.url}); the secret header "Authorization" is only sent to ${first.url}. Point the tool's url at the final address.`,
    );
    expect(other.requests).toHaveLength(0);
  });

  it('a secret header and a chain that leaves the origin and comes back: refused where it leaves', async () => {
    const other = await start(redirect(307, () => `${first.url}/back`));
    const first: LoopbackServer = await start(
      redirect(307, () => '/hop'),
      redirect(307, () => other.url),
    );
    const tool = spec('api', { kind: 'http', url: first.url, headers: { 'X-Token': { secret: 'api' } } });
    const error = await failure(runner.run(tool, {}, signal()));
    expect(error?.message).toContain(`${first.url}/hop redirected to another origin (${other.url})`);
    expect(other.requests).toHaveLength(0);
    expect(first.requests.map((request) => request.url)).toEqual(['/', '/hop']);
  });

  it('a secret header and a Location with user info: refused, the password not shown', async () => {
    const first = await start(redirect(307, (request) => `http://u:hunter2-password@${request.headers.host}/x`));
    const tool = spec('api', { kind: 'http', url: first.url, headers: { 'X-Api-Key': { secret: 'api' } } });
    const error = await failure(runner.run(tool, {}, signal()));
    expect(error?.message).toBe(
      `${first.url}/ redirected to a URL with user info (a name or password before the host); such redirects are never followed`,
    );
    expect(first.requests).toHaveLength(1);
  });

  it('a secret header and the same port under another host name: refused', async () => {
    const first = await start(
      redirect(308, (request) => `http://localhost:${new URL(`http://${request.headers.host}`).port}/x`),
    );
    const tool = spec('api', { kind: 'http', url: first.url, headers: { 'X-Api-Key': { secret: 'api' } } });
    const error = await failure(runner.run(tool, {}, signal()));
    expect(error?.message).toContain('redirected to another origin (http://localhost:');
    expect(first.requests).toHaveLength(1);
  });
});
