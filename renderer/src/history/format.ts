/** How the history feature writes durations, times and costs. */
import type { RunEvent } from '../../../common/run-events.js';

/** The price a round was charged at, as its event records it. */
export type RoundPrice = NonNullable<Extract<RunEvent, { type: 'round-response' }>['price']>;

export function formatDuration(ms: number | undefined): string {
  if (ms === undefined) return '—';
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}

export function formatTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime())
    ? iso
    : date.toLocaleString(undefined, {
        month: 'short',
        day: 'numeric',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
      });
}

/** A cost in the model's price currency (`$` for US dollars); `unknown` when no price is known. */
export function formatCost(cost: number | undefined, currency = 'USD'): string {
  if (cost === undefined) return 'unknown';
  const amount = cost === 0 ? '0' : cost < 0.01 ? cost.toFixed(6) : cost.toFixed(4);
  return currency === 'USD' ? `$${amount}` : `${amount} ${currency}`;
}

/**
 * A run's cost as its header and the history write it: a run with no model round cost nothing,
 * one whose model has no known price says so rather than showing a made-up zero.
 */
export function runCostText(cost: number | undefined, rounds: number): string {
  if (cost !== undefined) return formatCost(cost);
  return rounds === 0 ? '$0 (no model round)' : 'unknown (no price)';
}

/** Where a round's price came from, in a few words (the URL goes in the tooltip). */
export function priceSourceText(price: RoundPrice | undefined): string {
  if (!price) return 'no price: add price: to the model in models.yaml';
  switch (price.from) {
    case 'models.yaml':
      return 'models.yaml';
    case 'price-table':
      return `price table of ${price.asOf ?? '?'}`;
    case 'local':
      return 'on this machine, free';
    case 'replay':
      return 'replay, nothing sent';
    case 'test-file':
      return 'test case';
  }
}

/** A price per million tokens: `$0.15 / $0.60 per 1M`. */
export function priceText(price: RoundPrice): string {
  const one = (value: number) => (price.currency === 'USD' ? `$${value}` : `${value} ${price.currency}`);
  return `${one(price.inputPerMillion)} / ${one(price.outputPerMillion)} per 1M`;
}
