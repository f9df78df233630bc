import { afterEach, describe, expect, it } from 'vitest';
import { GeminiProvider } from '../../../main/core/providers/gemini-provider.js';
import type { ModelEvent } from '../../../main/core/providers/model-provider.js';
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

function provider(url: string): GeminiProvider {
  return new GeminiProvider({ baseUrl: `${url}/v1beta`, apiKey: CANARY_KEY });
}

describe('GeminiProvider wire format', () => {
  it('posts to :streamGenerateContent?alt=sse with systemInstruction and no tools field when none are advertised', async () => {
    server = await startLoopbackServer(sse(fixture('gemini/text.sse')));
    const result = await collect(provider(server.url), plainRequest('gemini-2.5-flash'));

    expect(result.error).toBeUndefined();
    const received = server.requests[0]!;
    expect(received.url).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    const body = JSON.parse(received.body) as Record<string, unknown>;
    expect(body).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'Say hello.' }] }],
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
    });
    expect('tools' in body).toBe(false);
    expect('toolConfig' in body).toBe(false);
    expect(result.events).toEqual([
      { type: 'request', url: `${server.url}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`, body },
      { type: 'text-delta', text: 'Hello' },
      { type: 'text-delta', text: ', world' },
      { type: 'text-delta', text: '!' },
      // Thinking tokens count as output.
      {
        type: 'finish',
        finishReason: 'stop',
        providerFinishReason: 'STOP',
        usage: { inputTokens: 9, outputTokens: 24 },
      },
    ]);
  });

  it('sends the key in x-goog-api-key, never in the URL or an event', async () => {
    server = await startLoopbackServer(sse(fixture('gemini/text.sse')));
    const result = await collect(provider(server.url), plainRequest('gemini-2.5-flash'));
    const received = server.requests[0]!;
    expect(received.headers['x-goog-api-key']).toBe(CANARY_KEY);
    expect(received.url).not.toContain(CANARY_KEY);
    expect(received.url).not.toContain('key=');
    const requestEvent = result.events[0]!;
    expect(requestEvent.type === 'request' && JSON.stringify(requestEvent.body)).toBe(received.body);
    expectNoKey(result);
  });

  it('advertises functionDeclarations and yields function calls with stable ids and thought signatures', async () => {
    server = await startLoopbackServer(sse(fixture('gemini/function-calls.sse'), { chunkSize: 17 }));
    const gemini = provider(server.url);
    const request = {
      ...plainRequest('gemini-2.5-flash'),
      tools: [WEATHER_TOOL, ECHO_TOOL],
      temperature: 0,
      maxTokens: 256,
    };
    const result = await collect(gemini, request);

    const body = JSON.parse(server.requests[0]!.body) as Record<string, unknown>;
    expect(body.tools).toEqual([
      {
        functionDeclarations: [
          {
            name: 'get_weather',
            description: 'Current weather for a city',
            parametersJsonSchema: {
              type: 'object',
              properties: { city: { type: 'string' } },
              required: ['city'],
              additionalProperties: false,
            },
          },
          {
            name: 'echo',
            description: 'Returns its text',
            parametersJsonSchema: { type: 'object', properties: { text: { type: 'string' } } },
          },
        ],
      },
    ]);
    expect(body.generationConfig).toEqual({ temperature: 0, maxOutputTokens: 256 });
    expect(result.events.slice(1)).toEqual([
      { type: 'text-delta', text: 'Checking.' },
      {
        type: 'tool-call',
        id: 'gemini-call-1',
        name: 'get_weather',
        rawArguments: '{"city":"Paris"}',
        providerMetadata: { thoughtSignature: 'c2lnLWNhbGwtMQ==' },
      },
      { type: 'tool-call', id: 'gemini-call-2', name: 'echo', rawArguments: '{"text":"hi"}' },
      {
        type: 'finish',
        finishReason: 'tool_calls',
        providerFinishReason: 'STOP',
        usage: { inputTokens: 120, outputTokens: 30 },
      },
    ]);

    // A second round on the same adapter never reissues an id.
    const again = await collect(gemini, request);
    const ids = again.events
      .filter((e): e is Extract<ModelEvent, { type: 'tool-call' }> => e.type === 'tool-call')
      .map((e) => e.id);
    expect(ids).toEqual(['gemini-call-3', 'gemini-call-4']);
  });

  it('replays functionCall parts (role model, with thoughtSignature) and merged functionResponse parts', async () => {
    server = await startLoopbackServer(sse(fixture('gemini/text.sse')));
    const messages = replayMessages();
    const assistant = messages[2];
    if (assistant?.role === 'assistant' && assistant.toolCalls?.[0])
      assistant.toolCalls[0].providerMetadata = { thoughtSignature: 'c2ln' };
    await collect(provider(server.url), { model: 'gemini-2.5-flash', messages, tools: [WEATHER_TOOL] });
    const body = JSON.parse(server.requests[0]!.body) as Record<string, unknown>;
    expect(body.systemInstruction).toEqual({ parts: [{ text: 'You are a weather bot.' }] });
    expect(body.contents).toEqual([
      { role: 'user', parts: [{ text: 'Weather in Paris? And echo hi.' }] },
      {
        role: 'model',
        parts: [
          { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'c2ln' },
          { functionCall: { name: 'echo', args: { text: 'hi' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'get_weather', response: { output: '18°C, cloudy' } } },
          { functionResponse: { name: 'echo', response: { output: 'hi' } } },
        ],
      },
    ]);
  });

  it.each([
    ['safety', 'SAFETY'],
    ['recitation', 'RECITATION'],
  ])('surfaces finishReason %s as content_filter', async (name, reason) => {
    server = await startLoopbackServer(sse(fixture(`gemini/${name}.sse`)));
    const result = await collect(provider(server.url), plainRequest('gemini-2.5-flash'));
    expect(result.error).toBeUndefined();
    expect(result.events.at(-1)).toMatchObject({
      type: 'finish',
      finishReason: 'content_filter',
      providerFinishReason: reason,
    });
    expectNoKey(result);
  });

  it('surfaces a blocked prompt (promptFeedback.blockReason) as content_filter', async () => {
    server = await startLoopbackServer(sse(fixture('gemini/prompt-blocked.sse')));
    const result = await collect(provider(server.url), plainRequest('gemini-2.5-flash'));
    expect(result.events.at(-1)).toEqual({
      type: 'finish',
      finishReason: 'content_filter',
      providerFinishReason: 'PROMPT_BLOCKED:SAFETY',
      usage: { inputTokens: 11, outputTokens: 0 },
    });
    expectNoKey(result);
  });
});
