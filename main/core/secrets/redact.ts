/**
 * The one redaction of secrets (provider keys, http tool header secrets, secret-looking command
 * environment values). Every event, transcript line, reply to the script and run error passes
 * through it once, in the run; adapters and tools use it on the messages they build.
 *
 * What is caught, for a secret of L characters (see docs/threat-model.md, "Tools and secrets"):
 *
 * - the secret itself, in any letter case (`SK-ABC...` matches `sk-abc...`);
 * - the secret with characters escaped: URL (`%2F`, `%252F`, any hex case), JSON and JavaScript
 *   (`\/`, `\"`, `\u0041`, `\u{41}`, `\x41`, doubled backslashes), Lua (`\65`) and HTML (`&#x41;`,
 *   `&#65;`);
 * - the secret with separators inserted: whitespace, invisible characters (zero-width space, soft
 *   hyphen, BOM...), quotes and commas are skipped when comparing, so a key broken over lines,
 *   a JSON array of chunks and `"sk-ab" "cd..."` are caught;
 * - any fragment of at least {@link fragmentLength}(L) characters (8 for L >= 16), anywhere, so a
 *   key returned in halves, or partly masked (`sk-proj-****6789`), is cut where it appears;
 * - the base64 (standard and URL-safe, at any byte alignment, so `Basic base64(user:key)` is
 *   caught) and hex encodings of the secret, and their fragments of matching size.
 *
 * Secrets shorter than {@link MIN_SECRET_LENGTH} characters are ignored: they would shred
 * ordinary text and protect nothing. What is not caught: fragments shorter than the fragment
 * length, pieces separated by other characters, and deliberate re-encodings (reversed, rot13,
 * encrypted). Redaction is the last line; secrets are kept out of events in the first place.
 */

/** What a redacted span is replaced with. */
export const REDACTED = '[redacted]';

/** Secrets shorter than this are not redacted. */
const MIN_SECRET_LENGTH = 4;

/**
 * The shortest fragment of a secret of `length` characters that is redacted on its own:
 * 8 for secrets of 16 characters or more, half the secret (rounded down) for 12 to 15, and the
 * whole secret below 12 (only complete occurrences are redacted).
 */
export function fragmentLength(length: number): number {
  if (length >= 16) return 8;
  if (length >= 12) return Math.floor(length / 2);
  return length;
}

/** Returns `text` with every form of every secret (see the module comment) replaced by {@link REDACTED}. */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  return compile(secrets).redact(text);
}

/**
 * Returns `value` with every string in it (object keys included) redacted; the same object when
 * nothing changed. For JSON-like values: events, replies, error objects.
 */
export function redactDeep<T>(value: T, secrets: readonly (string | undefined)[]): T {
  const redactor = compile(secrets);
  if (redactor.empty) return value;
  return walk(value, redactor) as T;
}

function walk(value: unknown, redactor: Redactor): unknown {
  if (typeof value === 'string') return redactor.redact(value);
  if (Array.isArray(value)) {
    const out = value.map((item) => walk(item, redactor));
    return out.some((clean, index) => clean !== value[index]) ? out : value;
  }
  if (value !== null && typeof value === 'object') {
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const cleanKey = redactor.redact(key);
      const clean = walk(item, redactor);
      if (clean !== item || cleanKey !== key) changed = true;
      // defineProperty, not assignment: a "__proto__" key stays a plain key.
      Object.defineProperty(out, cleanKey, { value: clean, enumerable: true, writable: true, configurable: true });
    }
    return changed ? out : value;
  }
  return value;
}

/** A secret form to look for: normalized code units, and the shortest run that counts. */
interface Needle {
  codes: Uint16Array;
  min: number;
}

interface Redactor {
  empty: boolean;
  redact(text: string): string;
}

/** Compiled lists by their secrets; a few runs at a time use a few lists. */
const cache = new Map<string, Redactor>();
const CACHE_SIZE = 16;

/** The needles of `secrets`, compiled once per distinct list (runs redact every event with the same list). */
function compile(secrets: readonly (string | undefined)[]): Redactor {
  const usable = [
    ...new Set(secrets.filter((s): s is string => typeof s === 'string' && s.length >= MIN_SECRET_LENGTH)),
  ];
  const key = usable.join('\u0000');
  const hit = cache.get(key);
  if (hit) return hit;
  const needles = usable.flatMap(needlesOf).filter((needle) => needle.min > 0 && needle.codes.length >= needle.min);
  const redactor: Redactor =
    needles.length === 0 ? { empty: true, redact: (text) => text } : { empty: false, redact: matcher(needles) };
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
  cache.set(key, redactor);
  return redactor;
}

