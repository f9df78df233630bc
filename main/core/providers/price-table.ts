/**
 * List prices of the preset providers' well-known models, in one place, with the date they were
 * read and where: what a run costs when models.yaml gives no `price:` (which always wins).
 */
import type { TokenPrice } from './cost.js';

/** Where a price was taken from, as the run records it beside each round's cost. */
export interface PriceSource {
  /**
   * `models.yaml`: the workspace's own `price:`; `price-table`: this file; `local`: a model on this
   * machine; `replay`: nothing was sent; `test-file`: a test case's scripted model.
   */
  from: 'models.yaml' | 'price-table' | 'local' | 'replay' | 'test-file';
  /** When the table's prices were read (YYYY-MM-DD), for `price-table`. */
  asOf?: string;
  /** The provider's pricing page, for `price-table`. */
  url?: string;
}

/** A price with where it came from. */
export interface SourcedPrice extends TokenPrice {
  source: PriceSource;
}

/**
 * When the prices below were read from the providers' pricing pages. They are list prices for
 * standard (not batch, not cached-input) requests and may have changed since: a workspace that
 * needs exact figures writes `price:` in models.yaml.
 */
export const PRICE_TABLE_AS_OF = '2025-10-01';

/** Each preset provider's pricing page. */
const PRICE_PAGES: Readonly<Record<string, string>> = {
  openai: 'https://openai.com/api/pricing/',
  anthropic: 'https://www.anthropic.com/pricing#api',
  gemini: 'https://ai.google.dev/gemini-api/docs/pricing',
  groq: 'https://groq.com/pricing/',
};

/** USD per million tokens: [input, output]. */
const PRICES: Readonly<Record<string, Readonly<Record<string, readonly [number, number]>>>> = {
  openai: {
    'gpt-5': [1.25, 10],
    'gpt-5-mini': [0.25, 2],
    'gpt-5-nano': [0.05, 0.4],
    'gpt-4.1': [2, 8],
    'gpt-4.1-mini': [0.4, 1.6],
    'gpt-4.1-nano': [0.1, 0.4],
    'gpt-4o': [2.5, 10],
    'gpt-4o-mini': [0.15, 0.6],
    o3: [2, 8],
    'o4-mini': [1.1, 4.4],
  },
  anthropic: {
    'claude-opus-4-1': [15, 75],
    'claude-opus-4': [15, 75],
    'claude-sonnet-4-5': [3, 15],
    'claude-sonnet-4': [3, 15],
    'claude-3-7-sonnet': [3, 15],
    'claude-haiku-4-5': [1, 5],
    'claude-3-5-haiku': [0.8, 4],
  },
  gemini: {
    // Prompts up to 200k tokens; longer ones cost more (the pricing page has the tiers).
    'gemini-2.5-pro': [1.25, 10],
    'gemini-2.5-flash': [0.3, 2.5],
    'gemini-2.5-flash-lite': [0.1, 0.4],
    'gemini-2.0-flash': [0.1, 0.4],
  },
  groq: {
    'llama-3.3-70b-versatile': [0.59, 0.79],
    'llama-3.1-8b-instant': [0.05, 0.08],
  },
};

/** Providers whose models run on this machine by default: nothing is billed. */
const LOCAL_PROVIDERS = new Set(['ollama', 'lmstudio']);

/** A dated snapshot of a model id (`gpt-4o-2024-08-06`, `claude-sonnet-4-5-20250929`) and `-latest`. */
const SNAPSHOT = /-(?:\d{4}-\d{2}-\d{2}|\d{8}|latest)$/;

/**
 * The table's price of `provider`'s model `modelId` (a dated snapshot takes its model's price), a
 * zero price for a local provider, or undefined when the table does not know it.
 */
export function listedPrice(provider: string, modelId: string): SourcedPrice | undefined {
  if (LOCAL_PROVIDERS.has(provider))
    return { inputPerMillion: 0, outputPerMillion: 0, currency: 'USD', source: { from: 'local' } };
  const models = Object.hasOwn(PRICES, provider) ? PRICES[provider]! : undefined;
  if (!models) return undefined;
  const id = modelId.replace(/^models\//, '');
  const base = Object.hasOwn(models, id) ? id : id.replace(SNAPSHOT, '');
  const listed = Object.hasOwn(models, base) ? models[base] : undefined;
  if (!listed) return undefined;
  return {
    inputPerMillion: listed[0],
    outputPerMillion: listed[1],
    currency: 'USD',
    source: {
      from: 'price-table',
      asOf: PRICE_TABLE_AS_OF,
      ...(PRICE_PAGES[provider] && { url: PRICE_PAGES[provider] }),
    },
  };
}

/**
 * The price a run uses for a model: its `price:` in models.yaml, else the table's; undefined when
 * neither knows it (the cost then shows as unknown, never as a made-up zero).
 */
export function priceFor(spec: {
  provider: string;
  model: string;
  price?: { inputPerMillion: number; outputPerMillion: number; currency: string };
}): SourcedPrice | undefined {
  if (spec.price) return { ...spec.price, source: { from: 'models.yaml' } };
  return listedPrice(spec.provider, spec.model);
}
