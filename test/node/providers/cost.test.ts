import { describe, expect, it } from 'vitest';
import { costOf } from '../../../main/core/providers/cost.js';

describe('costOf', () => {
  it('prices input and output tokens per million', () => {
    expect(
      costOf({ inputTokens: 1_000_000, outputTokens: 500_000 }, { inputPerMillion: 2.5, outputPerMillion: 10 }),
    ).toBe(7.5);
    expect(
      costOf({ inputTokens: 1200, outputTokens: 300 }, { inputPerMillion: 3, outputPerMillion: 15, currency: 'USD' }),
    ).toBeCloseTo(0.0081, 10);
  });

  it('is undefined without a price or with a nonsensical one', () => {
    expect(costOf({ inputTokens: 10, outputTokens: 10 })).toBeUndefined();
    expect(costOf({ inputTokens: 10, outputTokens: 10 }, { inputPerMillion: -1, outputPerMillion: 1 })).toBeUndefined();
    expect(
      costOf({ inputTokens: 10, outputTokens: 10 }, { inputPerMillion: Number.NaN, outputPerMillion: 1 }),
    ).toBeUndefined();
  });

  it('is zero for a free (local) model', () => {
    expect(costOf({ inputTokens: 10, outputTokens: 10 }, { inputPerMillion: 0, outputPerMillion: 0 })).toBe(0);
  });
});
