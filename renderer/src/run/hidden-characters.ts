// Characters a person cannot see, or that turn text around: which they are, their names, and how an escape of one is drawn.

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

export function codePointLabel(cp: number): string {
  return `U+${hex(cp, 4).toUpperCase()}`;
}

/** The accessible name of an escaped hidden character or control: "U+202E right-to-left override". */
export function hiddenCharacterLabel(cp: number): string {
  return `${codePointLabel(cp)} ${nameOf(cp, String.fromCodePoint(cp))}`;
}

/** The code point at `index` of `text`; an unpaired surrogate counts as a code point of its own. */
export function codePointAt(text: string, index: number): number {
  return text.codePointAt(index) ?? 0;
}

export function isHidden(cp: number, char: string): boolean {
  if (cp < 0x7f) return false;
  return HIDDEN.test(char);
}

const MARK = /^\p{M}$/u;

export function isMark(cp: number, char: string): boolean {
  return cp >= 0x300 && MARK.test(char);
}

const HIDDEN_ANYWHERE = new RegExp(HIDDEN_CHARACTER_SOURCE, 'gu');

/**
 * `text` with every hidden character drawn as its escape (`invoice\u202eaul.txt`): a name shown in
 * a list (a file, a quick open item) reads as what it is, never turned around or padded invisibly.
 */
export function escapeHidden(text: string): string {
  return text.replace(HIDDEN_ANYWHERE, (char) => codePointEscape(codePointAt(char, 0)));
}
