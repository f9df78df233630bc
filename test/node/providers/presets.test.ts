import { describe, expect, it } from 'vitest';
import { AnthropicProvider } from '../../../main/core/providers/anthropic-provider.js';
import { GeminiProvider } from '../../../main/core/providers/gemini-provider.js';
import { OpenAIChatProvider } from '../../../main/core/providers/openai-chat-provider.js';
import { createProvider } from '../../../main/core/providers/create-provider.js';
import { PROVIDER_PRESETS, providerPreset } from '../../../main/core/providers/presets.js';
import { collect, fixture, sse, startLoopbackServer } from './loopback-server.js';
import { plainRequest } from './requests.js';

describe('provider presets', () => {
  it('lists every supported provider with its default base URL and key variable', () => {
    const table = Object.fromEntries(
      Object.entries(PROVIDER_PRESETS).map(([id, p]) => [id, [p.kind, p.defaultBaseUrl, p.keyEnvVar, p.needsKey]]),
    );
    expect(table).toEqual({
      openai: ['openai-chat', 'https://api.openai.com/v1', 'OPENAI_API_KEY', true],
      anthropic: ['anthropic', 'https://api.anthropic.com', 'ANTHROPIC_API_KEY', true],
      gemini: ['gemini', 'https://generativelanguage.googleapis.com/v1beta', 'GEMINI_API_KEY', true],
      'openai-compatible': ['openai-chat', undefined, 'OPENAI_API_KEY', false],
      ollama: ['openai-chat', 'http://localhost:11434/v1', undefined, false],
      lmstudio: ['openai-chat', 'http://localhost:1234/v1', undefined, false],
      openrouter: ['openai-chat', 'https://openrouter.ai/api/v1', 'OPENROUTER_API_KEY', true],
      groq: ['openai-chat', 'https://api.groq.com/openai/v1', 'GROQ_API_KEY', true],
      vllm: ['openai-chat', 'http://localhost:8000/v1', 'VLLM_API_KEY', false],
    });
    expect(providerPreset('toString')).toBeUndefined();
  });

  it('createProvider picks the adapter for the preset kind', () => {
    expect(createProvider({ providerId: 'openai', apiKey: 'k' })).toBeInstanceOf(OpenAIChatProvider);
    expect(createProvider({ providerId: 'groq', apiKey: 'k' })).toBeInstanceOf(OpenAIChatProvider);
    expect(createProvider({ providerId: 'anthropic', apiKey: 'k' })).toBeInstanceOf(AnthropicProvider);
    expect(createProvider({ providerId: 'gemini', apiKey: 'k' })).toBeInstanceOf(GeminiProvider);
    expect(createProvider({ providerId: 'vllm' }).id).toBe('vllm');
  });

  it('createProvider rejects an unknown id and an openai-compatible provider without a base URL', () => {
    expect(() => createProvider({ providerId: 'nope' })).toThrow('unknown provider "nope"');
    expect(() => createProvider({ providerId: 'openai-compatible' })).toThrow(
      'provider "openai-compatible" needs a base URL',
    );
  });

  it('an openai-compatible endpoint gets requests at its own base URL', async () => {
    const server = await startLoopbackServer(sse(fixture('openai/text.sse')));
    try {
      const result = await collect(
        createProvider({ providerId: 'openai-compatible', baseUrl: `${server.url}/custom/v1/` }),
        plainRequest('m'),
      );
      expect(result.error).toBeUndefined();
      expect(server.requests[0]?.url).toBe('/custom/v1/chat/completions');
    } finally {
      await server.close();
    }
  });
});
