import type { ServerResponse } from 'node:http';
import { type TestContext, beforeAll, describe, expect, it } from 'vitest';
import { createProvider } from '../../../main/core/providers/create-provider.js';
import type { ModelEvent, ModelProvider } from '../../../main/core/providers/model-provider.js';
import { DEFAULT_MAX_ROUND_MS, type ProviderHttpOptions } from '../../../main/core/providers/provider-http.js';
import {
  type LoopbackServer,
  type Responder,
  collect,
  expectNoKey,
  fixture,
  loopbackProvider,
  hang,
  httpError,
  sse,
  startLoopbackServer,
} from '../providers/loopback-server.js';
import { plainRequest } from '../providers/requests.js';

/**
 * A model endpoint that keeps a round open. The red team kept a round open forever with one SSE
 * comment (`: ping`) every 2 s: any byte restarted the idle timer. Now only an event that
 * carries content restarts it, and a round has an overall cap (`maxRoundMs`) that even a stream
 * of real content cannot pass. The servers below never stop on their own: each test ends only
 * because the host gives up, so a regression fails by the test timing out. The limits are small
 * values passed in; no test measures or sleeps for a time. The tests run concurrently (each
 * waits mostly for its limit), each with its own server, closed when it finishes.
 */

async function start(context: TestContext, ...responders: Responder[]): Promise<LoopbackServer> {
  const server = await startLoopbackServer(...responders);
  context.onTestFinished(() => server.close());
  return server;
}

// The first request of a process loads and compiles fetch; on busy cores that alone can take
// longer than an idle timeout, and the tests below are about what happens after the headers.
beforeAll(async () => {
  const server = await startLoopbackServer(sse(fixture('openai/text.sse')));
  try {
    await collect(adapters[0]!.make(server.url, {}), plainRequest('warm-up'));
  } finally {
    await server.close();
  }
});

/** The pause between two writes of a server that never ends (the attack's cadence, not a wait). */
const CADENCE_MS = 25;

/**
 * Answers 200 with an SSE stream: `head` once, then `beat(n)` every {@link CADENCE_MS} until the
 * client goes away.
 */
function forever(head: string, beat: (n: number) => string): Responder {
  return (_request, response: ServerResponse) => {
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    response.write(head);
    let n = 0;
    const timer = setInterval(() => {
      if (response.destroyed || response.writableEnded) return clearInterval(timer);
      response.write(beat(n));
      n += 1;
    }, CADENCE_MS);
    response.on('close', () => clearInterval(timer));
  };
}

interface AdapterCase {
  name: string;
  label: string;
  make(url: string, http: ProviderHttpOptions): ModelProvider;
  /** The stream up to some text, without the terminal event. */
  partial: string;
  /** One content-bearing event with the text `text`. */
  content(text: string): string;
  /** Events that look alive but carry nothing. */
  empties: string[];
  model: string;
}

