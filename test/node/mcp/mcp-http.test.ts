import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { buildWorkspace } from '../../../main/core/catalog/workspace.js';
import { McpServerManager } from '../../../main/core/mcp/mcp-manager.js';
import { ToolFailure } from '../../../main/core/tools/tool-spec.js';

/** A real Streamable HTTP MCP server (the SDK's own), stateless, on 127.0.0.1 only. */
async function startHttpServer(): Promise<{ url: string; headers: IncomingHttpHeaders[]; close(): Promise<void> }> {
  const headers: IncomingHttpHeaders[] = [];
  const serve = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    headers.push(req.headers);
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    const mcp = new McpServer({ name: 'http-test', version: '1' });
    mcp.registerTool(
      'shout',
      { description: 'upper-cases text', inputSchema: { text: z.string() } },
      async ({ text }) => ({ content: [{ type: 'text', text: text.toUpperCase() }] }),
    );
    mcp.registerTool('huge', { description: 'a body over the limit' }, async () => ({
      content: [{ type: 'text', text: 'z'.repeat(9 * 1024 * 1024) }],
    }));
    const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res);
  };
  // A request the SDK fails on is cut off, so the client call fails (and the test with it).
  const server: Server = createServer((req, res) => {
    serve(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    headers,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('a Streamable HTTP MCP server', () => {
  it('lists and calls tools, sends keychain headers, and refuses an oversized response', async () => {
    const http = await startHttpServer();
    cleanups.push(() => http.close());
    const workspace = buildWorkspace('/', {
      'tools.yaml': `web:\n  kind: mcp\n  url: ${http.url}\n  headers:\n    Authorization: { secret: web-token }\n    X-Plain: plain\n`,
    });
    expect(workspace.problems).toEqual([]);
    const mcp = new McpServerManager({
      workspaceRoot: '/',
      servers: workspace.mcpServers ?? [],
      secrets: { get: async (name) => (name === 'web-token' ? 'Bearer t0ken-value' : undefined) },
    });
    cleanups.push(() => mcp.close());
    const { tools, problems } = await mcp.listTools();
    expect(problems).toEqual([]);
    expect(tools.map((tool) => tool.alias).sort()).toEqual(['web.huge', 'web.shout']);
    const signal = new AbortController().signal;
    expect(await mcp.callTool('web', 'shout', { text: 'hi' }, signal, 30_000)).toBe('HI');
    expect(http.headers.every((h) => h.authorization === 'Bearer t0ken-value' && h['x-plain'] === 'plain')).toBe(true);
    const error = await mcp.callTool('web', 'huge', {}, signal, 30_000).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ToolFailure);
    expect((error as ToolFailure).message).toMatch(/more than 8388608 bytes/);
  });
});
