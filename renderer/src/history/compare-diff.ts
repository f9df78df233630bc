/** Letters, digits and `_`: a changed part is widened to whole words of these. */
const WORD = /[\p{L}\p{N}_]/u;

/**
 * The part of `text` that differs from `other`: what is left between their longest common start
 * and longest common end, widened to whole words (so `hel|lo` against `Os|lo` marks `hello`).
 * Linear, and enough to point at the changed words in a row.
 */
export function changedPart(text: string, other: string | null): { before: string; changed: string; after: string } {
  if (other === null || text === other)
    return other === null ? { before: '', changed: text, after: '' } : { before: text, changed: '', after: '' };
  const limit = Math.min(text.length, other.length);
  let start = 0;
  while (start < limit && text[start] === other[start]) start += 1;
  let end = 0;
  while (end < limit - start && text[text.length - 1 - end] === other[other.length - 1 - end]) end += 1;
  let stop = text.length - end;
  while (start > 0 && WORD.test(text[start - 1]!) && WORD.test(text[start] ?? text[start - 1]!)) start -= 1;
  while (stop < text.length && WORD.test(text[stop]!) && (stop === 0 || WORD.test(text[stop - 1]!))) stop += 1;
  // Keep a surrogate pair whole.
  if (start > 0 && /[\uDC00-\uDFFF]/.test(text[start] ?? '')) start -= 1;
  if (stop < text.length && /[\uDC00-\uDFFF]/.test(text[stop]!)) stop += 1;
  return { before: text.slice(0, start), changed: text.slice(start, stop), after: text.slice(stop) };
}
