import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import type { McpServerManager } from '../../../main/core/mcp/mcp-manager.js';
import { attackManager, callOf } from '../mcp/workspace-attack-helpers.js';

/**
 * The workspace is an input: a Streamable HTTP MCP server whose `headers:` carry a keychain
 * secret answers with a redirect to another origin (another port, another host name for the same
 * address), for every request or only for the GET that opens its event stream. No request carrying
 * the secret header ever reaches the other origin; the start fails saying where the redirect
 * pointed. A redirect within the origin is still followed.
 */

const SECRET = 'Bearer 9f2c61d0e8a4b7c3d5e6f7a8b9c0d1e2';

interface Recorded {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingHttpHeaders;
}

interface Listening {
  port: number;
  seen: Recorded[];
  close(): Promise<void>;
}

const closers: (() => Promise<void>)[] = [];
const made: McpServerManager[] = [];
afterEach(async () => {
  await Promise.all(made.splice(0).map((manager) => manager.close()));
  for (const close of closers.splice(0).reverse()) await close();
});

/** Answers one MCP request with the SDK's own stateless server (one tool, `shout`). */
async function answerMcp(request: IncomingMessage, response: ServerResponse): Promise<void> {
  if (request.method !== 'POST') return void response.writeHead(405).end();
  const mcp = new McpServer({ name: 'redirect-test', version: '1' });
  mcp.registerTool(
    'shout',
    { description: 'upper-cases text', inputSchema: { text: z.string() } },
    async ({ text }) => ({
      content: [{ type: 'text', text: text.toUpperCase() }],
    }),
  );
  const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true });
  response.on('close', () => {
    void transport.close();
    void mcp.close();
  });
  await mcp.connect(transport);
  await transport.handleRequest(request, response);
}

/** An HTTP server on 127.0.0.1 that records every request and hands it to `handle`. */
async function listen(
  handle: (request: IncomingMessage, response: ServerResponse, port: number) => void,
): Promise<Listening> {
  const seen: Recorded[] = [];
  let port = 0;
  const server = createServer((request, response) => {
    seen.push({ method: request.method, url: request.url, headers: request.headers });
    handle(request, response, port);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  closers.push(close);
  return { port, seen, close };
}

/** The origin the redirects point to: a working MCP server that would accept the secret. */
function elsewhere(): Promise<Listening> {
  return listen((request, response) => void answerMcp(request, response));
}

function manager(url: string, headers = '    X-Api-Key: { secret: api }\n'): McpServerManager {
  return attackManager(`web:\n  kind: mcp\n  url: ${url}\n  headers:\n${headers}`, made, { secrets: { api: SECRET } });
}

const carriedSecret = (seen: Recorded[]) =>
  seen.filter((request) =>
    Object.values(request.headers).some(
      (value) => String(value).includes('9f2c61d0e8a4') || String(value).includes('q7w8e9r0t1y2'),
    ),
  );

describe('a secret header and a redirect to another origin', () => {
  it.each([307, 308, 301, 302, 303])(
    'every request answered %i to another port: refused, nothing sent there',
    async (status) => {
      const target = await elsewhere();
      const redirector = await listen((_request, response) =>
        response.writeHead(status, { location: `http://127.0.0.1:${target.port}/mcp` }).end(),
      );
      const mcp = manager(`http://127.0.0.1:${redirector.port}/mcp`);
      const { tools, problems } = await mcp.listTools();
      expect(tools).toEqual([]);
      expect(problems[0]?.message).toMatch(
        new RegExp(
          `^MCP server "web" at http://127\\.0\\.0\\.1:${redirector.port}/mcp is not available: it failed to start: .*the server answered ${status} redirecting to http://127\\.0\\.0\\.1:${target.port}/mcp, outside the origin of http://127\\.0\\.0\\.1:${redirector.port}/mcp; a request carrying the server's secret headers does not follow it`,
        ),
      );
      expect(redirector.seen.length).toBeGreaterThan(0);
      expect(target.seen).toEqual([]);
    },
  );

  it('a redirect to the same port under another host name (localhost) is another origin too', async () => {
    const redirector = await listen((request, response, port) => {
      if (request.headers.host?.startsWith('localhost')) return void answerMcp(request, response);
      response.writeHead(307, { location: `http://localhost:${port}/mcp` }).end();
    });
    const mcp = manager(`http://127.0.0.1:${redirector.port}/mcp`);
    const { problems } = await mcp.listTools();
    expect(problems[0]?.message).toMatch(/redirecting to http:\/\/localhost:\d+\/mcp, outside the origin/);
    expect(carriedSecret(redirector.seen.filter((request) => request.headers.host?.startsWith('localhost')))).toEqual(
      [],
    );
  });

  it('only the GET of the event stream is redirected: the secret stays home, the server still works', async () => {
    const target = await elsewhere();
    const home = await listen((request, response) => {
      if (request.method === 'GET')
        return void response.writeHead(307, { location: `http://127.0.0.1:${target.port}/mcp` }).end();
      void answerMcp(request, response);
    });
    const mcp = manager(`http://127.0.0.1:${home.port}/mcp`);
    const { tools, problems } = await mcp.listTools();
    expect(problems).toEqual([]);
    expect(tools.map((tool) => tool.alias)).toEqual(['web.shout']);
    expect(await callOf(mcp, 'web', 'shout', { text: 'hi' })).toBe('HI');
    expect(home.seen.some((request) => request.method === 'GET')).toBe(true);
    expect(target.seen).toEqual([]);
  });

  it('a literal secret-looking header (Authorization) is protected the same way', async () => {
    const target = await elsewhere();
    const redirector = await listen((_request, response) =>
      response.writeHead(307, { location: `http://127.0.0.1:${target.port}/mcp` }).end(),
    );
    const mcp = manager(`http://127.0.0.1:${redirector.port}/mcp`, '    Authorization: Bearer q7w8e9r0t1y2u3i4o5p6\n');
    const { problems } = await mcp.listTools();
    expect(problems[0]?.message).toMatch(/a request carrying the server's secret headers does not follow it/);
    expect(target.seen).toEqual([]);
  });

  it('without secret headers, a redirect to another origin is not followed either (the SDK refuses it)', async () => {
    const target = await elsewhere();
    const redirector = await listen((_request, response) =>
      response.writeHead(307, { location: `http://127.0.0.1:${target.port}/mcp` }).end(),
    );
    const mcp = manager(`http://127.0.0.1:${redirector.port}/mcp`, '    X-Client: promptforge\n');
    const { problems } = await mcp.listTools();
    expect(problems[0]?.message).toMatch(/is not available/);
    expect(target.seen).toEqual([]);
  });

  it('a redirect within the origin is followed, with the secret header', async () => {
    const home = await listen((request, response) => {
      if (request.url === '/mcp') return void response.writeHead(307, { location: '/moved' }).end();
      void answerMcp(request, response);
    });
    const mcp = manager(`http://127.0.0.1:${home.port}/mcp`);
    const { tools, problems } = await mcp.listTools();
    expect(problems).toEqual([]);
    expect(tools.map((tool) => tool.alias)).toEqual(['web.shout']);
    expect(await callOf(mcp, 'web', 'shout', { text: 'moved' })).toBe('MOVED');
    const moved = home.seen.filter((request) => request.url === '/moved' && request.method === 'POST');
    expect(moved.length).toBeGreaterThan(0);
    expect(moved.every((request) => request.headers['x-api-key'] === SECRET)).toBe(true);
  });
});
