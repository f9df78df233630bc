import { afterEach, describe, expect, it } from 'vitest';
import { AnthropicProvider } from '../../../main/core/providers/anthropic-provider.js';
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

function provider(url: string): AnthropicProvider {
  return new AnthropicProvider({ baseUrl: url, apiKey: CANARY_KEY });
}

describe('AnthropicProvider wire format', () => {
  it('sends system at the top level, a default max_tokens and no tools field when none are advertised', async () => {
    server = await startLoopbackServer(sse(fixture('anthropic/text.sse')));
    const result = await collect(provider(server.url), plainRequest('claude-sonnet-4-5'));

    expect(result.error).toBeUndefined();
    const received = server.requests[0]!;
    expect(received.url).toBe('/v1/messages');
    const body = JSON.parse(received.body) as Record<string, unknown>;
    expect(body).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 4096,
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'Say hello.' }],
      stream: true,
    });
    expect('tools' in body).toBe(false);
    expect('tool_choice' in body).toBe(false);
    expect(result.events).toEqual([
      { type: 'request', url: `${server.url}/v1/messages`, body },
      { type: 'text-delta', text: 'Hello' },
      { type: 'text-delta', text: ', world' },
      {
        type: 'finish',
        finishReason: 'stop',
        providerFinishReason: 'end_turn',
        usage: { inputTokens: 25, outputTokens: 15 },
      },
    ]);
  });

  it('sends x-api-key and anthropic-version headers, and the key never reaches an event', async () => {
    server = await startLoopbackServer(sse(fixture('anthropic/text.sse')));
    const result = await collect(provider(server.url), plainRequest('claude-sonnet-4-5'));
    const received = server.requests[0]!;
    expect(received.headers['x-api-key']).toBe(CANARY_KEY);
    expect(received.headers['anthropic-version']).toBe('2023-06-01');
    expect(received.headers.authorization).toBeUndefined();
    const requestEvent = result.events[0]!;
    expect(requestEvent.type === 'request' && JSON.stringify(requestEvent.body)).toBe(received.body);
    expectNoKey(result);
  });

  it('advertises tools as input_schema and assembles input_json_delta chunks into tool calls', async () => {
    server = await startLoopbackServer(sse(fixture('anthropic/tool-use.sse'), { chunkSize: 13 }));
    const result = await collect(provider(server.url), {
      ...plainRequest('claude-sonnet-4-5'),
      tools: [WEATHER_TOOL, ECHO_TOOL],
      maxTokens: 1000,
    });

    const body = JSON.parse(server.requests[0]!.body) as Record<string, unknown>;
    expect(body.max_tokens).toBe(1000);
    expect(body.tools).toEqual([
      {
        name: 'get_weather',
        description: 'Current weather for a city',
        input_schema: {
          type: 'object',
          properties: { city: { type: 'string' } },
          required: ['city'],
          additionalProperties: false,
        },
      },
      {
        name: 'echo',
        description: 'Returns its text',
        input_schema: { type: 'object', properties: { text: { type: 'string' } } },
      },
    ]);
    expect('tool_choice' in body).toBe(false);
    expect(result.events.slice(1)).toEqual([
      { type: 'text-delta', text: 'Let me check.' },
      { type: 'tool-call', id: 'toolu_01Weather', name: 'get_weather', rawArguments: '{"city": "Paris"}' },
      { type: 'tool-call', id: 'toolu_02Echo', name: 'echo', rawArguments: '{"text": "hi"}' },
      // A tool without parameters streams no input_json_delta: its input is the start block's {}.
      { type: 'tool-call', id: 'toolu_03NoArgs', name: 'now', rawArguments: '{}' },
      {
        type: 'finish',
        finishReason: 'tool_calls',
        providerFinishReason: 'tool_use',
        usage: { inputTokens: 472, outputTokens: 89 },
      },
    ]);
  });

  it('replays tool_use blocks and merges consecutive tool results into one user message', async () => {
    server = await startLoopbackServer(sse(fixture('anthropic/text.sse')));
    await collect(provider(server.url), {
      model: 'claude-sonnet-4-5',
      messages: replayMessages(),
      tools: [WEATHER_TOOL],
    });
    const body = JSON.parse(server.requests[0]!.body) as Record<string, unknown>;
    expect(body.system).toBe('You are a weather bot.');
    expect(body.messages).toEqual([
      { role: 'user', content: 'Weather in Paris? And echo hi.' },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'call-1', name: 'get_weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'call-2', name: 'echo', input: { text: 'hi' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call-1', content: '18°C, cloudy' },
          { type: 'tool_result', tool_use_id: 'call-2', content: 'hi' },
        ],
      },
    ]);
  });

  it('passes tool-call arguments that are not valid JSON through raw', async () => {
    server = await startLoopbackServer(sse(fixture('anthropic/invalid-args.sse')));
    const result = await collect(provider(server.url), { ...plainRequest('claude-haiku-4-5'), tools: [ECHO_TOOL] });
    expect(result.events).toContainEqual({
      type: 'tool-call',
      id: 'toolu_01Bad',
      name: 'echo',
      rawArguments: '{"text": "unterminated',
    });
    expectNoKey(result);
  });

  it('surfaces a refusal stop reason', async () => {
    server = await startLoopbackServer(sse(fixture('anthropic/refusal.sse')));
    const result = await collect(provider(server.url), plainRequest('claude-sonnet-4-5'));
    expect(result.events.at(-1)).toEqual({
      type: 'finish',
      finishReason: 'refusal',
      providerFinishReason: 'refusal',
      usage: { inputTokens: 40, outputTokens: 3 },
    });
    expectNoKey(result);
  });

  it('turns a mid-stream error event into a ProviderError', async () => {
    server = await startLoopbackServer(sse(fixture('anthropic/overloaded.sse')));
    const result = await collect(provider(server.url), plainRequest('claude-sonnet-4-5'));
    expect(result.error?.kind).toBe('server');
    expect(result.error?.message).toContain('overloaded_error');
    expect(result.error?.message).toContain('Overloaded');
    expectNoKey(result);
  });
});
