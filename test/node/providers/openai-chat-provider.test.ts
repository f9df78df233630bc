import { afterEach, describe, expect, it } from 'vitest';
import { OpenAIChatProvider } from '../../../main/core/providers/openai-chat-provider.js';
import {
  CANARY_KEY,
  type LoopbackServer,
  collect,
  expectNoKey,
  fixture,
  sse,
  startLoopbackServer,
} from './loopback-server.js';
import { ECHO_TOOL, WEATHER_TOOL, plainRequest, replayMessages } from './requests.js';

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function provider(url: string, providerId = 'openai'): OpenAIChatProvider {
  return new OpenAIChatProvider({ baseUrl: `${url}/v1`, apiKey: CANARY_KEY, providerId, label: 'OpenAI' });
}

describe('OpenAIChatProvider wire format', () => {
  it('sends no tools or tool_choice field when no tools are advertised, and streams text', async () => {
    server = await startLoopbackServer(sse(fixture('openai/text.sse')));
    const result = await collect(provider(server.url), plainRequest('gpt-4o-mini'));

    expect(result.error).toBeUndefined();
    const received = server.requests[0]!;
    expect(received.method).toBe('POST');
    expect(received.url).toBe('/v1/chat/completions');
    const body = JSON.parse(received.body) as Record<string, unknown>;
    expect(body).toEqual({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Say hello.' },
      ],
      stream: true,
      stream_options: { include_usage: true },
    });
    expect('tools' in body).toBe(false);
    expect('tool_choice' in body).toBe(false);

    expect(result.events).toEqual([
      { type: 'request', url: `${server.url}/v1/chat/completions`, body },
      { type: 'text-delta', text: 'Hello' },
      { type: 'text-delta', text: ', world' },
      {
        type: 'finish',
        finishReason: 'stop',
        providerFinishReason: 'stop',
        usage: { inputTokens: 12, outputTokens: 3 },
      },
    ]);
  });

  it('sends the key only in the Authorization header, never in the request event', async () => {
    server = await startLoopbackServer(sse(fixture('openai/text.sse')));
    const result = await collect(provider(server.url), plainRequest('gpt-4o-mini'));
    const received = server.requests[0]!;
    expect(received.headers.authorization).toBe(`Bearer ${CANARY_KEY}`);
    expect(received.body).not.toContain(CANARY_KEY);
    const requestEvent = result.events[0]!;
    expect(requestEvent.type).toBe('request');
    // The event carries exactly the body that went over the wire.
    expect(requestEvent.type === 'request' && JSON.stringify(requestEvent.body)).toBe(received.body);
    expectNoKey(result);
  });

  it('omits the Authorization header when no key is configured (local servers)', async () => {
    server = await startLoopbackServer(sse(fixture('openai/text.sse')));
    const local = new OpenAIChatProvider({ baseUrl: `${server.url}/v1`, providerId: 'ollama' });
    await collect(local, plainRequest('llama3.1'));
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
  });

  it('advertises tool definitions and assembles tool calls split across chunks', async () => {
    server = await startLoopbackServer(sse(fixture('openai/tool-calls.sse'), { chunkSize: 11 }));
    const request = { ...plainRequest('gpt-4o'), tools: [WEATHER_TOOL, ECHO_TOOL], temperature: 0.2, maxTokens: 300 };
    const result = await collect(provider(server.url), request);

    const body = JSON.parse(server.requests[0]!.body) as Record<string, unknown>;
    expect(body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'Current weather for a city',
          parameters: {
            type: 'object',
            properties: { city: { type: 'string' } },
            required: ['city'],
            additionalProperties: false,
          },
        },
      },
      {
        type: 'function',
        function: {
          name: 'echo',
          description: 'Returns its text',
          parameters: { type: 'object', properties: { text: { type: 'string' } } },
        },
      },
    ]);
    expect('tool_choice' in body).toBe(false);
    expect(body.temperature).toBe(0.2);
    // OpenAI's own API wants max_completion_tokens.
    expect(body.max_completion_tokens).toBe(300);
    expect('max_tokens' in body).toBe(false);

    expect(result.events.slice(1)).toEqual([
      { type: 'tool-call', id: 'call_weather_1', name: 'get_weather', rawArguments: '{"city": "Paris"}' },
      { type: 'tool-call', id: 'call_echo_2', name: 'echo', rawArguments: '{"text": "hi"}' },
      {
        type: 'finish',
        finishReason: 'tool_calls',
        providerFinishReason: 'tool_calls',
        usage: { inputTokens: 88, outputTokens: 41 },
      },
    ]);
  });

  it('uses max_tokens for OpenAI-compatible servers', async () => {
    server = await startLoopbackServer(sse(fixture('openai/text.sse')));
    await collect(provider(server.url, 'groq'), { ...plainRequest('llama-3.3-70b'), maxTokens: 50 });
    const body = JSON.parse(server.requests[0]!.body) as Record<string, unknown>;
    expect(body.max_tokens).toBe(50);
    expect('max_completion_tokens' in body).toBe(false);
  });

  it('replays assistant tool calls and tool results in the native tool_calls / tool shape', async () => {
    server = await startLoopbackServer(sse(fixture('openai/text.sse')));
    await collect(provider(server.url), { model: 'gpt-4o', messages: replayMessages(), tools: [WEATHER_TOOL] });
    const body = JSON.parse(server.requests[0]!.body) as Record<string, unknown>;
    expect(body.messages).toEqual([
      { role: 'system', content: 'You are a weather bot.' },
      { role: 'user', content: 'Weather in Paris? And echo hi.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call-1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: 'call-2', type: 'function', function: { name: 'echo', arguments: '{"text":"hi"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call-1', content: '18°C, cloudy' },
      { role: 'tool', tool_call_id: 'call-2', content: 'hi' },
    ]);
  });

  it('passes providerOptions through at the top level', async () => {
    server = await startLoopbackServer(sse(fixture('openai/text.sse')));
    await collect(provider(server.url), { ...plainRequest('gpt-4o'), providerOptions: { seed: 7, top_p: 0.5 } });
    const body = JSON.parse(server.requests[0]!.body) as Record<string, unknown>;
    expect(body.seed).toBe(7);
    expect(body.top_p).toBe(0.5);
  });

  it('passes tool-call arguments that are not valid JSON through raw', async () => {
    server = await startLoopbackServer(sse(fixture('openai/invalid-args.sse')));
    const result = await collect(provider(server.url), { ...plainRequest('gpt-4o-mini'), tools: [ECHO_TOOL] });
    expect(result.events).toContainEqual({
      type: 'tool-call',
      id: 'call_bad_1',
      name: 'echo',
      rawArguments: '{"text": "unterminated, oops',
    });
    expect(result.events.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool_calls' });
    expectNoKey(result);
  });

  it('surfaces content_filter as the finish reason', async () => {
    server = await startLoopbackServer(sse(fixture('openai/content-filter.sse')));
    const result = await collect(provider(server.url), plainRequest('gpt-4o-mini'));
    expect(result.events.at(-1)).toEqual({
      type: 'finish',
      finishReason: 'content_filter',
      providerFinishReason: 'content_filter',
      usage: { inputTokens: 30, outputTokens: 2 },
    });
    expectNoKey(result);
  });

  it('surfaces a refusal: its text as content and refusal as the finish reason', async () => {
    server = await startLoopbackServer(sse(fixture('openai/refusal.sse')));
    const result = await collect(provider(server.url), plainRequest('gpt-4o'));
    expect(result.events.slice(1)).toEqual([
      { type: 'text-delta', text: "I'm sorry, " },
      { type: 'text-delta', text: "I can't help with that." },
      {
        type: 'finish',
        finishReason: 'refusal',
        providerFinishReason: 'stop',
        usage: { inputTokens: 25, outputTokens: 10 },
      },
    ]);
    expectNoKey(result);
  });

  it('keeps malformed SSE lines as raw events and carries on', async () => {
    server = await startLoopbackServer(sse(fixture('openai/malformed.sse')));
    const result = await collect(provider(server.url, 'ollama'), plainRequest('llama3.1'));
    expect(result.error).toBeUndefined();
    expect(result.events.slice(1)).toEqual([
      { type: 'text-delta', text: 'Hi' },
      { type: 'raw', note: 'malformed SSE', data: 'this line is not SSE at all' },
      {
        type: 'raw',
        note: 'malformed SSE',
        data: '{"id":"chatcmpl-F6","choices":[{"index":0,"delta":{"content":"trunc',
      },
      { type: 'text-delta', text: ' there' },
      {
        type: 'finish',
        finishReason: 'stop',
        providerFinishReason: 'stop',
        usage: { inputTokens: 0, outputTokens: 0 },
      },
    ]);
    expectNoKey(result);
  });

  it('trims whitespace around the key (a piped key often ends in a newline)', async () => {
    server = await startLoopbackServer(sse(fixture('openai/text.sse')));
    const padded = new OpenAIChatProvider({
      baseUrl: `${server.url}/v1`,
      apiKey: `  ${CANARY_KEY}\n`,
      providerId: 'openai',
    });
    const result = await collect(padded, plainRequest('gpt-4o-mini'));
    expect(result.error).toBeUndefined();
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${CANARY_KEY}`);
  });

  it('does not count the time the consumer holds the stream against the timeout', async () => {
    const body = fixture('openai/text.sse');
    const half = body.indexOf('data:', 400);
    // The rest of the stream is sent only once the consumer has held it for longer than the
    // timeout: a timeout that counted the hold would have fired by then. The margin left to the
    // provider itself (the rest's trip over loopback) is the whole timeout, so a busy machine
    // does not fail it.
    const TIMEOUT_MS = 1000;
    let released!: () => void;
    const held = new Promise<void>((resolve) => (released = resolve));
    server = await startLoopbackServer(async (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(body.slice(0, half));
      await held;
      response.end(body.slice(half));
    });
    const slowConsumer = new OpenAIChatProvider({
      baseUrl: `${server.url}/v1`,
      providerId: 'openai',
      timeoutMs: TIMEOUT_MS,
    });
    const types: string[] = [];
    for await (const event of slowConsumer.chat(plainRequest('gpt-4o-mini'), new AbortController().signal)) {
      types.push(event.type);
      if (event.type === 'text-delta' && types.filter((t) => t === 'text-delta').length === 1) {
        await new Promise((resolve) => setTimeout(resolve, TIMEOUT_MS * 1.5));
        released();
      }
    }
    expect(types).toEqual(['request', 'text-delta', 'text-delta', 'finish']);
  });
});
