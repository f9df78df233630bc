/**
 * How a string argument is drawn on an approval card: as its JSON text, except that characters a
 * person cannot see, or that change the direction of the text around them, are drawn as visible
 * escapes, and long runs of one such character (or of ordinary spaces) are drawn once with a count.
 * Stacks of more than two combining marks on one character are escaped (they would draw over the
 * lines around them), and so are the letters of a word that mixes scripts (a Cyrillic "а" inside
 * "pаypal"), whose pieces are flagged so the word can be marked. Taint spans are offsets into the
 * raw string; the result keeps them exact. Pure, so it is tested in Node
 * (test/e2e/tainted-json-logic.test.ts).
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
  /** Set on every piece of a word that mixes scripts: the scripts it mixes, e.g. "Latin and Cyrillic". */
  mixedScripts?: string;
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
/** Combining marks in a row are drawn as they are up to this many; a longer run is escaped. */
export const MARK_RUN_LIMIT = 2;

/**
 * Characters drawn as an escape: format characters (bidi controls, zero-width characters, soft
 * hyphen, tag characters …), every other default-ignorable code point (variation selectors, Hangul
 * fillers …), line and paragraph separators, every space other than U+0020, the controls JSON does
 * not escape (DEL and C1), the braille blank, which draws as nothing, and unpaired surrogates.
 */
const HIDDEN_CLASS =
  '[\\p{Cf}\\p{Default_Ignorable_Code_Point}\\p{Zl}\\p{Zp}\\p{Zs}\\u007f-\\u009f\\u2800\\ud800-\\udfff]';
const HIDDEN = new RegExp(`^${HIDDEN_CLASS}$`, 'u');

/**
 * The source of a regular expression (for the `u` flag) that matches one hidden character: the
 * set above without the ordinary space, unpaired surrogates included. The code editors use it, so
 * they escape exactly the characters the approval card escapes.
 */
export const HIDDEN_CHARACTER_SOURCE = `(?!\\u0020)${HIDDEN_CLASS}`;

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
  0xfffc: 'object replacement character',
};

function isSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdfff;
}

/** What a hidden code point is called (its Unicode name when known, else its kind). */
function nameOf(cp: number, char: string): string {
  const known = NAMES[cp];
  if (known !== undefined) return known;
  if (isSurrogate(cp)) return 'unpaired surrogate';
  if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) return 'control character';
  if (cp >= 0xfe00 && cp <= 0xfe0f) return `variation selector ${cp - 0xfe00 + 1}`;
  if (cp >= 0xe0100 && cp <= 0xe01ef) return `variation selector ${cp - 0xe0100 + 17}`;
  if (cp >= 0xe0000 && cp <= 0xe007f) return 'tag character';
  if (/\p{Zs}/u.test(char)) return 'space character';
  if (/\p{Cf}/u.test(char)) return 'invisible format character';
  if (/\p{M}/u.test(char)) return 'combining mark';
  return 'invisible character';
}

function hex(cp: number, digits: number): string {
  return cp.toString(16).padStart(digits, '0');
}

/** `\u202e`, or `\u{e0041}` above U+FFFF: how an escaped code point is drawn. */
export function codePointEscape(cp: number): string {
  return cp > 0xffff ? `\\u{${hex(cp, 5)}}` : `\\u${hex(cp, 4)}`;
}

function codePointLabel(cp: number): string {
  return `U+${hex(cp, 4).toUpperCase()}`;
}

/** The accessible name of an escaped hidden character or control: "U+202E right-to-left override". */
export function hiddenCharacterLabel(cp: number): string {
  return `${codePointLabel(cp)} ${nameOf(cp, String.fromCodePoint(cp))}`;
}

/**
 * The drawn text of one code point that is not hidden: a C0 control as its JSON escape, and, inside
 * a JSON string (`quoted`), a quote or a backslash escaped too.
 */
function jsonTextOf(char: string, cp: number, quoted: boolean): string {
  if (cp >= 0x20 && (!quoted || (cp !== 0x22 && cp !== 0x5c))) return char;
  return JSON.stringify(char).slice(1, -1);
}

