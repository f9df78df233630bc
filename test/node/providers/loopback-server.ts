import { readFileSync } from 'node:fs';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { AnthropicProvider } from '../../../main/core/providers/anthropic-provider.js';
import { GeminiProvider } from '../../../main/core/providers/gemini-provider.js';
import type { ModelEvent, ModelProvider, ModelRequest } from '../../../main/core/providers/model-provider.js';
import { ProviderError } from '../../../main/core/providers/model-provider.js';
import { OpenAIChatProvider } from '../../../main/core/providers/openai-chat-provider.js';
import type { ProviderHttpOptions } from '../../../main/core/providers/provider-http.js';

/** A fake key that must never show up in an event or an error message. */
export const CANARY_KEY = 'sk-canary-XXXXXXXXXXXXXXXXXXXXXXXX';

/** Each adapter sending to a loopback server at `url` (its API's own path below it) with the canary key. */
export const loopbackProvider: Record<
  'openai' | 'anthropic' | 'gemini',
  (url: string, http: ProviderHttpOptions) => ModelProvider
> = {
  openai: (url, http) =>
    new OpenAIChatProvider({
      ...http,
      baseUrl: `${url}/v1`,
      apiKey: CANARY_KEY,
      providerId: 'openai',
      label: 'OpenAI',
    }),
  anthropic: (url, http) => new AnthropicProvider({ ...http, baseUrl: url, apiKey: CANARY_KEY }),
  gemini: (url, http) => new GeminiProvider({ ...http, baseUrl: `${url}/v1beta`, apiKey: CANARY_KEY }),
};

/** One request the loopback server received. */
export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export type Responder = (request: RecordedRequest, response: ServerResponse) => void | Promise<void>;

/** A loopback HTTP server on 127.0.0.1:0 answering each request with the next responder (the last repeats). */
export interface LoopbackServer {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startLoopbackServer(...responders: Responder[]): Promise<LoopbackServer> {
  const requests: RecordedRequest[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(recorded);
      const responder = responders[Math.min(requests.length - 1, responders.length - 1)];
      void Promise.resolve(responder?.(recorded, res)).catch(() => res.destroy());
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A port that was open a moment ago and is closed now (connection refused). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export function fixture(name: string): string {
  return readFileSync(fileURLToPath(new URL(`../../fixtures/providers/${name}`, import.meta.url)), 'utf8');
}

/**
 * Streams `body` as an SSE response in small writes (so SSE lines straddle network chunks).
 * `end: 'destroy'` cuts the socket after the body instead of ending the response cleanly.
 */
export function sse(body: string, options: { chunkSize?: number; end?: 'end' | 'destroy' | 'hang' } = {}): Responder {
  return async (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const size = options.chunkSize ?? 37;
    for (let offset = 0; offset < body.length; offset += size) {
      response.write(body.slice(offset, offset + size));
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (options.end === 'destroy') response.socket?.destroy();
    else if (options.end !== 'hang') response.end();
  };
}

/** Answers with `status`, a JSON (or text) body and extra headers. */
export function httpError(status: number, body: string, headers: Record<string, string> = {}): Responder {
  return (_request, response) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(body);
  };
}

/** Accepts the request and never answers. */
export const hang: Responder = () => undefined;

/** Runs a round to the end and returns its events, or the ProviderError and the events before it. */
export async function collect(
  provider: ModelProvider,
  request: ModelRequest,
  signal: AbortSignal = new AbortController().signal,
): Promise<{ events: ModelEvent[]; error: ProviderError | undefined }> {
  const events: ModelEvent[] = [];
  try {
    for await (const event of provider.chat(request, signal)) events.push(event);
    return { events, error: undefined };
  } catch (error) {
    if (error instanceof ProviderError) return { events, error };
    throw error;
  }
}

/** Fails the test if the canary key is anywhere in the events or the error. */
export function expectNoKey(result: { events: ModelEvent[]; error: Error | undefined }, key = CANARY_KEY): void {
  const text =
    JSON.stringify(result.events) + (result.error ? `${result.error.message}\n${String(result.error.stack)}` : '');
  if (text.includes(key)) throw new Error(`the key leaked into: ${text.slice(0, 400)}`);
}
