import { AnthropicProvider } from './anthropic-provider.js';
import { GeminiProvider } from './gemini-provider.js';
import type { ModelProvider } from './model-provider.js';
import { OpenAIChatProvider } from './openai-chat-provider.js';
import { PROVIDER_PRESETS, providerPreset } from './presets.js';
import type { ProviderHttpOptions } from './provider-http.js';

// The only module that imports the adapters: callers load it with import() when a run first
// resolves a model, so commands and runs that use no provider never load them.

/** What {@link createProvider} needs; the key is passed in, never looked up here. */
export interface CreateProviderOptions extends ProviderHttpOptions {
  providerId: string;
  /** Overrides the preset's base URL; required for `openai-compatible`. */
  baseUrl?: string;
  apiKey?: string;
}

/**
 * Builds the adapter for a preset provider id. Throws a plain Error for an unknown id or a
 * missing base URL (catalog problems, reported by the caller). `replay` is not built here.
 */
export function createProvider(options: CreateProviderOptions): ModelProvider {
  const preset = providerPreset(options.providerId);
  if (!preset) {
    throw new Error(
      `unknown provider "${options.providerId}"; known providers: ${Object.keys(PROVIDER_PRESETS).join(', ')}`,
    );
  }
  const baseUrl = options.baseUrl ?? preset.defaultBaseUrl;
  if (!baseUrl) throw new Error(`provider "${options.providerId}" needs a base URL (e.g. http://localhost:8080/v1)`);
  const http: ProviderHttpOptions = {
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.retry ? { retry: options.retry } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.maxRoundMs !== undefined ? { maxRoundMs: options.maxRoundMs } : {}),
    ...(options.surface ? { surface: options.surface } : {}),
  };
  const apiKey = options.apiKey ? { apiKey: options.apiKey } : {};
  switch (preset.kind) {
    case 'anthropic':
      return new AnthropicProvider({
        ...http,
        ...apiKey,
        baseUrl,
        providerId: options.providerId,
        label: preset.label,
      });
    case 'gemini':
      return new GeminiProvider({ ...http, ...apiKey, baseUrl, providerId: options.providerId, label: preset.label });
    case 'openai-chat':
      return new OpenAIChatProvider({
        ...http,
        ...apiKey,
        baseUrl,
        providerId: options.providerId,
        label: preset.label,
        ...(preset.connectionHint ? { connectionHint: preset.connectionHint } : {}),
      });
  }
}