function needlesOf(secret: string): Needle[] {
  const plain = decode(secret).codes;
  const min = fragmentLength(plain.length);
  const whole = min >= plain.length;
  const needles: Needle[] = [{ codes: plain, min }];
  const derived = (form: string, ratio: number) => {
    const codes = decode(form).codes;
    // Derived forms shorter than 8 would match ordinary text; the plain form still covers them.
    if (codes.length < 8) return;
    needles.push({ codes, min: whole ? codes.length : Math.min(codes.length, Math.ceil(min * ratio)) });
  };
  const bytes = Buffer.from(secret, 'utf8');
  for (const core of base64Cores(bytes)) {
    derived(core, 4 / 3);
    derived(core.replaceAll('+', '-').replaceAll('/', '_'), 4 / 3);
  }
  derived(bytes.toString('hex'), 2);
  return needles;
}

/**
 * The base64 characters that depend only on `bytes`, when they sit at each of the three byte
 * alignments inside a longer encoded text (the first and last characters also carry neighbours' bits).
 */
function base64Cores(bytes: Buffer): string[] {
  const cores: string[] = [];
  for (let offset = 0; offset < 3; offset += 1) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes])
      .toString('base64')
      .replace(/=+$/, '');
    const head = Math.ceil((offset * 8) / 6);
    const tailCut = ((offset + bytes.length) * 8) % 6 === 0 ? 0 : 1;
    cores.push(encoded.slice(head, encoded.length - tailCut));
  }
  return cores;
}

/** Text decoded for comparison: one folded code per kept unit, and each unit's span in the original. */
interface Decoded {
  codes: Uint16Array;
  start: Uint32Array;
  end: Uint32Array;
  length: number;
}

const HEX = /^[0-9a-fA-F]+$/;
const isHexPair = (text: string): boolean => text.length === 2 && HEX.test(text);

