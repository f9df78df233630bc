import type { Usage } from '../../../common/run-events.js';

/** A model's list price, per million tokens, from the model catalog. */
export interface TokenPrice {
  inputPerMillion: number;
  outputPerMillion: number;
  /** ISO 4217 code for display; defaults to USD where shown. Not used in the arithmetic. */
  currency?: string;
}

/**
 * The cost of one round (or of summed usage) at `price`, in the price's currency.
 * Undefined when no price is known or the price is not a pair of finite non-negative numbers,
 * so the studio shows "unknown" rather than a made-up zero.
 */
export function costOf(usage: Usage, price?: TokenPrice): number | undefined {
  if (!price) return undefined;
  const { inputPerMillion, outputPerMillion } = price;
  if (!isPrice(inputPerMillion) || !isPrice(outputPerMillion)) return undefined;
  return (usage.inputTokens * inputPerMillion + usage.outputTokens * outputPerMillion) / 1_000_000;
}

function isPrice(value: number): boolean {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}
