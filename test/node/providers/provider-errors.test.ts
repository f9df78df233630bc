import { afterEach, describe, expect, it } from 'vitest';
import type { ModelProvider } from '../../../main/core/providers/model-provider.js';
import { createProvider } from '../../../main/core/providers/create-provider.js';
import type { ProviderHttpOptions } from '../../../main/core/providers/provider-http.js';
import { formatDuration } from '../../../main/core/providers/provider-errors.js';
import {
  CANARY_KEY,
  type LoopbackServer,
  type Responder,
  closedPort,
  collect,
  expectNoKey,
  fixture,
  loopbackProvider,
  hang,
  httpError,
  sse,
  startLoopbackServer,
} from './loopback-server.js';
import { plainRequest } from './requests.js';

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Records the waits the retry loop asks for, without waiting. */
function fakeSleep(): { waits: number[]; sleep: (ms: number, signal: AbortSignal) => Promise<void> } {
  const waits: number[] = [];
  return { waits, sleep: async (ms) => void waits.push(ms) };
}

interface AdapterCase {
  name: string;
  label: string;
  providerId: string;
  make(url: string, http: ProviderHttpOptions): ModelProvider;
  okBody: string;
  cutBody: string;
  model: string;
}

const adapters: AdapterCase[] = [
  {
    name: 'OpenAIChatProvider',
    label: 'OpenAI',
    providerId: 'openai',
    make: loopbackProvider.openai,
    okBody: fixture('openai/text.sse'),
    cutBody: fixture('openai/cut.sse'),
    model: 'gpt-4o-mini',
  },
  {
    name: 'AnthropicProvider',
    label: 'Anthropic',
    providerId: 'anthropic',
    make: loopbackProvider.anthropic,
    okBody: fixture('anthropic/text.sse'),
    cutBody: fixture('anthropic/cut.sse'),
    model: 'claude-sonnet-4-5',
  },
  {
    name: 'GeminiProvider',
    label: 'Google Gemini',
    providerId: 'gemini',
    make: loopbackProvider.gemini,
    okBody: fixture('gemini/text.sse'),
    cutBody: fixture('gemini/cut.sse'),
    model: 'gemini-2.5-flash',
  },
];

// Providers echo the key back in 401 bodies; the adapters must scrub it.
const echoedKeyBody = JSON.stringify({
  error: {
    message: `Incorrect API key provided: ${CANARY_KEY}. You can find your API key at https://example.invalid.`,
    code: 'invalid_api_key',
  },
});

