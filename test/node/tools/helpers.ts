import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { ToolKindSettings, ToolSpec } from '../../../main/core/tools/tool-spec.js';

/** test/fixtures/catalogs/command-tools/NAME */
export function commandFixture(name: string): string {
  return fileURLToPath(new URL(`../../fixtures/catalogs/command-tools/${name}`, import.meta.url));
}

/** A ToolSpec for tests. */
export function spec(alias: string, settings: ToolKindSettings, overrides: Partial<ToolSpec> = {}): ToolSpec {
  return {
    alias,
    description: `${alias} for tests`,
    parameters: { type: 'object', properties: {} },
    trust: 'trusted',
    approval: 'auto',
    taintCheck: true,
    settings,
    source: 'test',
    ...overrides,
  };
}

/** A loopback HTTP server; `requests` records every request with its body. */
export async function startServer(
  handler: (request: IncomingMessage, body: string, response: ServerResponse) => void,
): Promise<{
  url: string;
  server: Server;
  requests: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[];
  close(): Promise<void>;
}> {
  const requests: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      requests.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
      handler(request, body, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Whether a process is running (zombies count as gone: they run nothing). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return process.platform !== 'linux';
  }
}
