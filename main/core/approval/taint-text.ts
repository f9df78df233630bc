/**
 * Text normalisation for the taint rule (docs/catalogs.md, "The taint rule"). Both sides, the
 * recorded untrusted outputs and the checked arguments, go through the same steps, so a copy
 * still matches after any of them:
 *
 * 1. decoding, twice over: percent-escapes (`%69`, multi-byte UTF-8, double `%2569`), HTML
 *    character references (`&lt;`, `&#105;`, `&#x69;`, `&amp;`...) and backslash escapes
 *    (`\u0069`, `\u{69}`, `\x69`, `\/`, `\n`, Lua's decimal `\105`);
 * 2. folding each character: NFKD compatibility forms (full-width, mathematical, circled
 *    letters), combining marks and invisible format characters (zero-width space, soft hyphen,
 *    bidi controls) dropped, lower case, and common Cyrillic/Greek look-alikes mapped to Latin;
 * 3. the skeleton: only letters and digits are kept (spacing, punctuation and markup between them
 *    do not matter) and a run of one repeated character counts once.
 *
 * Every skeleton character remembers the range of the original string it came from, so a match
 * maps back to offsets in the original argument.
 */

import { ENVELOPE_TAG_PATTERN } from '../../../common/envelope.js';

/** A string reduced to its skeleton, with an offset map back to the original string. */
export interface SkeletonText {
  /** Letters and digits after decoding and folding, one UTF-16 unit per character. */
  skeleton: string;
  /** For skeleton character i, the original string's range [starts[i], ends[i]). */
  starts: Int32Array;
  ends: Int32Array;
  /** Ranges of the original string holding an envelope tag (in any decoded or folded form). */
  envelopeTags: { start: number; end: number }[];
}

/** Code points with the original range each came from; grows as needed. */
class Units {
  cps: Int32Array;
  starts: Int32Array;
  ends: Int32Array;
  length = 0;

  constructor(capacity: number) {
    this.cps = new Int32Array(Math.max(16, capacity));
    this.starts = new Int32Array(this.cps.length);
    this.ends = new Int32Array(this.cps.length);
  }

  push(cp: number, start: number, end: number): void {
    if (this.length === this.cps.length) this.grow();
    this.cps[this.length] = cp;
    this.starts[this.length] = start;
    this.ends[this.length] = end;
    this.length += 1;
  }

  has(cp: number): boolean {
    return this.cps.subarray(0, this.length).includes(cp);
  }

  private grow(): void {
    const size = this.cps.length * 2;
    for (const name of ['cps', 'starts', 'ends'] as const) {
      const bigger = new Int32Array(size);
      bigger.set(this[name]);
      this[name] = bigger;
    }
  }
}

const NAMED_REFERENCES: Record<string, number> = { lt: 60, gt: 62, amp: 38, quot: 34, apos: 39, nbsp: 32 };
// Letters that look like Latin ones (after lower-casing), mapped to the Latin letter.
const LOOK_ALIKES: Record<string, string> = {
  а: 'a',
  в: 'b',
  е: 'e',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  і: 'i',
  ј: 'j',
  ѕ: 's',
  ԁ: 'd',
  һ: 'h',
  ԛ: 'q',
  ԝ: 'w',
  ӏ: 'l',
  α: 'a',
  β: 'b',
  ε: 'e',
  η: 'n',
  ι: 'i',
  κ: 'k',
  μ: 'u',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
  ζ: 'z',
  ɡ: 'g',
  ı: 'i',
  ȷ: 'j',
  ℓ: 'l',
};
const ENVELOPE_TAG_FOLDED = /<\s*(?:\/\s*)?untrusted[\s_-]*input(?:_[0-9a-z]*)?\s*>?/g;

/** Reduces `text` to its skeleton (see the module comment). Linear in the length of `text`. */
export function toSkeleton(text: string, options: { envelopeTags?: boolean } = {}): SkeletonText {
  let units = codePoints(text);
  for (let pass = 0; pass < 2; pass += 1) {
    units = decodePercent(units);
    units = decodeReferences(units);
    units = decodeBackslashes(units);
  }
  const folded = fold(units);
  const envelopeTags = options.envelopeTags === false ? [] : findEnvelopeTags(text, folded);
  const skeleton = new Uint16Array(folded.length);
  const starts = new Int32Array(folded.length);
  const ends = new Int32Array(folded.length);
  let size = 0;
  for (let i = 0; i < folded.length; i += 1) {
    const cp = folded.cps[i] ?? 0;
    if (!isLetterOrDigit(cp)) continue;
    const unit = cp > 0xffff ? 0xe000 + (cp % 0x1900) : cp;
    if (size > 0 && skeleton[size - 1] === unit) {
      ends[size - 1] = Math.max(ends[size - 1] ?? 0, folded.ends[i] ?? 0);
      continue;
    }
    skeleton[size] = unit;
    starts[size] = folded.starts[i] ?? 0;
    ends[size] = folded.ends[i] ?? 0;
    size += 1;
  }
  return {
    skeleton: fromUnits(skeleton.subarray(0, size)),
    starts: starts.slice(0, size),
    ends: ends.slice(0, size),
    envelopeTags,
  };
}

