import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { contentSecurityPolicy } from '../../common/content-security-policy.js';

const mimeTypes: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.wasm': 'application/wasm',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.txt': 'text/plain; charset=utf-8',
};

/** A running loopback server for the built renderer. */
export interface RendererServer {
  /** e.g. `http://127.0.0.1:41234/` */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Serves `rootDirectory` (out/renderer) on 127.0.0.1 with the app's CSP header, so the page runs
 * under the same policy as in Electron. GET and HEAD only; paths outside the root are 404.
 */
export async function startRendererServer(rootDirectory: string): Promise<RendererServer> {
  const root = path.resolve(rootDirectory);
  const server: Server = createServer((request, response) => {
    const headers = {
      'Content-Security-Policy': contentSecurityPolicy,
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'no-store',
    };
    const reply = (status: number, text: string): void => {
      response.writeHead(status, { ...headers, 'Content-Type': 'text/plain; charset=utf-8' }).end(text);
    };
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      reply(405, 'method not allowed');
      return;
    }
    let pathname: string;
    try {
      pathname = decodeURIComponent(new URL(request.url ?? '/', 'http://loopback').pathname);
    } catch {
      reply(400, 'bad request');
      return;
    }
    const filePath = path.resolve(root, `.${pathname.endsWith('/') ? `${pathname}index.html` : pathname}`);
    if (filePath !== root && !filePath.startsWith(`${root}${path.sep}`)) {
      reply(404, 'not found');
      return;
    }
    stat(filePath).then(
      (info) => {
        if (!info.isFile()) {
          reply(404, 'not found');
          return;
        }
        response.writeHead(200, {
          ...headers,
          'Content-Type': mimeTypes[path.extname(filePath).toLowerCase()] ?? 'application/octet-stream',
          'Content-Length': info.size,
        });
        if (request.method === 'HEAD') response.end();
        else createReadStream(filePath).pipe(response);
      },
      () => reply(404, 'not found'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
