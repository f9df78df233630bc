import { afterEach, describe, expect, it } from 'vitest';
import { createBuiltinCatalog } from '../../../main/core/catalog/tool-catalog.js';
import { fragmentLength } from '../../../main/core/secrets/redact.js';
import { MAX_REDIRECTS } from '../../../main/core/tools/http-runner.js';
import { createToolRunner } from '../../../main/core/tools/tool-runner.js';
import { ToolFailure } from '../../../main/core/tools/tool-spec.js';
import { HEADER_SECRET, isRedacted, LEAKS } from '../../fixtures/secret-leaks.js';
import { spec, startServer } from './helpers.js';

/**
 * Hostile http tool servers: they echo the header secret back in every form of the shared leak
 * corpus, on success and in errors, and redirect it to other origins.
 */

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});
const secrets = { get: async (name: string) => (name === 'api' ? HEADER_SECRET : undefined) };
const signal = () => new AbortController().signal;
const runner = createToolRunner({ workspaceRoot: undefined, secrets });
const withSecret = (url: string, extra: Record<string, string> = {}) =>
  spec('api', { kind: 'http', url, headers: { 'X-Api-Key': { secret: 'api' }, ...extra } });
const headerLeaks = LEAKS.filter((leak) => leak.secret === HEADER_SECRET);

/** Whether `text` holds a window of the secret long enough to count as a leak (any case). */
function holdsFragment(text: string, secret: string): boolean {
  const n = fragmentLength(secret.length);
  const folded = text.toLowerCase();
  for (let i = 0; i + n <= secret.length; i += 1)
    if (folded.includes(secret.slice(i, i + n).toLowerCase())) return true;
  return false;
}

async function server(handler: Parameters<typeof startServer>[0]) {
  const started = await startServer(handler);
  servers.push(started);
  return started;
}

describe('http tools: a server echoing the header secret back', () => {
  it.each(headerLeaks.map((leak) => [leak.name, leak] as const))('in a 200 body: %s', async (_name, leak) => {
    const echo = await server((request, _body, response) => {
      // It echoes what it received, encoded the corpus's way.
      response.end(request.headers['x-api-key'] === HEADER_SECRET ? leak.text : 'wrong key');
    });
    const output = await runner.run(withSecret(echo.url), {}, signal());
    expect(isRedacted(output, leak)).toBe(true);
  });

  it.each(headerLeaks.map((leak) => [leak.name, leak] as const))('in a 500 body: %s', async (_name, leak) => {
    const echo = await server((_request, _body, response) => {
      response.statusCode = 500;
      response.end(leak.text);
    });
    const failure = (await runner.run(withSecret(echo.url), {}, signal()).catch((error: unknown) => error)) as Error;
    expect(failure).toBeInstanceOf(ToolFailure);
    expect(failure.message).toMatch(/^HTTP 500 from /);
    expect(holdsFragment(failure.message, HEADER_SECRET)).toBe(false);
    expect(failure.message).not.toContain(HEADER_SECRET);
  });

  it('the whole corpus in one JSON body, every leak in its own field', async () => {
    const echo = await server((_request, _body, response) =>
      response.end(JSON.stringify(Object.fromEntries(headerLeaks.map((leak) => [leak.name, leak.text])))),
    );
    const output = await runner.run(withSecret(echo.url), {}, signal());
    expect(holdsFragment(output, HEADER_SECRET)).toBe(false);
    expect(holdsFragment(JSON.stringify(JSON.parse(output)), HEADER_SECRET)).toBe(false);
  });

  it('a secret at the end of a long error body is not cut into a visible fragment by the tail', async () => {
    const echo = await server((_request, _body, response) => {
      response.statusCode = 502;
      response.end(`${'x'.repeat(490)}${HEADER_SECRET}`);
    });
    const failure = (await runner.run(withSecret(echo.url), {}, signal()).catch((error: unknown) => error)) as Error;
    expect(holdsFragment(failure.message, HEADER_SECRET)).toBe(false);
  });
});