function isSeparator(code: number): boolean {
  return (
    code <= 0x20 ||
    code === 0x22 || // "
    code === 0x27 || // '
    code === 0x2c || // ,
    code === 0x60 || // `
    code === 0x7f ||
    code === 0x85 ||
    code === 0xa0 ||
    code === 0xad ||
    code === 0x1680 ||
    code === 0x180e ||
    (code >= 0x2000 && code <= 0x200f) ||
    (code >= 0x2028 && code <= 0x202f) ||
    (code >= 0x205f && code <= 0x2064) ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

const ESCAPED_SEPARATORS = new Set(['n', 'r', 't', 'b', 'f', 'v']);

/** Length and code of an escape starting at `text[i]`, or undefined when there is none. */
function escapeAt(text: string, i: number): { length: number; code: number } | undefined {
  const c = text[i];
  if (c === '%') {
    // `%2541` is `%41` encoded again: any number of `25` layers.
    let j = i + 1;
    while (text.startsWith('25', j) && isHexPair(text.slice(j + 2, j + 4))) j += 2;
    const hex = text.slice(j, j + 2);
    return isHexPair(hex) ? { length: j + 2 - i, code: parseInt(hex, 16) } : undefined;
  }
  if (c === '&' && text[i + 1] === '#') {
    const match = /^&#(?:[xX]([0-9a-fA-F]{1,6})|([0-9]{1,7}));?/.exec(text.slice(i, i + 12));
    if (!match) return undefined;
    const code = match[1] !== undefined ? parseInt(match[1], 16) : Number(match[2]);
    return { length: match[0].length, code: code > 0xffff ? 0xfffd : code };
  }
  if (c === '\\') {
    let j = i;
    while (text[j] === '\\') j += 1;
    const next = text[j];
    if (next === undefined) return undefined;
    if (next === 'u' && text[j + 1] === '{') {
      const match = /^\{([0-9a-fA-F]{1,6})\}/.exec(text.slice(j + 1, j + 10));
      if (match) {
        const code = parseInt(match[1]!, 16);
        return { length: j + 1 + match[0].length - i, code: code > 0xffff ? 0xfffd : code };
      }
      return undefined;
    }
    if (next === 'u' || next === 'x') {
      const digits = next === 'u' ? 4 : 2;
      const hex = text.slice(j + 1, j + 1 + digits);
      if (hex.length === digits && HEX.test(hex)) return { length: j + 1 + digits - i, code: parseInt(hex, 16) };
      return undefined;
    }
    if (next === '/' || next === '"' || next === "'" || next === '`')
      return { length: j + 1 - i, code: next.charCodeAt(0) };
    if (ESCAPED_SEPARATORS.has(next)) return { length: j + 1 - i, code: 0x20 };
    const decimal = /^[0-9]{1,3}/.exec(text.slice(j, j + 3));
    if (decimal && Number(decimal[0]) <= 255) return { length: j + decimal[0].length - i, code: Number(decimal[0]) };
    return undefined;
  }
  return undefined;
}

function decode(text: string): Decoded {
  const codes = new Uint16Array(text.length);
  const start = new Uint32Array(text.length);
  const end = new Uint32Array(text.length);
  let length = 0;
  let i = 0;
  while (i < text.length) {
    const raw = text.charCodeAt(i);
    const escape = raw === 0x25 || raw === 0x26 || raw === 0x5c ? escapeAt(text, i) : undefined;
    const code = escape ? escape.code : raw;
    const size = escape ? escape.length : 1;
    if (!isSeparator(code)) {
      codes[length] = code >= 0x41 && code <= 0x5a ? code + 0x20 : code;
      start[length] = i;
      end[length] = i + size;
      length += 1;
    }
    i += size;
  }
  return { codes: codes.subarray(0, length), start, end, length };
}

const HASH_BASE = 0x9e3779b1;
const FILTER_WORDS = 1 << 14;

function hashOf(codes: Uint16Array, from: number, count: number): number {
  let hash = 0;
  for (let k = 0; k < count; k += 1) hash = (Math.imul(hash, HASH_BASE) + codes[from + k]!) | 0;
  return hash;
}

/**
 * A scanner over decoded text. Every needle's grams of `gram` units (the shortest `min` of any
 * needle) are indexed by hash; at each position of the text the candidates are extended as far
 * as they match, and the longest one that reaches its needle's `min` is cut. Scanning goes on
 * after the cut, so what stays visible holds no fragment of `min` units or more.
 */
function matcher(needles: Needle[]): (text: string) => string {
  const gram = Math.min(...needles.map((needle) => needle.min));
  const index = new Map<number, [number, number][]>();
  // A bit per hash bucket: most text positions are dismissed without a map lookup.
  const filter = new Uint32Array(FILTER_WORDS);
  const mayHold = (hash: number) => (filter[(hash >>> 5) & (FILTER_WORDS - 1)]! & (1 << (hash & 31))) !== 0;
  // B^(gram-1), to roll the hash one position on.
  let lead = 1;
  for (let k = 1; k < gram; k += 1) lead = Math.imul(lead, HASH_BASE);
  needles.forEach((needle, n) => {
    for (let offset = 0; offset + gram <= needle.codes.length; offset += 1) {
      const hash = hashOf(needle.codes, offset, gram);
      filter[(hash >>> 5) & (FILTER_WORDS - 1)]! |= 1 << (hash & 31);
      const list = index.get(hash);
      if (list) list.push([n, offset]);
      else index.set(hash, [[n, offset]]);
    }
  });

  return (text: string): string => {
    if (text.length < gram) return text;
    const decoded = decode(text);
    const { codes } = decoded;
    const spans: [number, number][] = [];
    let i = 0;
    let hash = hashOf(codes, 0, gram);
    while (i + gram <= decoded.length) {
      const candidates = mayHold(hash) ? index.get(hash) : undefined;
      let best = 0;
      if (candidates) {
        for (const [n, offset] of candidates) {
          const needle = needles[n]!;
          let length = 0;
          while (
            i + length < decoded.length &&
            offset + length < needle.codes.length &&
            codes[i + length] === needle.codes[offset + length]
          )
            length += 1;
          if (length >= needle.min && length > best) best = length;
        }
      }
      if (best > 0) {
        const from = decoded.start[i]!;
        const to = decoded.end[i + best - 1]!;
        const last = spans[spans.length - 1];
        if (last && last[1] >= from) last[1] = Math.max(last[1], to);
        else spans.push([from, to]);
        i += best;
        if (i + gram <= decoded.length) hash = hashOf(codes, i, gram);
      } else {
        if (i + gram < decoded.length)
          hash = (Math.imul(hash - Math.imul(codes[i]!, lead), HASH_BASE) + codes[i + gram]!) | 0;
        i += 1;
      }
    }
    if (spans.length === 0) return text;
    let out = '';
    let at = 0;
    for (const [from, to] of spans) {
      out += text.slice(at, from) + REDACTED;
      at = to;
    }
    return out + text.slice(at);
  };
}
