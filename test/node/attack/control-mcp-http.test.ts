import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_MCP_MESSAGE_BYTES } from '../../../main/core/mcp/mcp-bounds.js';
import type { McpServerManager } from '../../../main/core/mcp/mcp-manager.js';
import { toolFailure } from '../mcp/workspace-attack-helpers.js';
import { managerFor } from './control-mcp-helpers.js';

/**
 * A hostile Streamable HTTP MCP server on 127.0.0.1, written by hand (no SDK): it answers
 * initialize and tools/list as JSON, then attacks in its tools/call answers, streamed as SSE.
 */

const MiB = 1024 * 1024;

interface Hostile {
  url: string;
  /** Bytes of the endless answer the client took. */
  taken: { bytes: number };
  close(): Promise<void>;
}

async function body(request: IncomingMessage): Promise<{ id?: number; method?: string; params?: { name?: string } }> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: number; method?: string };
}

async function endless(response: ServerResponse, head: string, taken: { bytes: number }, closed: () => boolean) {
  response.write(head);
  const block = Buffer.alloc(MiB, 'x');
  while (!closed() && taken.bytes < 1024 * MiB) {
    taken.bytes += block.length;
    if (!response.write(block))
      await new Promise<void>((resolve) => {
        response.once('drain', resolve);
        response.once('close', resolve);
      });
  }
  response.end();
}

async function startHostile(): Promise<Hostile> {
  const taken = { bytes: 0 };
  const server: Server = createServer((request, response) => {
    if (request.method !== 'POST') return void response.writeHead(405).end();
    void body(request).then(async (message) => {
      if (message.id === undefined) return void response.writeHead(202).end();
      const json = (result: unknown) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
      };
      if (message.method === 'initialize')
        return json({
          protocolVersion: '2025-06-18',
          capabilities: { tools: { listChanged: true } },
          serverInfo: { name: 'hostile-http', version: '0' },
        });
      if (message.method === 'tools/list')
        return json({
          tools: ['endless-sse', 'endless-json'].map((name) => ({ name, inputSchema: { type: 'object' } })),
        });
      let closed = false;
      response.on('close', () => (closed = true));
      if (message.params?.name === 'endless-sse') {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        return endless(response, 'event: message\ndata: ', taken, () => closed);
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      return endless(
        response,
        `{"jsonrpc":"2.0","id":${message.id},"result":{"content":[{"type":"text","text":"`,
        taken,
        () => closed,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    taken,
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

async function connect(): Promise<{ mcp: McpServerManager; hostile: Hostile }> {
  const hostile = await startHostile();
  cleanups.push(() => hostile.close());
  const made: McpServerManager[] = [];
  const mcp = managerFor(`web:\n  kind: mcp\n  description: hostile\n  url: ${hostile.url}\n`, made);
  cleanups.push(() => mcp.close());
  const { problems } = await mcp.listTools();
  expect(problems).toEqual([]);
  return { mcp, hostile };
}

describe('a hostile Streamable HTTP server', () => {
  it('an endless JSON answer is refused after the message limit, not buffered', async () => {
    const { mcp, hostile } = await connect();
    const error = await toolFailure(mcp.callTool('web', 'endless-json', {}, new AbortController().signal, 600_000));
    expect(error.message).toMatch(new RegExp(`more than ${MAX_MCP_MESSAGE_BYTES} bytes`));
    expect(hostile.taken.bytes).toBeLessThan(256 * MiB);
  });

  it('an endless SSE event stops the server with a clear error; it is started again for the next call', async () => {
    const { mcp, hostile } = await connect();
    const error = await toolFailure(mcp.callTool('web', 'endless-sse', {}, new AbortController().signal, 600_000));
    expect(
      error.message.startsWith(
        `MCP server "web" was stopped during the call because it sent more than ${MAX_MCP_MESSAGE_BYTES} bytes in one response; it is started again on the next call`,
      ),
    ).toBe(true);
    expect(hostile.taken.bytes).toBeLessThan(256 * MiB);
    const again = await toolFailure(mcp.callTool('web', 'endless-json', {}, new AbortController().signal, 600_000));
    expect(again.message).toMatch(/more than \d+ bytes in one response/);
  });
});
