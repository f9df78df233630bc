import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AnthropicProvider } from '../../../main/core/providers/anthropic-provider.js';
import { GeminiProvider } from '../../../main/core/providers/gemini-provider.js';
import { OpenAIChatProvider } from '../../../main/core/providers/openai-chat-provider.js';
import { createProvider } from '../../../main/core/providers/create-provider.js';
import { PROVIDER_PRESETS, providerPreset, type ProviderPreset } from '../../../main/core/providers/presets.js';
import { repositoryRoot } from '../setup/project-copy.js';
import { collect, fixture, sse, startLoopbackServer } from './loopback-server.js';
import { plainRequest } from './requests.js';

describe('provider presets', () => {
  it("docs/providers.md's table says what PROVIDER_PRESETS holds, for every provider", () => {
    const doc = readFileSync(path.join(repositoryRoot, 'docs', 'providers.md'), 'utf8');
    const rows = new Map(
      doc
        .split('\n')
        .filter((line) => /^\| `[a-z-]+` /.test(line))
        .map((line) => {
          const [id, adapter, baseUrl, keyVar, needed] = line
            .split('|')
            .slice(1, -1)
            .map((cell) => cell.trim().replace(/^`|`$/g, ''));
          return [id!, { adapter, baseUrl, keyVar, needed }];
        }),
    );
    const adapters = { 'openai-chat': 'OpenAIChatProvider', anthropic: 'AnthropicProvider', gemini: 'GeminiProvider' };
    expect([...rows.keys()].sort()).toEqual(Object.keys(PROVIDER_PRESETS).sort());
    for (const [id, preset] of Object.entries(PROVIDER_PRESETS) as [string, ProviderPreset][]) {
      const row = rows.get(id);
      expect(row?.adapter, id).toBe(adapters[preset.kind]);
      expect(row?.baseUrl, id).toBe(preset.defaultBaseUrl ?? 'none, a base URL is required');
      expect(row?.keyVar, id).toBe(preset.keyEnvVar ?? 'none');
      // "optional": no key is needed, but a variable is read when set.
      expect(row?.needed, id).toBe(preset.needsKey ? 'yes' : preset.keyEnvVar ? 'optional' : 'no');
    }
  });

  it('a provider that needs a key has a key variable and sends it only over https', () => {
    for (const [id, preset] of Object.entries(PROVIDER_PRESETS) as [string, ProviderPreset][]) {
      if (!preset.needsKey) continue;
      expect(preset.keyEnvVar, id).toMatch(/^[A-Z_]+_API_KEY$/);
      expect(preset.defaultBaseUrl, id).toMatch(/^https:\/\//);
    }
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
