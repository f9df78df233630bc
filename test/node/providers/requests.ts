import type { ChatMessage, ModelRequest, ToolDefinition } from '../../../main/core/providers/model-provider.js';

/** Shared requests for the wire-format tests. */
export const WEATHER_TOOL: ToolDefinition = {
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  },
};

export const ECHO_TOOL: ToolDefinition = {
  name: 'echo',
  description: 'Returns its text',
  parameters: { type: 'object', properties: { text: { type: 'string' } } },
};

export function plainRequest(model: string): ModelRequest {
  return {
    model,
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Say hello.' },
    ],
    tools: [],
  };
}

/** A conversation that replays two tool calls and their results. */
export function replayMessages(): ChatMessage[] {
  return [
    { role: 'system', content: 'You are a weather bot.' },
    { role: 'user', content: 'Weather in Paris? And echo hi.' },
    {
      role: 'assistant',
      content: '',
      toolCalls: [
        { id: 'call-1', name: 'get_weather', rawArguments: '{"city":"Paris"}', arguments: { city: 'Paris' } },
        { id: 'call-2', name: 'echo', rawArguments: '{"text":"hi"}', arguments: { text: 'hi' } },
      ],
    },
    { role: 'tool', toolCallId: 'call-1', content: '18°C, cloudy' },
    { role: 'tool', toolCallId: 'call-2', content: 'hi' },
  ];
}
