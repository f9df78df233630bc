import type { JsonObject, JsonValue } from '../../../common/json.js';
import { escapePointerSegment } from '../../../common/json-pointer.js';
import type { TaintSpan } from './approval-types.js';
import { toSkeleton, type SkeletonText } from './taint-text.js';

/**
 * The taint rule (documented in docs/catalogs.md, "The taint rule"). Texts are compared by their
 * skeleton (taint-text.ts: decoded, folded, letters and digits only). A call's arguments are
 * tainted where:
 * - they repeat at least {@link MIN_FRAGMENT_CHARS} skeleton characters of an earlier untrusted
 *   output in a row (a window of fewer than {@link MIN_DISTINCT} different characters never counts);
 * - or they contain the whole skeleton of an earlier untrusted output of
 *   {@link MIN_SHORT_OUTPUT_CHARS} to {@link MIN_FRAGMENT_CHARS} - 1 skeleton characters;
 * - or they contain an envelope tag `<untrusted_input_` / `</untrusted_input_` in any form.
 * The argument strings (object keys included) are also checked joined in argument order, so a
 * payload split across fields is found too.
 */
export const MIN_FRAGMENT_CHARS = 20;
/** Shortest untrusted output (skeleton characters) that taints an argument containing all of it. */
export const MIN_SHORT_OUTPUT_CHARS = 8;
/** A window must show this many different characters to be indexed or matched. */
export const MIN_DISTINCT = 5;
/**
 * Most distinct windows the index holds for one run: 2^22, at 12 bytes a slot and at most two
 * slots a window, 96 MiB at worst. Past it the tracker fails closed: every argument window it
 * cannot find is flagged with source {@link INDEX_FULL}.
 */
export const MAX_INDEXED_WINDOWS = 1 << 22;
/** The source id of spans flagged because the index is full. */
export const INDEX_FULL = 'taint-index-full';

const WINDOW = MIN_FRAGMENT_CHARS;
const MIN_SHORT_DISTINCT = 3;

/**
 * Remembers the untrusted outputs of one run and finds arguments that repeat them. Every distinct
 * window of {@link MIN_FRAGMENT_CHARS} skeleton characters of every output is kept once in a hash
 * set (with the first output it came from), so no repetition or ordering inside an output can
 * push another window out. Recording is O(n) per output, checking O(m) per call (plus one scan per
 * short output), memory at most {@link MAX_INDEXED_WINDOWS} windows plus one short skeleton (under
 * 20 characters) and one id per output.
 */
export class TaintTracker {
  private readonly sourceIds: string[] = [];
  private readonly windows = new WindowSet();
  private readonly shortOutputs = new Map<string, string>();
  private full = false;
  private readonly maxWindows: number;

  /** `maxWindows`: the index bound, {@link MAX_INDEXED_WINDOWS} unless lowered (tests). */
  constructor(options: { maxWindows?: number } = {}) {
    this.maxWindows = Math.min(options.maxWindows ?? MAX_INDEXED_WINDOWS, MAX_INDEXED_WINDOWS);
  }

  /**
   * Records untrusted output under `outputId` (e.g. the call id that produced it): a text as is;
   * a structured value by its object keys and string values (what the script receives), decoded.
   */
  recordUntrustedOutput(outputId: string, output: string | JsonValue): void {
    const text = typeof output === 'string' ? output : collectStrings(output).join('\n');
    const { skeleton } = toSkeleton(text, { envelopeTags: false });
    if (skeleton.length < WINDOW) {
      if (skeleton.length >= MIN_SHORT_OUTPUT_CHARS && distinct(skeleton, 0, skeleton.length) >= MIN_SHORT_DISTINCT)
        if (!this.shortOutputs.has(skeleton)) this.shortOutputs.set(skeleton, outputId);
      this.sourceIds.push(outputId);
      return;
    }
    const source = this.sourceIds.length;
    this.sourceIds.push(outputId);
    forEachWindow(skeleton, (key) => {
      if (this.full) return;
      if (this.windows.size >= this.maxWindows && !this.windows.has(key)) this.full = true;
      else this.windows.addIfAbsent(key, source);
    });
  }

