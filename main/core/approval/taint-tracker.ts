import type { JsonObject, JsonValue } from '../../../common/json.js';
import type { TaintSpan } from './approval-types.js';

/**
 * The taint rule (documented in docs/catalogs.md):
 * - an argument string is tainted where it repeats at least {@link MIN_FRAGMENT_CHARS} characters
 *   of an earlier untrusted output, compared case-insensitively;
 * - or where it contains a whole earlier untrusted output of {@link MIN_SHORT_OUTPUT_CHARS} to
 *   {@link MIN_FRAGMENT_CHARS} - 1 characters (after trimming);
 * - or where it contains an envelope tag `<untrusted_input_` / `</untrusted_input_`.
 * Fragments that are whitespace or repeat a handful of characters (`------`, `          `) are
 * ignored, so layout and boilerplate do not flag clean calls.
 */
export const MIN_FRAGMENT_CHARS = 24;
/** Shortest untrusted output that taints an argument containing all of it. */
export const MIN_SHORT_OUTPUT_CHARS = 8;

// Index every STEP-th gram of GRAM characters. Any common substring of GRAM + STEP - 1 = 23
// characters or more is then guaranteed to contain an indexed gram, so every fragment of
// MIN_FRAGMENT_CHARS (24) is found, while the index holds only one entry per STEP characters.
const GRAM = 16;
const STEP = 8;
const BASE = 0x01000193;
// Grams must show this many distinct non-space characters to be indexed or matched.
const MIN_DISTINCT = 5;
// Limits work on pathological, highly repetitive outputs.
const MAX_POSTINGS_PER_GRAM = 64;

const ENVELOPE_TAG = /<\/?untrusted_input_[0-9A-Za-z]*>?/gi;

interface Source {
  id: string;
  text: string;
}

/**
 * Remembers the untrusted outputs of one run and finds arguments that repeat them. Record every
 * untrusted tool output (its raw text, or for structured output each string value or the JSON
 * text); `check` each later call's arguments. Indexing costs O(n) per output and checking
 * O(m) per argument string, using a rolling hash over a sparse gram index.
 */
export class TaintTracker {
  private readonly sources: Source[] = [];
  private readonly index = new Map<number, number[]>();
  private readonly shortOutputs: Source[] = [];

  /** Records untrusted output `text` under `outputId` (e.g. the call id that produced it). */
  recordUntrustedOutput(outputId: string, text: string): void {
    const normalized = normalize(text);
    const trimmed = normalized.trim();
    if (
      trimmed.length >= MIN_SHORT_OUTPUT_CHARS &&
      trimmed.length < MIN_FRAGMENT_CHARS &&
      distinctNonSpace(trimmed, 0, trimmed.length) >= 3
    ) {
      this.shortOutputs.push({ id: outputId, text: trimmed });
    }
    if (normalized.length < GRAM) return;
    this.addSource(outputId, normalized);
    // The script sees untrusted output inside the envelope, where `<` is escaped as `&lt;`.
    // Index that form too so arguments copied from the envelope are recognised.
    if (normalized.includes('<')) this.addSource(outputId, normalized.replaceAll('<', '&lt;'));
  }

  /** Whether any untrusted output has been recorded. */
  get isEmpty(): boolean {
    return this.sources.length === 0 && this.shortOutputs.length === 0;
  }

  /** The tainted spans of every string inside `args` (object keys are not checked). */
  check(args: JsonObject): TaintSpan[] {
    const spans: TaintSpan[] = [];
    walkStrings(args, '', (pointer, value) => this.checkString(pointer, value, spans));
    return spans;
  }

  private addSource(id: string, text: string): void {
    const sourceIndex = this.sources.length;
    this.sources.push({ id, text });
    const high = power(BASE, GRAM - 1);
    let hash = 0;
    for (let i = 0; i < text.length; i += 1) {
      if (i >= GRAM) hash = (hash - Math.imul(text.charCodeAt(i - GRAM), high)) | 0;
      hash = (Math.imul(hash, BASE) + text.charCodeAt(i)) | 0;
      const start = i - GRAM + 1;
      if (start >= 0 && start % STEP === 0 && distinctNonSpace(text, start, start + GRAM) >= MIN_DISTINCT) {
        let postings = this.index.get(hash);
        if (!postings) {
          postings = [];
          this.index.set(hash, postings);
        }
        if (postings.length < MAX_POSTINGS_PER_GRAM * 2) postings.push(sourceIndex, start);
      }
    }
  }