describe('http tools: redirects', () => {
  it.each([301, 302, 303, 307, 308])(
    'a %i to another origin is refused while a secret header is set; the other origin gets nothing',
    async (status) => {
      const other = await server((_request, _body, response) => response.end('stolen'));
      const first = await server((_request, _body, response) => {
        response.writeHead(status, { location: `${other.url}/collect/${HEADER_SECRET}?k=${HEADER_SECRET}` });
        response.end();
      });
      const failure = (await runner
        .run(withSecret(`${first.url}/api`), {}, signal())
        .catch((e: unknown) => e)) as Error;
      expect(failure).toBeInstanceOf(ToolFailure);
      expect(failure.message).toBe(
        `${first.url}/api redirected to another origin (${other.url}); the secret header "X-Api-Key" is only sent to ${first.url}. Point the tool's url at the final address.`,
      );
      expect(other.requests).toHaveLength(0);
    },
  );

  it('http to https on the same host is another origin too (a downgrade or upgrade never carries the secret)', async () => {
    const first = await server((request, _body, response) => {
      response.writeHead(302, { location: `https://${request.headers.host}/secure` });
      response.end();
    });
    await expect(runner.run(withSecret(first.url), {}, signal())).rejects.toThrow('redirected to another origin');
  });

  it('a same-origin 307 repeats the POST with its body and the secret; a 303 becomes a GET without a body', async () => {
    const api = await server((request, _body, response) => {
      if (request.url === '/start') response.writeHead(307, { location: '/kept' }).end();
      else if (request.url === '/kept') response.writeHead(303, { location: '/final' }).end();
      else response.end(`final ${request.method}`);
    });
    expect(await runner.run(withSecret(`${api.url}/start`), { q: 1 }, signal())).toBe('final GET');
    expect(api.requests.map((r) => [r.method, r.url, r.body, r.headers['x-api-key']])).toEqual([
      ['POST', '/start', '{"q":1}', HEADER_SECRET],
      ['POST', '/kept', '{"q":1}', HEADER_SECRET],
      ['GET', '/final', '', HEADER_SECRET],
    ]);
  });

  it('a same-origin redirect to a path that carries the secret, then a 500: the message does not show it', async () => {
    const api = await server((request, _body, response) => {
      if (request.url === '/start')
        response.writeHead(302, { location: `/k/${encodeURIComponent(HEADER_SECRET.toUpperCase())}/x` }).end();
      else response.writeHead(500).end('no');
    });
    const failure = (await runner.run(withSecret(`${api.url}/start`), {}, signal()).catch((e: unknown) => e)) as Error;
    expect(failure.message).toMatch(/^HTTP 500 from http:\/\/127\.0\.0\.1:\d+\/k\/\[redacted\]\/x: no$/);
  });

  it(`a redirect loop stops after ${MAX_REDIRECTS} redirects`, async () => {
    const loop = await server((request, _body, response) => {
      const n = Number(request.url?.slice(1) || '0');
      response.writeHead(302, { location: `/${n + 1}` }).end();
    });
    await expect(runner.run(withSecret(`${loop.url}/0`), {}, signal())).rejects.toThrow(
      `more than ${MAX_REDIRECTS} redirects, starting at ${loop.url}/0`,
    );
    expect(loop.requests).toHaveLength(MAX_REDIRECTS + 1);
  });

  it('a redirect to a file: or data: URL, or without a Location, is refused', async () => {
    const bad = await server((request, _body, response) => {
      if (request.url === '/file') response.writeHead(302, { location: 'file:///etc/passwd' }).end();
      else if (request.url === '/data') response.writeHead(302, { location: 'data:text/plain,hi' }).end();
      else response.writeHead(302).end();
    });
    const tool = (path: string) => spec('open', { kind: 'http', url: `${bad.url}${path}` });
    await expect(runner.run(tool('/file'), {}, signal())).rejects.toThrow(
      `${bad.url}/file redirected to a file: URL; only http and https are followed`,
    );
    await expect(runner.run(tool('/data'), {}, signal())).rejects.toThrow('redirected to a data: URL');
    await expect(runner.run(tool('/none'), {}, signal())).rejects.toThrow(
      `HTTP 302 from ${bad.url}/none without a Location header`,
    );
  });

  it('without secret headers a cross-origin redirect is followed, but literal credentials are dropped', async () => {
    const other = await server((request, _body, response) =>
      response.end(`auth=${String(request.headers['authorization'])} client=${String(request.headers['x-client'])}`),
    );
    const first = await server((_request, _body, response) => response.writeHead(308, { location: other.url }).end());
    const tool = spec('open', {
      kind: 'http',
      url: first.url,
      headers: { Authorization: 'Bearer literal-token', 'X-Client': 'pf' },
    });
    expect(await runner.run(tool, {}, signal())).toBe('auth=undefined client=pf');
    expect(first.requests[0]?.headers['authorization']).toBe('Bearer literal-token');
  });

  it('http_get follows redirects across origins (it sends no secrets) up to the same bound', async () => {
    const page = await server((_request, _body, response) => response.end('the page'));
    const hop = await server((_request, _body, response) =>
      response.writeHead(301, { location: `${page.url}/p` }).end(),
    );
    const httpGet = createBuiltinCatalog().get('http_get')!;
    expect(await runner.run(httpGet, { url: hop.url }, signal())).toBe('the page');
  });

  it('a timeout covers the whole redirect chain', async () => {
    const slow = await server((request, _body, response) => {
      if (request.url === '/') response.writeHead(302, { location: '/hang' }).end();
      // '/hang' never answers.
    });
    const tool = spec('slow', {
      kind: 'http',
      url: slow.url,
      headers: { 'X-Api-Key': { secret: 'api' } },
      timeoutMs: 400,
    });
    await expect(runner.run(tool, {}, signal())).rejects.toThrow(`timed out after 400 ms waiting for ${slow.url}/hang`);
  });
});