function fromUnits(units: Uint16Array): string {
  const parts: string[] = [];
  for (let i = 0; i < units.length; i += 8192) parts.push(String.fromCharCode(...units.subarray(i, i + 8192)));
  return parts.join('');
}

function codePoints(text: string): Units {
  const units = new Units(text.length);
  for (let i = 0; i < text.length;) {
    const cp = text.codePointAt(i) ?? 0;
    const width = cp > 0xffff ? 2 : 1;
    units.push(cp, i, i + width);
    i += width;
  }
  return units;
}

function hexAt(units: Units, from: number, count: number): number | undefined {
  if (from + count > units.length) return undefined;
  let value = 0;
  for (let k = 0; k < count; k += 1) {
    const digit = hexDigit(units.cps[from + k] ?? 0);
    if (digit < 0) return undefined;
    value = value * 16 + digit;
  }
  return value;
}

function hexDigit(cp: number): number {
  if (cp >= 48 && cp <= 57) return cp - 48;
  if (cp >= 97 && cp <= 102) return cp - 87;
  if (cp >= 65 && cp <= 70) return cp - 55;
  return -1;
}

/** `%XX` sequences, decoded as UTF-8 where they form valid sequences, else one byte each. */
function decodePercent(units: Units): Units {
  if (!units.has(37)) return units;
  const out = new Units(units.length);
  for (let i = 0; i < units.length;) {
    const byte = units.cps[i] === 37 ? hexAt(units, i + 1, 2) : undefined;
    if (byte === undefined) {
      out.push(units.cps[i] ?? 0, units.starts[i] ?? 0, units.ends[i] ?? 0);
      i += 1;
      continue;
    }
    const length = byte >= 0xf0 && byte < 0xf8 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    let cp = length === 1 ? byte : byte & (0xff >> (length + 1));
    let valid = byte < 0x80 || length > 1;
    for (let k = 1; valid && k < length; k += 1) {
      const next = units.cps[i + 3 * k] === 37 ? hexAt(units, i + 3 * k + 1, 2) : undefined;
      if (next === undefined || (next & 0xc0) !== 0x80) valid = false;
      else cp = (cp << 6) | (next & 0x3f);
    }
    if (!valid || cp > 0x10ffff) {
      out.push(byte, units.starts[i] ?? 0, units.ends[i + 2] ?? 0);
      i += 3;
      continue;
    }
    out.push(cp, units.starts[i] ?? 0, units.ends[i + 3 * length - 1] ?? 0);
    i += 3 * length;
  }
  return out;
}

/** HTML character references: numeric ones and the few named ones that matter for text. */
function decodeReferences(units: Units): Units {
  if (!units.has(38)) return units;
  const out = new Units(units.length);
  for (let i = 0; i < units.length;) {
    if (units.cps[i] === 38) {
      let end = i + 1;
      let name = '';
      while (end < units.length && end - i <= 10 && units.cps[end] !== 59) {
        name += String.fromCodePoint(units.cps[end] ?? 0);
        end += 1;
      }
      const closed = units.cps[end] === 59;
      const cp = closed ? referenceValue(name) : undefined;
      if (cp !== undefined) {
        out.push(cp, units.starts[i] ?? 0, units.ends[end] ?? 0);
        i = end + 1;
        continue;
      }
    }
    out.push(units.cps[i] ?? 0, units.starts[i] ?? 0, units.ends[i] ?? 0);
    i += 1;
  }
  return out;
}

function referenceValue(name: string): number | undefined {
  const lower = name.toLowerCase();
  if (NAMED_REFERENCES[lower] !== undefined) return NAMED_REFERENCES[lower];
  const numeric = /^#(?:x([0-9a-f]{1,6})|([0-9]{1,7}))$/.exec(lower);
  if (!numeric) return undefined;
  const value = numeric[1] !== undefined ? parseInt(numeric[1], 16) : parseInt(numeric[2] ?? '', 10);
  return value <= 0x10ffff ? value : undefined;
}

/**
 * Backslash escapes as JSON, JavaScript and Lua write them. A backslash before digits is read as
 * Lua's decimal escape (`\101` is "e"), not as JavaScript's legacy octal one: Lua is what the
 * agents are written in, and strict JavaScript has no octal escapes.
 */
