// Words that mix scripts (a Cyrillic "а" inside "pаypal") and right-to-left letters: what the approval card marks and escapes.
import { codePointAt, codePointLabel } from './hidden-characters.js';

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
  const index = match.findIndex((group: string | undefined, at) => at > 0 && group !== undefined);
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
export interface ScriptMarks {
  /** Escaped letters: index of the letter's first code unit → its accessible name. */
  letters: Map<number, string>;
  /** Mixed words, in order: `[start, end)` and the scripts they mix. */
  words: Array<{ start: number; end: number; scripts: string }>;
}

export function scriptMarksOf(text: string): ScriptMarks {
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
export function mixedWordReader(marks: ScriptMarks): (index: number) => string | undefined {
  let next = 0;
  return (index) => {
    const words = marks.words;
    while (next < words.length && words[next]!.end <= index) next += 1;
    const word = words[next];
    return word !== undefined && word.start <= index ? word.scripts : undefined;
  };
}
