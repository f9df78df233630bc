import { afterEach, describe, expect, it } from 'vitest';
import { createToolRunner } from '../../../main/core/tools/tool-runner.js';
import { ToolFailure } from '../../../main/core/tools/tool-spec.js';
import { spec, startServer } from './helpers.js';

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});
const SECRET = 'sk-test-0123456789abcdef';
const secrets = { get: async (name: string) => (name === 'search-key' ? SECRET : undefined) };
const signal = () => new AbortController().signal;

describe('http tools', () => {
  it('POSTs the arguments as JSON with literal and keychain headers, and returns the body', async () => {
    const server = await startServer((_request, body, response) => {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ received: JSON.parse(body) }));
    });
    servers.push(server);
    const runner = createToolRunner({ workspaceRoot: undefined, secrets });
    const tool = spec('search', {
      kind: 'http',
      url: `${server.url}/search?v=1`,
      headers: { Authorization: { secret: 'search-key' }, 'X-Client': 'promptforge' },
    });
    const output = await runner.run(tool, { query: 'lua' }, signal());
    expect(JSON.parse(output)).toEqual({ received: { query: 'lua' } });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({ method: 'POST', url: '/search?v=1', body: '{"query":"lua"}' });
    expect(server.requests[0]?.headers['authorization']).toBe(SECRET);
    expect(server.requests[0]?.headers['x-client']).toBe('promptforge');
    expect(server.requests[0]?.headers['content-type']).toBe('application/json');
  });

  it('a non-2xx status is "HTTP 500 from <url>: <body tail>" and never shows the secret, even when the server echoes it', async () => {
    const server = await startServer((request, _body, response) => {
      response.statusCode = 500;
      response.end(`internal error; you sent Authorization: ${String(request.headers['authorization'])}`);
    });
    servers.push(server);
    const runner = createToolRunner({ workspaceRoot: undefined, secrets });
    const tool = spec('search', {
      kind: 'http',
      url: `${server.url}/search?token=abc`,
      headers: { Authorization: { secret: 'search-key' } },
    });
    const failure = (await runner.run(tool, {}, signal()).catch((error: unknown) => error)) as ToolFailure;
    expect(failure).toBeInstanceOf(ToolFailure);
    expect(server.requests[0]?.headers['authorization']).toBe(SECRET);
    expect(failure.message).toBe(
      `HTTP 500 from ${server.url}/search: internal error; you sent Authorization: [redacted]`,
    );
    expect(failure.message).not.toContain(SECRET);
    expect(failure.stack ?? '').not.toContain(SECRET);
  });

  it('a body that echoes the secret on success has it redacted before the script sees it', async () => {
    const server = await startServer((request, _body, response) =>
      response.end(`key=${String(request.headers['authorization'])}`),
    );
    servers.push(server);
    const runner = createToolRunner({ workspaceRoot: undefined, secrets });
    const output = await runner.run(
      spec('s', { kind: 'http', url: server.url, headers: { Authorization: { secret: 'search-key' } } }),
      {},
      signal(),
    );
    expect(output).toBe('key=[redacted]');
  });

  it('a missing secret names the secret and how to set it, and sends nothing', async () => {
    const server = await startServer((_request, _body, response) => response.end('ok'));
    servers.push(server);
    const runner = createToolRunner({ workspaceRoot: undefined, secrets });
    await expect(
      runner.run(
        spec('s', { kind: 'http', url: server.url, headers: { 'X-Api-Key': { secret: 'other' } } }),
        {},
        signal(),
      ),
    ).rejects.toThrow('secret "other" for header "X-Api-Key" is not set; store it with `promptforge keys set other`');
    expect(server.requests).toHaveLength(0);
  });

  it('times out with a clear message', async () => {
    const server = await startServer(() => {
      // Never answers.
    });
    servers.push(server);
    const runner = createToolRunner({ workspaceRoot: undefined, secrets });
    await expect(
      runner.run(spec('slow', { kind: 'http', url: `${server.url}/slow`, timeoutMs: 300 }), {}, signal()),
    ).rejects.toThrow(`timed out after 300 ms waiting for ${server.url}/slow`);
  });

  it('a refused connection says so', async () => {
    const server = await startServer((_request, _body, response) => response.end());
    const url = server.url;
    await server.close();
    const runner = createToolRunner({ workspaceRoot: undefined, secrets });
    await expect(runner.run(spec('down', { kind: 'http', url }), {}, signal())).rejects.toThrow(
      `request to ${url}/ failed: ECONNREFUSED`,
    );
  });
});
