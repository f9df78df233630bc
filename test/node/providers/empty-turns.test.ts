import type { MessageParam } from '@anthropic-ai/sdk/resources/messages/messages';
import type { Content } from '@google/genai';
import { afterEach, describe, expect, it } from 'vitest';
import { AnthropicProvider } from '../../../main/core/providers/anthropic-provider.js';
import { GeminiProvider } from '../../../main/core/providers/gemini-provider.js';
import type { ChatMessage, ModelProvider } from '../../../main/core/providers/model-provider.js';
import { CANARY_KEY, type LoopbackServer, collect, fixture, sse, startLoopbackServer } from './loopback-server.js';
import { WEATHER_TOOL } from './requests.js';

/**
 * A round that returned no text and no call (all of maxOutputTokens went to thinking, or the model
 * stopped at once) leaves an empty assistant turn in the history. Gemini answers a part with empty
 * text `400 INVALID_ARGUMENT`, and Anthropic refuses empty text blocks and an empty assistant turn;
 * both want user and model turns to alternate. The expected bodies are typed with the official
 * SDKs' own request types (`@google/genai`'s Content, `@anthropic-ai/sdk`'s MessageParam), so the
 * wire shape is checked against them, not against this code's idea of it.
 */

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The request body `provider` posts for `messages`. */
async function sentBody(
  make: (url: string) => ModelProvider,
  reply: string,
  messages: ChatMessage[],
): Promise<Record<string, unknown>> {
  server = await startLoopbackServer(sse(fixture(reply)));
  await collect(make(server.url), { model: 'm', messages, tools: [WEATHER_TOOL] });
  return JSON.parse(server.requests[0]!.body) as Record<string, unknown>;
}

const call = { id: 'call-1', name: 'get_weather', rawArguments: '{"city":"Paris"}', arguments: { city: 'Paris' } };

/** Histories with empty turns: after a user turn, between tool results and a user turn, at the end. */
const histories: Record<string, ChatMessage[]> = {
  'an empty reply, then the person asks again': [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Hello' },
    { role: 'assistant', content: '' },
    { role: 'user', content: 'Are you there?' },
  ],
  'an empty reply after a tool result, then the person asks again': [
    { role: 'user', content: 'Weather in Paris?' },
    { role: 'assistant', content: '', toolCalls: [call] },
    { role: 'tool', toolCallId: 'call-1', content: 'sunny' },
    { role: 'assistant', content: '' },
    { role: 'user', content: 'So?' },
  ],
};

describe('Gemini: no empty part, and user and model turns alternate', () => {
  const gemini = (url: string) => new GeminiProvider({ baseUrl: `${url}/v1beta`, apiKey: CANARY_KEY });
  const expected: Record<string, Content[]> = {
    'an empty reply, then the person asks again': [
      { role: 'user', parts: [{ text: 'Hello' }, { text: 'Are you there?' }] },
    ],
    'an empty reply after a tool result, then the person asks again': [
      { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
      { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }] },
      {
        role: 'user',
        parts: [{ functionResponse: { name: 'get_weather', response: { output: 'sunny' } } }, { text: 'So?' }],
      },
    ],
  };
  it.each(Object.keys(histories))('%s', async (name) => {
    const body = await sentBody(gemini, 'gemini/text.sse', histories[name]!);
    expect(body['contents']).toEqual(expected[name]);
  });
});

describe('Anthropic: no empty text block or assistant turn, and the roles alternate', () => {
  const anthropic = (url: string) => new AnthropicProvider({ baseUrl: url, apiKey: CANARY_KEY });
  const expected: Record<string, MessageParam[]> = {
    'an empty reply, then the person asks again': [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Hello' },
          { type: 'text', text: 'Are you there?' },
        ],
      },
    ],
    'an empty reply after a tool result, then the person asks again': [
      { role: 'user', content: 'Weather in Paris?' },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'call-1', name: 'get_weather', input: { city: 'Paris' } }],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call-1', content: 'sunny' },
          { type: 'text', text: 'So?' },
        ],
      },
    ],
  };
  it.each(Object.keys(histories))('%s', async (name) => {
    const body = await sentBody(anthropic, 'anthropic/text.sse', histories[name]!);
    expect(body['messages']).toEqual(expected[name]);
  });
});