/** The code point at `index` of `text`; an unpaired surrogate counts as a code point of its own. */
function codePointAt(text: string, index: number): number {
  return text.codePointAt(index) ?? 0;
}

function isHidden(cp: number, char: string): boolean {
  if (cp < 0x7f) return false;
  return HIDDEN.test(char);
}

const MARK = /^\p{M}$/u;

function isMark(cp: number, char: string): boolean {
  return cp >= 0x300 && MARK.test(char);
}

/** Whether `text` holds a letter of a right-to-left script, which the card draws left to right. */
export function hasRightToLeftLetters(text: string): boolean {
  return /[\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}\p{Script=Samaritan}\p{Script=Mandaic}\p{Script=Adlam}]/u.test(
    text,
  );
}

// Mixed-script words. A word is a run of letters, digits and combining marks. It is "mixed" when
// its letters come from two or more scripts, not counting the scripts that are written together
// with Latin or each other (Han, Hiragana, Katakana, Bopomofo, Hangul), as in Unicode's "highly
// restrictive" profile (UTS #39). In a mixed word the letters of every script but one are escaped:
// Latin stays when it is there, else the script with the most letters.

const SCRIPTS = [
  'Latin',
  'Greek',
  'Cyrillic',
  'Armenian',
  'Hebrew',
  'Arabic',
  'Syriac',
  'Thaana',
  'Nko',
  'Devanagari',
  'Bengali',
  'Gurmukhi',
  'Gujarati',
  'Oriya',
  'Tamil',
  'Telugu',
  'Kannada',
  'Malayalam',
  'Sinhala',
  'Thai',
  'Lao',
  'Tibetan',
  'Myanmar',
  'Georgian',
  'Hangul',
  'Ethiopic',
  'Cherokee',
  'Canadian_Aboriginal',
  'Ogham',
  'Runic',
  'Khmer',
  'Mongolian',
  'Glagolitic',
  'Tifinagh',
  'Hiragana',
  'Katakana',
  'Bopomofo',
  'Han',
  'Yi',
  'Lisu',
  'Vai',
  'Coptic',
  'Gothic',
  'Deseret',
  'Osage',
  'Adlam',
  'Old_Italic',
] as const;

const SCRIPT_OF = new RegExp(`^(?:${SCRIPTS.map((name) => `(\\p{Script=${name}})`).join('|')})$`, 'u');
/** Scripts that are written together with Latin (and with each other) in one word. */
const COMBINING_SCRIPTS = new Set<string>(['Han', 'Hiragana', 'Katakana', 'Bopomofo', 'Hangul']);
const WORD = /[\p{L}\p{N}\p{M}]+/gu;
const LETTER = /^\p{L}$/u;
const NON_ASCII = /[\u0080-\uffff]/;

/** The script of a letter ("Latin", "Cyrillic" …), "another script" when not in the list above. */
function scriptOf(char: string): string {
  if (/^[A-Za-z]$/.test(char)) return 'Latin';
  const match = SCRIPT_OF.exec(char);
  if (!match) return 'another script';
  const index = match.findIndex((group, at) => at > 0 && group !== undefined);
  return SCRIPTS[index - 1]!.replace('_', ' ');
}

/** Letters of other scripts that are drawn (nearly) like a Latin letter. */
const LOOKS_LIKE: Record<number, string> = {
  0x0430: 'a',
  0x0435: 'e',
  0x043e: 'o',
  0x0440: 'p',
  0x0441: 'c',
  0x0443: 'y',
  0x0445: 'x',
  0x0455: 's',
  0x0456: 'i',
  0x0458: 'j',
  0x04bb: 'h',
  0x0501: 'd',
  0x051b: 'q',
  0x051d: 'w',
  0x0410: 'A',
  0x0412: 'B',
  0x0415: 'E',
  0x041a: 'K',
  0x041c: 'M',
  0x041d: 'H',
  0x041e: 'O',
  0x0420: 'P',
  0x0421: 'C',
  0x0422: 'T',
  0x0425: 'X',
  0x0405: 'S',
  0x0406: 'I',
  0x0408: 'J',
  0x04c0: 'I',
  0x03bf: 'o',
  0x03bd: 'v',
  0x03c1: 'p',
  0x03b9: 'i',
  0x03c5: 'u',
  0x0391: 'A',
  0x0392: 'B',
  0x0395: 'E',
  0x0396: 'Z',
  0x0397: 'H',
  0x0399: 'I',
  0x039a: 'K',
  0x039c: 'M',
  0x039d: 'N',
  0x039f: 'O',
  0x03a1: 'P',
  0x03a4: 'T',
  0x03a5: 'Y',
  0x03a7: 'X',
  0x0555: 'O',
  0x0585: 'o',
  0x0578: 'n',
  0x057d: 'u',
};

