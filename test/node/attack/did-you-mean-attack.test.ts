import { describe, expect, it } from 'vitest';
import { editDistance, MAX_GUESS_CANDIDATES, nearestName } from '../../../main/core/did-you-mean.js';

/**
 * "did you mean" compares a mistyped name with every known one, and the known names may come
 * from a cloned workspace (tools.yaml holds tens of thousands of names in its 4 MiB) while a test
 * file names many unknown ones. Before: the full table of every near-length candidate; 10 000
 * names sharing a 60-character prefix took about 2 s for one guess (100 000: 24 s) on a loaded
 * machine, once per mistyped name. Now only the diagonal band the limit allows is computed, and a
 * list with more than MAX_GUESS_CANDIDATES names of a near length gets no guess.
 */

/** The full-table distance (the one before), as the reference the banded one must agree with. */
function referenceDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, before[j - 2]! + 1);
      row.push(best);
    }
    before = previous;
    previous = row;
  }
  return Math.min(previous[b.length]!, limit + 1);
}

describe('did you mean, with a hostile list of names', () => {
  it('gets no guess from more near-length names than it compares, whoever is nearest', () => {
    const typed = 'a'.repeat(64);
    const known = Array.from(
      { length: MAX_GUESS_CANDIDATES + 1 },
      (_, i) => `${'a'.repeat(58)}${i.toString(36).padStart(6, '-')}`,
    );
    known.push(`${'a'.repeat(63)}b`);
    expect(nearestName(typed, known)).toBeUndefined();
    // Names of other lengths do not count against it.
    const far = Array.from({ length: 50_000 }, (_, i) => `${'x'.repeat(20)}${i}`);
    expect(nearestName(typed, [...far, `${'a'.repeat(63)}b`])).toBe(`${'a'.repeat(63)}b`);
    expect(nearestName('agnet', [...far, 'agent'])).toBe('agent');
  });

  it('measures distances as the full table does, for every limit, swaps, Unicode and empty names', () => {
    const alphabet = ['a', 'b', 'c', 'é', 'e\u0301', '\u202e', 'İ', ''];
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const word = () =>
      Array.from({ length: Math.floor(random() * 9) }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
    for (let n = 0; n < 20_000; n++) {
      const a = word();
      const b = random() < 0.5 ? word() : a.slice(0, 2) + a.slice(3, 4) + a.slice(2, 3) + a.slice(4);
      for (const limit of [0, 1, 2, 3])
        expect(editDistance(a, b, limit), `${a} ${b} ${limit}`).toBe(referenceDistance(a, b, limit));
    }
  });
});