  /** Whether any untrusted output has been recorded. */
  get isEmpty(): boolean {
    return this.sourceIds.length === 0;
  }

  /**
   * The tainted spans of every string inside `args`, object keys included (`key: true`). The
   * strings are checked as three joined texts, each in argument order: the values, the keys, and
   * keys and values together, so a payload split across fields (or between a key and its value)
   * is found.
   */
  check(args: JsonObject): TaintSpan[] {
    const segments: Segment[] = [];
    walk(args, '', (pointer, text, key) => segments.push({ pointer, key, text: toSkeleton(text), offset: 0 }));
    const spans = new Map<string, TaintSpan>();
    const add = (found: TaintSpan) => spans.set(JSON.stringify(found), found);
    for (const segment of segments)
      for (const tag of segment.text.envelopeTags) add(span(segment, tag.start, tag.end, 'envelope'));
    if (!this.isEmpty) {
      const values = segments.filter((segment) => !segment.key);
      const keys = segments.filter((segment) => segment.key);
      for (const view of [values, keys, segments]) if (view.length > 0) this.checkJoined(view, add);
    }
    return [...spans.values()];
  }

  private checkJoined(segments: Segment[], add: (span: TaintSpan) => void): void {
    const placed = segments.map((segment) => ({ ...segment }));
    let joined = '';
    for (const segment of placed) {
      segment.offset = joined.length;
      joined += segment.text.skeleton;
    }
    const regions: Region[] = [];
    const addRegion = (start: number, end: number, source: string) => {
      const last = regions[regions.length - 1];
      if (last && start <= last.end && last.source === source) last.end = Math.max(last.end, end);
      else regions.push({ start, end, source });
    };
    let position = 0;
    forEachWindow(
      joined,
      (key) => {
        const at = position++;
        const source = this.windows.get(key);
        if (source >= 0) addRegion(at, at + WINDOW, this.sourceIds[source] ?? '');
        else if (this.full) addRegion(at, at + WINDOW, INDEX_FULL);
      },
      () => position++,
    );
    for (const [skeleton, id] of this.shortOutputs) {
      for (let at = joined.indexOf(skeleton); at >= 0; at = joined.indexOf(skeleton, at + skeleton.length))
        regions.push({ start: at, end: at + skeleton.length, source: id });
    }
    for (const region of regions) {
      for (const segment of placed) {
        const from = Math.max(region.start, segment.offset) - segment.offset;
        const to = Math.min(region.end, segment.offset + segment.text.skeleton.length) - segment.offset;
        if (to <= from) continue;
        add(span(segment, segment.text.starts[from] ?? 0, segment.text.ends[to - 1] ?? 0, region.source));
      }
    }
  }
}

interface Segment {
  pointer: string;
  key: boolean;
  text: SkeletonText;
  /** Where the segment's skeleton starts in the joined skeleton. */
  offset: number;
}

interface Region {
  start: number;
  end: number;
  source: string;
}

function span(segment: Segment, start: number, end: number, sourceOutputId: string): TaintSpan {
  return { path: segment.pointer, start, end, sourceOutputId, ...(segment.key && { key: true }) };
}

/**
 * Calls `visit` with the 53-bit hash of every window of {@link WINDOW} characters that shows at
 * least {@link MIN_DISTINCT} different characters, in order; `skip` for the other windows.
 */
