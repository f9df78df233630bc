/**
 * How a string argument is drawn on an approval card: as its JSON text, except that characters a
 * person cannot see, or that change the direction of the text around them, are drawn as visible
 * escapes, and long runs of one such character (or of ordinary spaces) are drawn once with a count.
 * Taint spans are offsets into the raw string; the result keeps them exact. Pure, so it is tested
 * in Node (test/e2e/tainted-json-logic.test.ts).
 */

/** A tainted span of a string: offsets (UTF-16 code units) into the raw string, and its source. */
export interface StringSpan {
  start: number;
  end: number;
  sourceOutputId: string;
}

/** One drawn piece of a string, and the raw characters `[start, end)` it stands for. */
export interface DisplayPiece {
  start: number;
  end: number;
  /** What is drawn: JSON text, or an escape marker such as `\u202e` or `␠×12`. */
  text: string;
  /** Set on an escape marker: what it stands for, in words (its accessible name). */
  label?: string;
}

/** A stretch of a string that is either all tainted by `span` or all untainted (`span` null). */
export interface DisplayRun<Span extends StringSpan = StringSpan> {
  start: number;
  end: number;
  span: Span | null;
  pieces: DisplayPiece[];
}

/** Ordinary spaces in a row are drawn one by one up to this many, and as `␠×N` beyond. */
export const SPACE_RUN_LIMIT = 8;
/** One hidden character in a row is escaped one by one up to this many, and as `\uXXXX×N` beyond. */
export const HIDDEN_RUN_LIMIT = 3;

/**
 * Characters drawn as an escape: format characters (bidi controls, zero-width characters, soft
 * hyphen, tag characters …), every other default-ignorable code point (variation selectors, Hangul
 * fillers …), line and paragraph separators, every space other than U+0020, the controls JSON does
 * not escape (DEL and C1), and the braille blank, which draws as nothing.
 */
const HIDDEN = /^[\p{Cf}\p{Default_Ignorable_Code_Point}\p{Zl}\p{Zp}\p{Zs}\u007f-\u009f\u2800]$/u;

const NAMES: Record<number, string> = {
  0x00a0: 'no-break space',
  0x00ad: 'soft hyphen',
  0x034f: 'combining grapheme joiner',
  0x061c: 'Arabic letter mark',
  0x115f: 'Hangul choseong filler',
  0x1160: 'Hangul jungseong filler',
  0x180e: 'Mongolian vowel separator',
  0x2000: 'en quad',
  0x2001: 'em quad',
  0x2002: 'en space',
  0x2003: 'em space',
  0x2004: 'three-per-em space',
  0x2005: 'four-per-em space',
  0x2006: 'six-per-em space',
  0x2007: 'figure space',
  0x2008: 'punctuation space',
  0x2009: 'thin space',
  0x200a: 'hair space',
  0x200b: 'zero width space',
  0x200c: 'zero width non-joiner',
  0x200d: 'zero width joiner',
  0x200e: 'left-to-right mark',
  0x200f: 'right-to-left mark',
  0x2028: 'line separator',
  0x2029: 'paragraph separator',
  0x202a: 'left-to-right embedding',
  0x202b: 'right-to-left embedding',
  0x202c: 'pop directional formatting',
  0x202d: 'left-to-right override',
  0x202e: 'right-to-left override',
  0x202f: 'narrow no-break space',
  0x205f: 'medium mathematical space',
  0x2060: 'word joiner',
  0x2061: 'function application',
  0x2062: 'invisible times',
  0x2063: 'invisible separator',
  0x2064: 'invisible plus',
  0x2066: 'left-to-right isolate',
  0x2067: 'right-to-left isolate',
  0x2068: 'first strong isolate',
  0x2069: 'pop directional isolate',
  0x2800: 'braille pattern blank',
  0x3000: 'ideographic space',
  0x3164: 'Hangul filler',
  0xfeff: 'zero width no-break space',
  0xffa0: 'halfwidth Hangul filler',
};

function isSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdfff;
}

/** What a hidden code point is called (its Unicode name when known, else its kind). */
function nameOf(cp: number, char: string): string {
  const known = NAMES[cp];
  if (known !== undefined) return known;
  if (isSurrogate(cp)) return 'unpaired surrogate';
  if (cp >= 0x7f && cp <= 0x9f) return 'control character';
  if (cp >= 0xfe00 && cp <= 0xfe0f) return `variation selector ${cp - 0xfe00 + 1}`;
  if (cp >= 0xe0100 && cp <= 0xe01ef) return `variation selector ${cp - 0xe0100 + 17}`;
  if (cp >= 0xe0000 && cp <= 0xe007f) return 'tag character';
  if (/\p{Zs}/u.test(char)) return 'space character';
  if (/\p{Cf}/u.test(char)) return 'invisible format character';
  return 'invisible character';
}