/** "U+0430 Cyrillic small letter, like Latin a". */
function scriptLetterLabel(cp: number, char: string, script: string): string {
  const kind = char !== char.toUpperCase() ? 'small letter' : char !== char.toLowerCase() ? 'capital letter' : 'letter';
  const like = LOOKS_LIKE[cp];
  return `${codePointLabel(cp)} ${script} ${kind}${like === undefined ? '' : `, like Latin ${like}`}`;
}

/** The mixed-script words of a string: which code units to escape, and which words to mark. */
interface ScriptMarks {
  /** Escaped letters: index of the letter's first code unit → its accessible name. */
  letters: Map<number, string>;
  /** Mixed words, in order: `[start, end)` and the scripts they mix. */
  words: Array<{ start: number; end: number; scripts: string }>;
}

function scriptMarksOf(text: string): ScriptMarks {
  const marks: ScriptMarks = { letters: new Map(), words: [] };
  // Plain ASCII (and most single-script text) needs no look at scripts at all.
  if (!NON_ASCII.test(text)) return marks;
  for (const match of text.matchAll(WORD)) {
    const word = match[0];
    if (!NON_ASCII.test(word)) continue;
    const letters: Array<{ at: number; cp: number; char: string; script: string }> = [];
    const counts = new Map<string, number>();
    for (let offset = 0; offset < word.length;) {
      const cp = codePointAt(word, offset);
      const char = String.fromCodePoint(cp);
      if (LETTER.test(char)) {
        const script = scriptOf(char);
        letters.push({ at: match.index + offset, cp, char, script });
        if (!COMBINING_SCRIPTS.has(script)) counts.set(script, (counts.get(script) ?? 0) + 1);
      }
      offset += cp > 0xffff ? 2 : 1;
    }
    if (counts.size < 2) continue;
    const kept = counts.has('Latin')
      ? 'Latin'
      : [...counts].reduce((best, entry) => (entry[1] > best[1] ? entry : best))[0];
    for (const letter of letters)
      if (letter.script !== kept && !COMBINING_SCRIPTS.has(letter.script))
        marks.letters.set(letter.at, scriptLetterLabel(letter.cp, letter.char, letter.script));
    const names = [...counts.keys()];
    marks.words.push({
      start: match.index,
      end: match.index + word.length,
      scripts: `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`,
    });
  }
  return marks;
}

/**
 * Which mixed word holds a code unit: a reader for indexes that only grow (as `piecesOf` reads
 * them), so a long string with many mixed words is read once, not once per character.
 */
function mixedWordReader(marks: ScriptMarks): (index: number) => string | undefined {
  let next = 0;
  return (index) => {
    const words = marks.words;
    while (next < words.length && words[next]!.end <= index) next += 1;
    const word = words[next];
    return word !== undefined && word.start <= index ? word.scripts : undefined;
  };
}