describe.each(adapters)('$name error table', (adapter) => {
  async function run(responders: Responder[], http: ProviderHttpOptions = {}, signal?: AbortSignal) {
    server = await startLoopbackServer(...responders);
    const result = await collect(adapter.make(server.url, http), plainRequest(adapter.model), signal);
    expectNoKey(result);
    return result;
  }

  it.each([401, 403])('HTTP %i: key rejected, says how to set a new key, scrubs the echoed key', async (status) => {
    const { error, events } = await run([httpError(status, echoedKeyBody)]);
    expect(error?.kind).toBe('auth');
    expect(error?.status).toBe(status);
    expect(error?.message).toBe(
      `key rejected by ${adapter.label} (HTTP ${status}). Set a new key with \`promptforge keys set ${adapter.providerId}\`. ` +
        'Provider said: {"error":{"message":"Incorrect API key provided: [redacted]. You can find your API key at https://example.invalid.","code":"invalid_api_key"}}',
    );
    // The request event is yielded before the failure, for the transcript.
    expect(events.map((e) => e.type)).toEqual(['request']);
    expect(server?.requests).toHaveLength(1);
  });

  it('HTTP 429 with Retry-After in seconds: waits that long, then succeeds', async () => {
    const { waits, sleep } = fakeSleep();
    const { error, events } = await run(
      [httpError(429, '{"error":"slow down"}', { 'retry-after': '2' }), sse(adapter.okBody)],
      { retry: { sleep } },
    );
    expect(error).toBeUndefined();
    expect(waits).toEqual([2000]);
    expect(server?.requests).toHaveLength(2);
    expect(events.at(-1)?.type).toBe('finish');
  });

  it('HTTP 429 with Retry-After as an HTTP date: waits until then', async () => {
    const { waits, sleep } = fakeSleep();
    const date = new Date(Date.now() + 5_000).toUTCString();
    const { error } = await run([httpError(429, '{}', { 'retry-after': date }), sse(adapter.okBody)], {
      retry: { sleep },
    });
    expect(error).toBeUndefined();
    expect(waits).toHaveLength(1);
    // HTTP dates have one-second resolution.
    expect(waits[0]).toBeGreaterThan(3_000);
    expect(waits[0]).toBeLessThanOrEqual(5_000);
  });

  it('HTTP 429 without Retry-After: bounded exponential backoff with jitter, then a clear error', async () => {
    const { waits, sleep } = fakeSleep();
    const { error } = await run([httpError(429, '{"error":{"message":"Rate limit reached"}}')], {
      retry: { sleep, random: () => 0.5, baseDelayMs: 100, maxDelayMs: 300, maxRetries: 3 },
    });
    // step = min(300, 100 * 2^n); wait = step/2 + random * step/2
    expect(waits).toEqual([75, 150, 225]);
    expect(server?.requests).toHaveLength(4);
    expect(error?.kind).toBe('rate-limit');
    expect(error?.status).toBe(429);
    expect(error?.message).toBe(
      `${adapter.label} is rate limiting requests (HTTP 429) after 3 retries. Wait a moment and run again, or check your plan's limits. Provider said: {"error":{"message":"Rate limit reached"}}`,
    );
  });

  it('HTTP 429 asking for a longer wait than the cap fails at once and says so', async () => {
    const { waits, sleep } = fakeSleep();
    const { error } = await run([httpError(429, '', { 'retry-after': '3600' })], { retry: { sleep } });
    expect(waits).toEqual([]);
    expect(server?.requests).toHaveLength(1);
    expect(error?.kind).toBe('rate-limit');
    expect(error?.message).toContain('asks to wait 3600 s, longer than the 60 s PromptForge waits');
  });

  it('HTTP 5xx: retried, and success once the server recovers', async () => {
    const { waits, sleep } = fakeSleep();
    const { error } = await run([httpError(503, 'busy'), httpError(502, 'bad gateway'), sse(adapter.okBody)], {
      retry: { sleep, random: () => 0 },
    });
    expect(error).toBeUndefined();
    expect(waits).toEqual([250, 500]);
    expect(server?.requests).toHaveLength(3);
  });

  it('HTTP 5xx that persists: bounded retries, then an error with the status and body', async () => {
    const { waits, sleep } = fakeSleep();
    const { error } = await run([httpError(500, `{"error":"internal","echo":"${CANARY_KEY}"}`)], {
      retry: { sleep, maxRetries: 2 },
    });
    expect(waits).toHaveLength(2);
    expect(server?.requests).toHaveLength(3);
    expect(error?.kind).toBe('server');
    expect(error?.status).toBe(500);
    expect(error?.message).toBe(
      `${adapter.label} returned a server error (HTTP 500) after 2 retries. Try again later. Provider said: {"error":"internal","echo":"[redacted]"}`,
    );
  });

  it('HTTP 400: not retried, the provider message is included', async () => {
    const { waits, sleep } = fakeSleep();
    const { error } = await run([httpError(400, '{"error":{"message":"model not found"}}')], { retry: { sleep } });
    expect(waits).toEqual([]);
    expect(error?.kind).toBe('bad-request');
    expect(error?.status).toBe(400);
    expect(error?.message).toContain('rejected the request (HTTP 400)');
    expect(error?.message).toContain('model not found');
  });

  it('no answer within the timeout: a timeout error naming the URL', async () => {
    const { error } = await run([hang], { timeoutMs: 150 });
    expect(error?.kind).toBe('timeout');
    expect(error?.message).toContain(`${adapter.label} did not answer within 150 ms`);
    expect(error?.message).toContain(server!.url);
  });

  it('a stream that stalls mid-way: a timeout error', async () => {
    // Long enough for the headers to arrive within it on busy cores: the stall after them is tested.
    const { error, events } = await run([sse(adapter.cutBody, { end: 'hang' })], { timeoutMs: 2000 });
    expect(error?.kind).toBe('timeout');
    expect(error?.message).toContain('stopped sending within 2 s');
    expect(events.some((e) => e.type === 'text-delta')).toBe(true);
  });

  it('a stream whose socket is destroyed before the terminal event: a stream error, partial text kept', async () => {
    const { error, events } = await run([sse(adapter.cutBody, { end: 'destroy' })]);
    expect(error?.kind).toBe('stream');
    expect(error?.message).toContain(`the ${adapter.label} stream was cut off before it finished`);
    expect(events).toContainEqual({ type: 'text-delta', text: 'Partial' });
  });

  it('a stream that ends cleanly but without the terminal event: a stream error', async () => {
    const { error } = await run([sse(adapter.cutBody)]);
    expect(error?.kind).toBe('stream');
    expect(error?.message).toContain('cut off before it finished');
  });

  it('abort while streaming: an aborted error, promptly', async () => {
    const controller = new AbortController();
    server = await startLoopbackServer(sse(adapter.cutBody, { end: 'hang' }));
    const events: string[] = [];
    let caught: unknown;
    try {
      for await (const event of adapter.make(server.url, {}).chat(plainRequest(adapter.model), controller.signal)) {
        events.push(event.type);
        if (event.type === 'text-delta') controller.abort();
      }
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ name: 'ProviderError', kind: 'aborted' });
    expect((caught as Error).message).not.toContain(CANARY_KEY);
    expect(events).toContain('text-delta');
  });

  it('abort while the consumer holds the stream (body already received): an aborted error, no hang', async () => {
    const controller = new AbortController();
    server = await startLoopbackServer(sse(adapter.okBody, { chunkSize: 100_000 }));
    let caught: unknown;
    const seen: string[] = [];
    try {
      for await (const event of adapter.make(server.url, {}).chat(plainRequest(adapter.model), controller.signal)) {
        seen.push(event.type);
        if (event.type === 'text-delta') {
          controller.abort();
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ name: 'ProviderError', kind: 'aborted' });
    expect(seen).not.toContain('finish');
  });

  it('abort during a retry wait: an aborted error', async () => {
    const controller = new AbortController();
    const sleep = (_ms: number, signal: AbortSignal) =>
      new Promise<void>((_resolve, reject) => {
        signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
        controller.abort();
      });
    const { error } = await run([httpError(503, 'busy')], { retry: { sleep } }, controller.signal);
    expect(error?.kind).toBe('aborted');
    expect(server?.requests).toHaveLength(1);
  });

  it('an already-aborted signal sends nothing', async () => {
    const controller = new AbortController();
    controller.abort();
    const { error } = await run([sse(adapter.okBody)], {}, controller.signal);
    expect(error?.kind).toBe('aborted');
    expect(server?.requests).toHaveLength(0);
  });
});