function hex(cp: number, digits: number): string {
  return cp.toString(16).padStart(digits, '0');
}

/** `\u202e`, or `\u{e0041}` above U+FFFF. */
function escapeOf(cp: number): string {
  return cp > 0xffff ? `\\u{${hex(cp, 5)}}` : `\\u${hex(cp, 4)}`;
}

function codePointLabel(cp: number): string {
  return `U+${hex(cp, 4).toUpperCase()}`;
}

/** The JSON text of one code point that is not hidden (a quote, a backslash, a C0 control …). */
function jsonTextOf(char: string, cp: number): string {
  if (cp >= 0x20 && cp !== 0x22 && cp !== 0x5c) return char;
  return JSON.stringify(char).slice(1, -1);
}

/** The code point at `index` of `text`; an unpaired surrogate counts as a code point of its own. */
function codePointAt(text: string, index: number): number {
  return text.codePointAt(index) ?? 0;
}

function isHidden(cp: number, char: string): boolean {
  if (cp < 0x7f) return false;
  return isSurrogate(cp) || HIDDEN.test(char);
}

/** Draws `text.slice(start, end)` (whole code points) as pieces. */
function piecesOf(text: string, start: number, end: number): DisplayPiece[] {
  const pieces: DisplayPiece[] = [];
  let plain = '';
  let plainStart = start;
  const flush = (at: number): void => {
    if (plain !== '') pieces.push({ start: plainStart, end: at, text: plain });
    plain = '';
  };
  let i = start;
  while (i < end) {
    const cp = codePointAt(text, i);
    const width = cp > 0xffff ? 2 : 1;
    const char = text.slice(i, i + width);
    if (cp === 0x20) {
      let runEnd = i + 1;
      while (runEnd < end && text.charCodeAt(runEnd) === 0x20) runEnd += 1;
      const count = runEnd - i;
      if (count > SPACE_RUN_LIMIT) {
        flush(i);
        pieces.push({ start: i, end: runEnd, text: `␠×${count}`, label: `${count} spaces` });
        plainStart = runEnd;
      } else {
        if (plain === '') plainStart = i;
        plain += ' '.repeat(count);
      }
      i = runEnd;
      continue;
    }
    if (isHidden(cp, char)) {
      flush(i);
      let runEnd = i + width;
      while (runEnd < end && codePointAt(text, runEnd) === cp) runEnd += width;
      const count = (runEnd - i) / width;
      const name = `${codePointLabel(cp)} ${nameOf(cp, char)}`;
      if (count > HIDDEN_RUN_LIMIT) {
        pieces.push({ start: i, end: runEnd, text: `${escapeOf(cp)}×${count}`, label: `${count} times ${name}` });
      } else {
        for (let at = i; at < runEnd; at += width)
          pieces.push({ start: at, end: at + width, text: escapeOf(cp), label: name });
      }
      plainStart = runEnd;
      i = runEnd;
      continue;
    }
    if (plain === '') plainStart = i;
    plain += jsonTextOf(char, cp);
    i += width;
  }
  flush(end);
  return pieces;
}

/** Moves `index` off the second half of a surrogate pair: `back` to its first half, else past it. */
function onCodePoint(text: string, index: number, back: boolean): number {
  const before = text.charCodeAt(index - 1);
  const at = text.charCodeAt(index);
  const inPair =
    index > 0 && index < text.length && before >= 0xd800 && before <= 0xdbff && at >= 0xdc00 && at <= 0xdfff;
  if (!inPair) return index;
  return back ? index - 1 : index + 1;
}

/**
 * Splits `text` into tainted and untainted runs and draws each. The runs cover the string from 0
 * to its length in order. Spans are clipped to the string and to each other (a later span starts
 * where an earlier one ends); a span boundary inside a surrogate pair widens the span to the whole
 * character. Empty spans are dropped.
 */
export function displayString<Span extends StringSpan>(text: string, spans: readonly Span[]): DisplayRun<Span>[] {
  const runs: DisplayRun<Span>[] = [];
  const push = (start: number, end: number, span: Span | null): void => {
    if (end > start) runs.push({ start, end, span, pieces: piecesOf(text, start, end) });
  };
  let cursor = 0;
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  for (const span of sorted) {
    const start = Math.max(cursor, onCodePoint(text, Math.max(0, Math.min(span.start, text.length)), true));
    const end = Math.max(start, onCodePoint(text, Math.max(0, Math.min(span.end, text.length)), false));
    if (end === start) continue;
    push(cursor, start, null);
    push(start, end, span);
    cursor = end;
  }
  push(cursor, text.length, null);
  return runs;
}

/** The drawn text of a string (without its quotes), as `displayString` draws it. */
export function displayText(text: string): string {
  return piecesOf(text, 0, text.length)
    .map((piece) => piece.text)
    .join('');
}