/** Draws `text.slice(start, end)` (whole code points) as pieces. */
function piecesOf(text: string, start: number, end: number, marks: ScriptMarks, quoted = true): DisplayPiece[] {
  const pieces: DisplayPiece[] = [];
  let plain = '';
  let plainStart = start;
  let plainMixed: string | undefined;
  const mixedWordAt = mixedWordReader(marks);
  const flush = (at: number): void => {
    if (plain !== '')
      pieces.push(
        plainMixed === undefined
          ? { start: plainStart, end: at, text: plain }
          : { start: plainStart, end: at, text: plain, mixedScripts: plainMixed },
      );
    plain = '';
  };
  const addPlain = (at: number, drawn: string): void => {
    const mixed = mixedWordAt(at);
    if (plain !== '' && mixed !== plainMixed) flush(at);
    if (plain === '') {
      plainStart = at;
      plainMixed = mixed;
    }
    plain += drawn;
  };
  const addEscape = (piece: DisplayPiece): void => {
    flush(piece.start);
    const mixed = mixedWordAt(piece.start);
    pieces.push(mixed === undefined ? piece : { ...piece, mixedScripts: mixed });
  };
  /** Escapes `[from, to)`: each run of one code point one by one, or once with a count when long. */
  const addEscapedRuns = (from: number, to: number, limit: number): void => {
    let at = from;
    while (at < to) {
      const cp = codePointAt(text, at);
      const width = cp > 0xffff ? 2 : 1;
      let runEnd = at + width;
      while (runEnd < to && codePointAt(text, runEnd) === cp) runEnd += width;
      const count = (runEnd - at) / width;
      const name = hiddenCharacterLabel(cp);
      if (count > limit) {
        addEscape({ start: at, end: runEnd, text: `${codePointEscape(cp)}×${count}`, label: `${count} times ${name}` });
      } else {
        for (let one = at; one < runEnd; one += width)
          addEscape({ start: one, end: one + width, text: codePointEscape(cp), label: name });
      }
      at = runEnd;
    }
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
      } else {
        addPlain(i, ' '.repeat(count));
      }
      i = runEnd;
      continue;
    }
    if (isHidden(cp, char)) {
      let runEnd = i + width;
      while (runEnd < end && codePointAt(text, runEnd) === cp) runEnd += width;
      addEscapedRuns(i, runEnd, HIDDEN_RUN_LIMIT);
      i = runEnd;
      continue;
    }
    if (isMark(cp, char)) {
      // A run of visible combining marks; hidden ones (variation selectors …) end it.
      let runEnd = i + width;
      let count = 1;
      while (runEnd < end) {
        const next = codePointAt(text, runEnd);
        const nextChar = String.fromCodePoint(next);
        if (!isMark(next, nextChar) || isHidden(next, nextChar)) break;
        runEnd += next > 0xffff ? 2 : 1;
        count += 1;
      }
      if (count > MARK_RUN_LIMIT) addEscapedRuns(i, runEnd, HIDDEN_RUN_LIMIT);
      else addPlain(i, text.slice(i, runEnd));
      i = runEnd;
      continue;
    }
    const scriptLabel = marks.letters.get(i);
    if (scriptLabel !== undefined) {
      addEscape({ start: i, end: i + width, text: codePointEscape(cp), label: scriptLabel });
      i += width;
      continue;
    }
    addPlain(i, jsonTextOf(char, cp, quoted));
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
 * character. Empty spans are dropped. Mixed-script words are found in the whole string, so a span
 * that cuts a word does not hide that the word mixes scripts.
 */
export function displayString<Span extends StringSpan>(text: string, spans: readonly Span[]): DisplayRun<Span>[] {
  const runs: DisplayRun<Span>[] = [];
  const marks = scriptMarksOf(text);
  const push = (start: number, end: number, span: Span | null): void => {
    if (end > start) runs.push({ start, end, span, pieces: piecesOf(text, start, end, marks) });
  };
  let cursor = 0;
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  for (const span of sorted) {
    // An empty span is dropped before it is widened (inside a surrogate pair it would widen).
    if (span.end <= span.start) continue;
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

/**
 * The drawn text of a string (without its quotes), as `displayString` draws it. `raw` keeps quotes
 * and backslashes as they are, for text that is not inside a JSON string (a model's raw argument
 * text); hidden characters are escaped either way.
 */
export function displayText(text: string, options: { raw?: boolean } = {}): string {
  return piecesOf(text, 0, text.length, scriptMarksOf(text), options.raw !== true)
    .map((piece) => piece.text)
    .join('');
}
