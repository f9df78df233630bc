/**
 * How a string argument is drawn on an approval card: as its JSON text, except that characters a
 * person cannot see, or that change the direction of the text around them, are drawn as visible
 * escapes, and long runs of one such character (or of ordinary spaces) are drawn once with a count.
 * Stacks of more than two combining marks on one character are escaped (they would draw over the
 * lines around them), and so are the letters of a word that mixes scripts (a Cyrillic "а" inside
 * "pаypal"), whose pieces are flagged so the word can be marked. Taint spans are offsets into the
 * raw string; the result keeps them exact. Pure, so it is tested in Node
 * (test/node/renderer/run/argument-display.test.ts).
 */

import { codePointAt, codePointEscape, hiddenCharacterLabel, isHidden, isMark } from './hidden-characters.js';
import { mixedWordReader, scriptMarksOf, type ScriptMarks } from './mixed-script.js';

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
const SPACE_RUN_LIMIT = 8;
/** One hidden character in a row is escaped one by one up to this many, and as `\uXXXX×N` beyond. */
const HIDDEN_RUN_LIMIT = 3;
/** Combining marks in a row are drawn as they are up to this many; a longer run is escaped. */
const MARK_RUN_LIMIT = 2;

/**
 * The drawn text of one code point that is not hidden: a C0 control as its JSON escape, and, inside
 * a JSON string (`quoted`), a quote or a backslash escaped too.
 */
function jsonTextOf(char: string, cp: number, quoted: boolean): string {
  if (cp >= 0x20 && (!quoted || (cp !== 0x22 && cp !== 0x5c))) return char;
  return JSON.stringify(char).slice(1, -1);
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
