/** Which adapter speaks a provider's wire format. */
type ProviderKind = 'openai-chat' | 'anthropic' | 'gemini';

/** What PromptForge knows about a provider id before any catalog says more. */
export interface ProviderPreset {
  kind: ProviderKind;
  /** Human name used in messages and the studio. */
  label: string;
  /** Undefined when the person must give a base URL (`openai-compatible`). */
  defaultBaseUrl: string | undefined;
  /** The conventional environment variable for headless runs, if there is one. */
  keyEnvVar: string | undefined;
  /** Whether requests fail without a key (local servers and self-hosted endpoints don't). */
  needsKey: boolean;
  /** Sentence added to connection errors. */
  connectionHint?: string;
}

/** Provider ids the model catalog may name (besides the lead's `replay`). */
export const PROVIDER_PRESETS = {
  openai: {
    kind: 'openai-chat',
    label: 'OpenAI',
    defaultBaseUrl: 'https://api.openai.com/v1',
    keyEnvVar: 'OPENAI_API_KEY',
    needsKey: true,
  },
  anthropic: {
    kind: 'anthropic',
    label: 'Anthropic',
    defaultBaseUrl: 'https://api.anthropic.com',
    keyEnvVar: 'ANTHROPIC_API_KEY',
    needsKey: true,
  },
  gemini: {
    kind: 'gemini',
    label: 'Google Gemini',
    defaultBaseUrl: 'https://generativelanguage.googleapis.com/v1beta',
    keyEnvVar: 'GEMINI_API_KEY',
    needsKey: true,
  },
  'openai-compatible': {
    kind: 'openai-chat',
    label: 'OpenAI-compatible endpoint',
    defaultBaseUrl: undefined,
    keyEnvVar: 'OPENAI_API_KEY',
    needsKey: false,
    connectionHint: 'Is the server running, and is the base URL right?',
  },
  ollama: {
    kind: 'openai-chat',
    label: 'Ollama',
    defaultBaseUrl: 'http://localhost:11434/v1',
    keyEnvVar: undefined,
    needsKey: false,
    connectionHint: 'Is the Ollama server running? Start it with `ollama serve`.',
  },
  lmstudio: {
    kind: 'openai-chat',
    label: 'LM Studio',
    defaultBaseUrl: 'http://localhost:1234/v1',
    keyEnvVar: undefined,
    needsKey: false,
    connectionHint:
      "Is the LM Studio server running? Start it in LM Studio's Developer tab or with `lms server start`.",
  },
  openrouter: {
    kind: 'openai-chat',
    label: 'OpenRouter',
    defaultBaseUrl: 'https://openrouter.ai/api/v1',
    keyEnvVar: 'OPENROUTER_API_KEY',
    needsKey: true,
  },
  groq: {
    kind: 'openai-chat',
    label: 'Groq',
    defaultBaseUrl: 'https://api.groq.com/openai/v1',
    keyEnvVar: 'GROQ_API_KEY',
    needsKey: true,
  },
  vllm: {
    kind: 'openai-chat',
    label: 'vLLM',
    defaultBaseUrl: 'http://localhost:8000/v1',
    keyEnvVar: 'VLLM_API_KEY',
    needsKey: false,
    connectionHint: 'Is the vLLM server running? Start it with `vllm serve <model>`.',
  },
} as const satisfies Record<string, ProviderPreset>;

/** A provider id with a preset. */
type PresetProviderId = keyof typeof PROVIDER_PRESETS;

/** The preset for `providerId`, or undefined for an unknown id. */
export function providerPreset(providerId: string): ProviderPreset | undefined {
  return Object.hasOwn(PROVIDER_PRESETS, providerId) ? PROVIDER_PRESETS[providerId as PresetProviderId] : undefined;
}