  private checkString(pointer: string, value: string, spans: TaintSpan[]): void {
    for (const match of value.matchAll(ENVELOPE_TAG)) {
      spans.push({ path: pointer, start: match.index, end: match.index + match[0].length, sourceOutputId: 'envelope' });
    }
    const text = normalize(value);
    for (const short of this.shortOutputs) {
      let at = text.indexOf(short.text);
      while (at >= 0) {
        spans.push({ path: pointer, start: at, end: at + short.text.length, sourceOutputId: short.id });
        at = text.indexOf(short.text, at + short.text.length);
      }
    }
    if (text.length < GRAM || this.index.size === 0) return;
    const high = power(BASE, GRAM - 1);
    let hash = 0;
    let skipUntil = 0;
    for (let i = 0; i < text.length; i += 1) {
      if (i >= GRAM) hash = (hash - Math.imul(text.charCodeAt(i - GRAM), high)) | 0;
      hash = (Math.imul(hash, BASE) + text.charCodeAt(i)) | 0;
      const start = i - GRAM + 1;
      if (start < skipUntil || start < 0) continue;
      const postings = this.index.get(hash);
      if (!postings) continue;
      let best: { start: number; end: number; id: string } | undefined;
      for (let p = 0; p < postings.length; p += 2) {
        const source = this.sources[postings[p] ?? 0];
        const offset = postings[p + 1] ?? 0;
        if (!source || !sameRun(text, start, source.text, offset, GRAM)) continue;
        let left = start;
        let sourceLeft = offset;
        while (
          left > skipUntil &&
          sourceLeft > 0 &&
          text.charCodeAt(left - 1) === source.text.charCodeAt(sourceLeft - 1)
        ) {
          left -= 1;
          sourceLeft -= 1;
        }
        let right = start + GRAM;
        let sourceRight = offset + GRAM;
        while (
          right < text.length &&
          sourceRight < source.text.length &&
          text.charCodeAt(right) === source.text.charCodeAt(sourceRight)
        ) {
          right += 1;
          sourceRight += 1;
        }
        if (!best || right - left > best.end - best.start) best = { start: left, end: right, id: source.id };
      }
      if (best && best.end - best.start >= MIN_FRAGMENT_CHARS) {
        spans.push({ path: pointer, start: best.start, end: best.end, sourceOutputId: best.id });
        skipUntil = best.end;
      }
    }
  }
}

/**
 * Lower-cases without changing offsets (spans index into the original string). Characters whose
 * lower case has a different length are kept as they are.
 */
function normalize(text: string): string {
  const lower = text.toLowerCase();
  if (lower.length === text.length) return lower;
  let out = '';
  for (const char of text) {
    const lowered = char.toLowerCase();
    out += lowered.length === char.length ? lowered : char;
  }
  return out;
}

function sameRun(a: string, aStart: number, b: string, bStart: number, length: number): boolean {
  for (let k = 0; k < length; k += 1) if (a.charCodeAt(aStart + k) !== b.charCodeAt(bStart + k)) return false;
  return true;
}

function distinctNonSpace(text: string, start: number, end: number): number {
  const seen = new Set<number>();
  for (let i = start; i < end; i += 1) {
    const code = text.charCodeAt(i);
    if (code !== 32 && code !== 9 && code !== 10 && code !== 13) seen.add(code);
  }
  return seen.size;
}

function power(base: number, exponent: number): number {
  let result = 1;
  for (let i = 0; i < exponent; i += 1) result = Math.imul(result, base);
  return result;
}

function walkStrings(value: JsonValue, pointer: string, visit: (pointer: string, value: string) => void): void {
  if (typeof value === 'string') visit(pointer, value);
  else if (Array.isArray(value)) value.forEach((item, index) => walkStrings(item, `${pointer}/${index}`, visit));
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value))
      walkStrings(item, `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`, visit);
  }
}