const adapters: AdapterCase[] = [
  {
    name: 'OpenAI',
    label: 'OpenAI',
    make: loopbackProvider.openai,
    partial: fixture('openai/cut.sse'),
    content: (text) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: text } }] })}\n\n`,
    empties: [
      'data: {"choices":[{"index":0,"delta":{}}]}\n\n',
      'data: {"choices":[{"index":0,"delta":{"content":""}}]}\n\n',
      'data: {"choices":[]}\n\n',
      'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":""}}]}}]}\n\n',
    ],
    model: 'gpt-4o-mini',
  },
  {
    name: 'Anthropic',
    label: 'Anthropic',
    make: loopbackProvider.anthropic,
    partial: fixture('anthropic/cut.sse'),
    content: (text) =>
      `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } })}\n\n`,
    empties: [
      'event: ping\ndata: {"type": "ping"}\n\n',
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":""}}\n\n',
      'event: future_event\ndata: {"type":"future_event"}\n\n',
    ],
    model: 'claude-sonnet-4-5',
  },
  {
    name: 'Gemini',
    label: 'Google Gemini',
    make: loopbackProvider.gemini,
    partial: fixture('gemini/cut.sse'),
    content: (text) =>
      `data: ${JSON.stringify({ candidates: [{ content: { parts: [{ text }], role: 'model' }, index: 0 }] })}\n\n`,
    empties: [
      'data: {"usageMetadata":{"promptTokenCount":3}}\n\n',
      'data: {"candidates":[{"content":{"parts":[{"text":""}],"role":"model"},"index":0}]}\n\n',
      'data: {"candidates":[{"content":{"parts":[{"thought":true,"text":""}]},"finishReason":"FINISH_REASON_UNSPECIFIED"}]}\n\n',
    ],
    model: 'gemini-2.5-flash',
  },
];

/** Keep-alives every adapter must ignore: SSE comments, empty events, blank lines, padding. */
const KEEP_ALIVES: [string, string][] = [
  ['an SSE comment (": ping")', ': ping\n\n'],
  ['an empty data line', 'data:\n\n'],
  ['a data line of spaces', 'data:    \n\n'],
  ['bare newlines', '\n\n\n'],
  ['CRLFs', '\r\n\r\n'],
  ['a line of spaces and tabs', '  \t  \n'],
  ['a lone "data" field name', 'data\n\n'],
];

/** The text a round yielded. */
function textOf(events: readonly ModelEvent[]): string {
  return events.map((event) => (event.type === 'text-delta' ? event.text : '')).join('');
}

/**
 * The idle timeout of these tests: long enough that the response headers arrive within it on
 * busy cores (the headers are not what is tested), short enough to keep the file quick.
 */
const IDLE = { timeoutMs: 2000, retry: { maxRetries: 0 } };

describe.concurrent.each(adapters)('$name adapter: a stream kept open without content', (adapter) => {
  it.for(KEEP_ALIVES)(
    'after some text, %s forever: the idle timeout still fires, the text stays yielded',
    async ([_name, beat], context) => {
      const { expect } = context;
      const server = await start(
        context,
        forever(adapter.partial, () => beat),
      );
      const result = await collect(adapter.make(server.url, IDLE), plainRequest(adapter.model));
      expect(result.error?.kind).toBe('timeout');
      expect(result.error?.message).toBe(
        `${adapter.label} sent no content within 2 s, only keep-alives (SSE comments, pings, empty events) or lines it could not read, which do not count as activity (request to ${result.events[0]?.type === 'request' ? result.events[0].url : ''}). Try again, or raise the provider timeout.`,
      );
      expect(textOf(result.events)).toMatch(/^Partial/);
      // Keep-alives are not malformed lines: they leave no raw events behind.
      expect(result.events.filter((event) => event.type === 'raw')).toEqual([]);
      expectNoKey(result);
    },
  );

  it('": ping" forever from the first byte (the red team\'s stream): a timeout, not a round that never ends', async (context) => {
    const { expect } = context;
    const server = await start(
      context,
      forever('', () => ': ping\n\n'),
    );
    const result = await collect(adapter.make(server.url, IDLE), plainRequest(adapter.model));
    expect(result.error?.kind).toBe('timeout');
    expect(result.error?.message).toContain(`${adapter.label} sent no content within 2 s, only keep-alives`);
    expect(result.events.map((event) => event.type)).toEqual(['request']);
  });

  it.for(adapter.empties.map((empty) => [empty.trim(), empty] as const))(
    'well-formed events that carry nothing, forever: %s',
    async ([_name, empty], context) => {
      const { expect } = context;
      const server = await start(
        context,
        forever(adapter.partial, () => empty),
      );
      const result = await collect(adapter.make(server.url, IDLE), plainRequest(adapter.model));
      expect(result.error?.kind).toBe('timeout');
      expect(result.error?.message).toContain('sent no content within 2 s, only keep-alives');
    },
  );

  it('garbage lines forever are reported as raw events, and do not keep the stream alive either', async (context) => {
    const { expect } = context;
    const server = await start(
      context,
      forever(adapter.partial, (n) => `garbage ${n}\n`),
    );
    const result = await collect(adapter.make(server.url, IDLE), plainRequest(adapter.model));
    expect(result.error?.kind).toBe('timeout');
    expect(result.error?.message).toContain('or lines it could not read, which do not count as activity');
    expect(result.events.some((event) => event.type === 'raw')).toBe(true);
  });

  it('keep-alives in between the events of a normal answer do not disturb it', async (context) => {
    const { expect } = context;
    const server = await start(context, async (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const body = fixture(`${adapter.name.toLowerCase()}/text.sse`);
      for (const event of body.split('\n\n')) {
        response.write(`: ping\n\n\n\r\ndata:\n\n  \n${event}\n\n`);
        await new Promise((resolve) => setImmediate(resolve));
      }
      response.end();
    });
    const result = await collect(adapter.make(server.url, IDLE), plainRequest(adapter.model));
    expect(result.error).toBeUndefined();
    expect(result.events.at(-1)?.type).toBe('finish');
    expect(result.events.filter((event) => event.type === 'raw')).toEqual([]);
  });
});

describe.concurrent.each(adapters)('$name adapter: the round cap', (adapter) => {
  it('content trickling in forever (each event well within the idle timeout): stopped at maxRoundMs', async (context) => {
    const { expect } = context;
    const server = await start(
      context,
      forever(adapter.partial, (n) => adapter.content(` ${n}`)),
    );
    // The idle timeout is the default (10 minutes): only the round cap can end this round.
    const result = await collect(
      adapter.make(server.url, { maxRoundMs: 300, retry: { maxRetries: 0 } }),
      plainRequest(adapter.model),
    );
    expect(result.error?.kind).toBe('timeout');
    const url = result.events[0]?.type === 'request' ? result.events[0].url : '';
    expect(result.error?.message).toBe(
      `the round with ${adapter.label} was stopped after 300 ms, the most one model round may take (request to ${url}); the round's output is incomplete. If the model really needs longer, raise the provider option \`maxRoundMs\` (default 30 min).`,
    );
    expectNoKey(result);
  });

  it('a server that never answers the request: stopped at maxRoundMs, not only by the idle timeout', async (context) => {
    const { expect } = context;
    const server = await start(context, hang);
    const result = await collect(adapter.make(server.url, { maxRoundMs: 200 }), plainRequest(adapter.model));
    expect(result.error?.kind).toBe('timeout');
    expect(result.error?.message).toContain('was stopped after 200 ms, the most one model round may take');
  });

  it('retries that would wait a minute each: the cap ends the wait', async (context) => {
    const { expect } = context;
    const server = await start(context, httpError(503, 'busy', { 'retry-after': '59' }));
    const result = await collect(
      adapter.make(server.url, { maxRoundMs: 1000, retry: { maxRetries: 5 } }),
      plainRequest(adapter.model),
    );
    expect(result.error?.kind).toBe('timeout');
    expect(result.error?.message).toContain('was stopped after 1 s');
    // No second attempt: the cap ended the first wait.
    expect(server.requests.length).toBeLessThanOrEqual(1);
  });
});

describe('the round cap where runs get their adapters', () => {
  it('createProvider passes maxRoundMs through', async (context) => {
    const adapter = adapters[0]!;
    const server = await start(
      context,
      forever(adapter.partial, (n) => adapter.content(` ${n}`)),
    );
    const provider = createProvider({ providerId: 'openai-compatible', baseUrl: `${server.url}/v1`, maxRoundMs: 250 });
    const result = await collect(provider, plainRequest('m'));
    expect(result.error?.message).toContain('was stopped after 250 ms');
  });

  it('the default cap is 30 minutes, longer than the default idle timeout', () => {
    expect(DEFAULT_MAX_ROUND_MS).toBe(30 * 60_000);
  });
});