function decodeBackslashes(units: Units): Units {
  if (!units.has(92)) return units;
  const out = new Units(units.length);
  for (let i = 0; i < units.length;) {
    if (units.cps[i] !== 92 || i + 1 >= units.length) {
      out.push(units.cps[i] ?? 0, units.starts[i] ?? 0, units.ends[i] ?? 0);
      i += 1;
      continue;
    }
    const next = String.fromCodePoint(units.cps[i + 1] ?? 0);
    let cp: number | undefined;
    let width = 2;
    if (next === 'u' && units.cps[i + 2] === 123) {
      let close = i + 3;
      while (close < units.length && close - i < 10 && units.cps[close] !== 125) close += 1;
      const value = units.cps[close] === 125 && close > i + 3 ? hexAt(units, i + 3, close - i - 3) : undefined;
      if (value !== undefined && value <= 0x10ffff) {
        cp = value;
        width = close - i + 1;
      }
    } else if (next === 'u') {
      cp = hexAt(units, i + 2, 4);
      width = 6;
    } else if (next === 'x') {
      cp = hexAt(units, i + 2, 2);
      width = 4;
    } else if (next >= '0' && next <= '9') {
      // Lua's decimal escape, up to three digits (`string.format('%q')` writes a tab as `\9` and a
      // carriage return as `\13`): the byte it names, a control character counting as a space.
      let digits = 1;
      while (digits < 3 && (units.cps[i + 1 + digits] ?? 0) >= 48 && (units.cps[i + 1 + digits] ?? 0) <= 57)
        digits += 1;
      let value = 0;
      for (let d = 0; d < digits; d++) value = value * 10 + (units.cps[i + 1 + d] ?? 48) - 48;
      if (value <= 255) {
        cp = value < 32 || value === 127 ? 32 : value;
        width = 1 + digits;
      }
    } else if ('nrtbfv'.includes(next)) {
      cp = 32;
    } else {
      cp = units.cps[i + 1];
    }
    if (cp === undefined) {
      out.push(92, units.starts[i] ?? 0, units.ends[i] ?? 0);
      i += 1;
      continue;
    }
    out.push(cp, units.starts[i] ?? 0, units.ends[i + width - 1] ?? 0);
    i += width;
  }
  return out;
}

const foldCache = new Map<number, number[]>();
const MAX_FOLD_CACHE = 8192;

function foldCodePoint(cp: number): number[] {
  if (cp < 128) return [cp >= 65 && cp <= 90 ? cp + 32 : cp];
  const cached = foldCache.get(cp);
  if (cached) return cached;
  const decomposed = String.fromCodePoint(cp)
    .normalize('NFKD')
    .replace(/[\p{M}\p{Cf}\u034f\u115f\u1160\u3164\uffa0]/gu, '')
    .toLowerCase();
  const result: number[] = [];
  for (const char of decomposed) {
    const mapped = LOOK_ALIKES[char] ?? char;
    for (const part of mapped) result.push(part.codePointAt(0) ?? 0);
  }
  if (foldCache.size >= MAX_FOLD_CACHE) foldCache.clear();
  foldCache.set(cp, result);
  return result;
}

function fold(units: Units): Units {
  const out = new Units(units.length);
  for (let i = 0; i < units.length; i += 1) {
    const cp = units.cps[i] ?? 0;
    if (cp < 128) out.push(cp >= 65 && cp <= 90 ? cp + 32 : cp, units.starts[i] ?? 0, units.ends[i] ?? 0);
    else for (const part of foldCodePoint(cp)) out.push(part, units.starts[i] ?? 0, units.ends[i] ?? 0);
  }
  return out;
}

const letterCache = new Map<number, boolean>();

function isLetterOrDigit(cp: number): boolean {
  if (cp < 128) return (cp >= 97 && cp <= 122) || (cp >= 48 && cp <= 57);
  let known = letterCache.get(cp);
  if (known === undefined) {
    known = /[\p{L}\p{N}]/u.test(String.fromCodePoint(cp));
    if (letterCache.size >= MAX_FOLD_CACHE) letterCache.clear();
    letterCache.set(cp, known);
  }
  return known;
}

function findEnvelopeTags(original: string, folded: Units): { start: number; end: number }[] {
  const tags: { start: number; end: number }[] = [];
  // Every form of a tag starts with "<" once decoded and folded (`&lt;`, `%3C` and full-width
  // "＜" included), so a text without one has none: the common case, checked without a regex.
  if (!folded.has(60)) return tags;
  // The exact tag as written; the folded text below finds every other form (upper case included).
  for (const match of original.matchAll(ENVELOPE_TAG_PATTERN)) {
    tags.push({ start: match.index, end: match.index + match[0].length });
  }
  // One UTF-16 unit per folded character, so regex indices are unit indices.
  const units = new Uint16Array(folded.length);
  for (let i = 0; i < folded.length; i += 1) {
    const cp = folded.cps[i] ?? 0;
    units[i] = cp > 0xffff ? 0xfffd : cp;
  }
  const text = fromUnits(units);
  for (const match of text.matchAll(ENVELOPE_TAG_FOLDED)) {
    const start = folded.starts[match.index] ?? 0;
    const end = folded.ends[match.index + match[0].length - 1] ?? start;
    if (!tags.some((tag) => tag.start <= start && tag.end >= end)) tags.push({ start, end });
  }
  return tags.sort((a, b) => a.start - b.start);
}