describe('connection refused', () => {
  it('names the URL, and for Ollama asks whether the server is running', async () => {
    const port = await closedPort();
    const provider = createProvider({ providerId: 'ollama', baseUrl: `http://127.0.0.1:${port}/v1` });
    const result = await collect(provider, plainRequest('llama3.1'));
    expect(result.error?.kind).toBe('connection');
    expect(result.error?.message).toBe(
      `could not connect to Ollama at http://127.0.0.1:${port}/v1/chat/completions (ECONNREFUSED). Is the Ollama server running? Start it with \`ollama serve\`.`,
    );
  });

  it('for LM Studio gives its own hint', async () => {
    const port = await closedPort();
    const result = await collect(
      createProvider({ providerId: 'lmstudio', baseUrl: `http://127.0.0.1:${port}/v1` }),
      plainRequest('qwen'),
    );
    expect(result.error?.message).toContain(
      `could not connect to LM Studio at http://127.0.0.1:${port}/v1/chat/completions`,
    );
    expect(result.error?.message).toContain('Is the LM Studio server running?');
  });

  it('for a keyed provider names the URL and never the key', async () => {
    const port = await closedPort();
    const provider = createProvider({
      providerId: 'anthropic',
      baseUrl: `http://127.0.0.1:${port}`,
      apiKey: CANARY_KEY,
    });
    const result = await collect(provider, plainRequest('claude-sonnet-4-5'));
    expect(result.error?.kind).toBe('connection');
    expect(result.error?.message).toContain(`could not connect to Anthropic at http://127.0.0.1:${port}/v1/messages`);
    expectNoKey(result);
  });
});

describe('a 401 without any key configured', () => {
  it('says that the provider needs a key and none is set', async () => {
    server = await startLoopbackServer(httpError(401, '{"error":"missing key"}'));
    const result = await collect(
      createProvider({ providerId: 'openai', baseUrl: `${server.url}/v1` }),
      plainRequest('gpt-4o'),
    );
    expect(result.error?.kind).toBe('auth');
    expect(result.error?.message).toMatch(
      /^OpenAI requires a key and none is set \(HTTP 401\)\. Set a new key with `promptforge keys set openai`/,
    );
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
  });
});

describe('formatDuration', () => {
  it('says minutes when whole, else seconds, else milliseconds', () => {
    expect(formatDuration(30 * 60_000)).toBe('30 min');
    expect(formatDuration(90_000)).toBe('90 s');
    expect(formatDuration(1500)).toBe('2 s');
    expect(formatDuration(300)).toBe('300 ms');
  });
});