function forEachWindow(text: string, visit: (key: number) => void, skip: () => void = () => undefined): void {
  if (text.length < WINDOW) return;
  // How often each UTF-16 unit occurs in the current window, in one shared table: only the units
  // of the window are ever non-zero, and they are zeroed again before returning (the callbacks
  // never start another walk).
  const counts = WINDOW_COUNTS;
  let distinct = 0;
  let h1 = 0;
  let h2 = 0;
  let reached = 0;
  try {
    for (let i = 0; i < text.length; i += 1) {
      reached = i;
      const code = text.charCodeAt(i);
      if ((counts[code] = (counts[code] ?? 0) + 1) === 1) distinct += 1;
      h1 = (Math.imul(h1, B1) + code) | 0;
      h2 = (Math.imul(h2, B2) + code) | 0;
      if (i >= WINDOW) {
        const old = text.charCodeAt(i - WINDOW);
        h1 = (h1 - Math.imul(old, P1)) | 0;
        h2 = (h2 - Math.imul(old, P2)) | 0;
        if ((counts[old] = (counts[old] ?? 1) - 1) === 0) distinct -= 1;
      }
      if (i < WINDOW - 1) continue;
      if (distinct >= MIN_DISTINCT) visit((h1 >>> 0) * 0x200000 + ((h2 >>> 0) & 0x1fffff) || 1);
      else skip();
    }
  } finally {
    for (let i = Math.max(0, reached - WINDOW); i <= reached; i += 1) counts[text.charCodeAt(i)] = 0;
  }
}

/** {@link forEachWindow}'s count table, one slot per UTF-16 unit. */
const WINDOW_COUNTS = new Int32Array(0x10000);

// Random odd bases per process: an attacker cannot prepare colliding windows in advance.
const B1 = randomOdd();
const B2 = randomOdd();
const P1 = power(B1, WINDOW);
const P2 = power(B2, WINDOW);

function randomOdd(): number {
  return (crypto.getRandomValues(new Uint32Array(1))[0] ?? 0x01000193) | 1;
}

function power(base: number, exponent: number): number {
  let result = 1;
  for (let i = 0; i < exponent; i += 1) result = Math.imul(result, base);
  return result;
}

function distinct(text: string, start: number, end: number): number {
  return new Set(text.slice(start, end)).size;
}

/** An open-addressing hash set of 53-bit keys, each with the index of the first source seen. */
class WindowSet {
  private keys = new Float64Array(1 << 12);
  private values = new Int32Array(1 << 12);
  size = 0;

  has(key: number): boolean {
    return this.get(key) >= 0;
  }

  get(key: number): number {
    const mask = this.keys.length - 1;
    for (let slot = slotOf(key) & mask; ; slot = (slot + 1) & mask) {
      const found = this.keys[slot];
      if (found === key) return this.values[slot] ?? -1;
      if (found === 0) return -1;
    }
  }

  addIfAbsent(key: number, value: number): void {
    if ((this.size + 1) * 2 > this.keys.length) this.grow();
    const mask = this.keys.length - 1;
    for (let slot = slotOf(key) & mask; ; slot = (slot + 1) & mask) {
      const found = this.keys[slot];
      if (found === key) return;
      if (found === 0) {
        this.keys[slot] = key;
        this.values[slot] = value;
        this.size += 1;
        return;
      }
    }
  }

  private grow(): void {
    const { keys, values } = this;
    this.keys = new Float64Array(keys.length * 2);
    this.values = new Int32Array(keys.length * 2);
    this.size = 0;
    for (let i = 0; i < keys.length; i += 1) {
      const key = keys[i] ?? 0;
      if (key !== 0) this.addIfAbsent(key, values[i] ?? 0);
    }
  }
}

function slotOf(key: number): number {
  const low = key % 0x200000;
  const high = Math.floor(key / 0x200000);
  return (Math.imul(high ^ Math.imul(low, 0x9e3779b1), 0x85ebca6b) ^ (high >>> 15)) >>> 0;
}

/** The object keys and string values of `value`, depth first, in order. */
export function collectStrings(value: JsonValue, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const item of value) collectStrings(item, out);
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      out.push(key);
      collectStrings(item, out);
    }
  }
  return out;
}

function walk(value: JsonValue, pointer: string, visit: (pointer: string, text: string, key: boolean) => void): void {
  if (typeof value === 'string') visit(pointer, value, false);
  else if (Array.isArray(value)) value.forEach((item, index) => walk(item, `${pointer}/${index}`, visit));
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const member = `${pointer}/${escapePointerSegment(key)}`;
      visit(member, key, true);
      walk(item, member, visit);
    }
  }
}
