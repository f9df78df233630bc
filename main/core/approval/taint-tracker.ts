import type { JsonObject, JsonValue } from '../../../common/json.js';
import { escapePointerSegment } from '../../../common/json-pointer.js';
import type { TaintSpan } from '../../../common/run-events.js';
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
 * The sink rule (docs/catalogs.md, "Sinks"): an argument marked as a sink (recipient, URL, path,
 * command) is tainted where it repeats {@link SINK_FRAGMENT_CHARS} skeleton characters of an
 * earlier untrusted output in a row, or the whole skeleton of an untrusted output of
 * {@link MIN_SINK_SHORT_CHARS} to {@link SINK_FRAGMENT_CHARS} - 1 characters; the checks of the
 * taint rule (joined fields, object keys, decoding) apply as they do there.
 */
export const SINK_FRAGMENT_CHARS = 8;
/** Shortest untrusted output (skeleton characters) that taints a sink containing all of it. */
export const MIN_SINK_SHORT_CHARS = 4;
/** Most distinct sink windows held: 2^21 (at most 48 MiB); past it every sink window not found is flagged. */
export const MAX_SINK_WINDOWS = 1 << 21;
/** Most short outputs held for sinks; past it every sink of {@link MIN_SINK_SHORT_CHARS} characters or more is flagged. */
export const MAX_SINK_SHORT_OUTPUTS = 4096;
const SINK_MIN_DISTINCT = 3;

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
  private readonly sinkWindows = new WindowSet();
  private readonly sinkShort = new Map<string, number>();
  private sinkFull = false;
  private readonly maxSinkWindows: number;

  /** `maxWindows`, `maxSinkWindows`: the index bounds, lowered only by tests. */
  constructor(options: { maxWindows?: number; maxSinkWindows?: number } = {}) {
    this.maxWindows = Math.min(options.maxWindows ?? MAX_INDEXED_WINDOWS, MAX_INDEXED_WINDOWS);
    this.maxSinkWindows = Math.min(options.maxSinkWindows ?? MAX_SINK_WINDOWS, MAX_SINK_WINDOWS);
  }

  /**
   * Records untrusted output under `outputId` (e.g. the call id that produced it): a text as is;
   * a structured value by its object keys and string values (what the script receives), decoded.
   */
  recordUntrustedOutput(outputId: string, output: string | JsonValue): void {
    const text = typeof output === 'string' ? output : collectStrings(output).join('\n');
    const { skeleton } = toSkeleton(text, { envelopeTags: false });
    this.recordForSinks(skeleton, this.sourceIds.length);
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

  private recordForSinks(skeleton: string, source: number): void {
    if (skeleton.length < SINK_FRAGMENT_CHARS) {
      if (skeleton.length < MIN_SINK_SHORT_CHARS || distinct(skeleton, 0, skeleton.length) < SINK_MIN_DISTINCT) return;
      if (this.sinkShort.has(skeleton)) return;
      if (this.sinkShort.size >= MAX_SINK_SHORT_OUTPUTS) this.sinkFull = true;
      else this.sinkShort.set(skeleton, source);
      return;
    }
    forEachWindowOf(SINK, skeleton, (key) => {
      if (this.sinkFull) return;
      if (this.sinkWindows.size >= this.maxSinkWindows && !this.sinkWindows.has(key)) this.sinkFull = true;
      else this.sinkWindows.addIfAbsent(key, source);
    });
  }

  /**
   * The tainted spans inside the sinks of `args` (by JSON pointer; a span counts when it lies at or
   * under one), at the sink rule's lower threshold ({@link SINK_FRAGMENT_CHARS}). The strings are
   * joined as in {@link check} (values, keys, both), so a fragment split between a sink and another
   * field, or hidden in a key under the sink, counts. Linear in the arguments' length.
   */
  checkSinks(args: JsonObject, sinks: readonly string[]): TaintSpan[] {
    if (sinks.length === 0 || this.isEmpty) return [];
    const segments = this.segmentsOf(args);
    const spans = new Map<string, TaintSpan>();
    const add = (found: TaintSpan) => {
      if (underAny(found.path, sinks)) spans.set(JSON.stringify(found), found);
    };
    const values = segments.filter((segment) => !segment.key);
    const keys = segments.filter((segment) => segment.key);
    for (const view of [values, keys, segments])
      if (view.length > 0 && view.some((segment) => underAny(segment.pointer, sinks))) this.checkSinkJoined(view, add);
    return [...spans.values()];
  }

  private checkSinkJoined(segments: Segment[], add: (span: TaintSpan) => void): void {
    const { placed, joined } = joinSegments(segments);
    const regions: Region[] = [];
    let position = 0;
    forEachWindowOf(
      SINK,
      joined,
      (key) => {
        const at = position++;
        const source = this.sinkWindows.get(key);
        if (source >= 0) regions.push({ start: at, end: at + SINK.width, source: this.sourceIds[source] ?? '' });
        else if (this.sinkFull) regions.push({ start: at, end: at + SINK.width, source: INDEX_FULL });
      },
      () => position++,
    );
    if (this.sinkFull && joined.length >= MIN_SINK_SHORT_CHARS && joined.length < SINK.width)
      regions.push({ start: 0, end: joined.length, source: INDEX_FULL });
    for (const [skeleton, source] of this.sinkShort)
      for (let at = joined.indexOf(skeleton); at >= 0; at = joined.indexOf(skeleton, at + skeleton.length))
        regions.push({ start: at, end: at + skeleton.length, source: this.sourceIds[source] ?? '' });
    mapRegions(regions, placed, add);
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
    const segments = this.segmentsOf(args);
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

  /**
   * Every string of `args` (keys included) as a segment, plus the decoding of each base64-looking
   * run in it (up to two levels), mapped back to the run's range.
   */
  private segmentsOf(args: JsonObject): Segment[] {
    const segments: Segment[] = [];
    walk(args, '', (pointer, text, key) => {
      segments.push({ pointer, key, text: toSkeleton(text), offset: 0 });
      for (const decoded of base64Runs(text)) segments.push({ pointer, key, text: decoded, offset: 0 });
    });
    return segments;
  }

  private checkJoined(segments: Segment[], add: (span: TaintSpan) => void): void {
    const { placed, joined } = joinSegments(segments);
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
    mapRegions(regions, placed, add);
  }
}

/** The segments placed one after another, and their joined skeleton. */
function joinSegments(segments: Segment[]): { placed: Segment[]; joined: string } {
  const placed = segments.map((segment) => ({ ...segment }));
  let joined = '';
  for (const segment of placed) {
    segment.offset = joined.length;
    joined += segment.text.skeleton;
  }
  return { placed, joined };
}

/** Each region of the joined skeleton as a span of every segment it overlaps. */
function mapRegions(regions: Region[], placed: Segment[], add: (span: TaintSpan) => void): void {
  for (const region of regions) {
    for (const segment of placed) {
      const from = Math.max(region.start, segment.offset) - segment.offset;
      const to = Math.min(region.end, segment.offset + segment.text.skeleton.length) - segment.offset;
      if (to <= from) continue;
      add(span(segment, segment.text.starts[from] ?? 0, segment.text.ends[to - 1] ?? 0, region.source));
    }
  }
}

/** Whether `pointer` is one of `roots` or below one. */
export function underAny(pointer: string, roots: readonly string[]): boolean {
  return roots.some((root) => root === '' || pointer === root || pointer.startsWith(`${root}/`));
}

/** Shortest run of base64 characters decoded (shorter runs are words, ids, hashes). */
const MIN_BASE64_RUN = 12;
const BASE64_RUN = /[A-Za-z0-9+/_-]{12,}={0,2}/g;
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The skeleton of the decoding of each base64 (or base64url) run of `text` that decodes to UTF-8
 * text, each character mapped to the whole run; a decoding that is itself base64 is decoded once
 * more. Linear: the decodings are shorter than the text.
 */
function base64Runs(text: string, depth = 0): SkeletonText[] {
  if (text.length < MIN_BASE64_RUN || depth > 1) return [];
  const out: SkeletonText[] = [];
  for (const match of text.matchAll(BASE64_RUN)) {
    const run = match[0];
    const start = match.index;
    let decoded: string;
    try {
      decoded = STRICT_UTF8.decode(Buffer.from(run, 'base64'));
    } catch {
      continue;
    }
    // Text, not bytes: mostly printable characters.
    let printable = 0;
    for (const ch of decoded) if (ch >= ' ' || ch === '\n' || ch === '\t') printable += 1;
    if (decoded.length === 0 || printable < decoded.length * 0.9) continue;
    for (const found of [toSkeleton(decoded), ...base64Runs(decoded, depth + 1)])
      out.push({ ...found, starts: found.starts.fill(start), ends: found.ends.fill(start + run.length) });
  }
  return out;
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
  forEachWindowOf(MAIN, text, visit, skip);
}

/** A window shape: its width, the fewest distinct characters it needs, and the hash powers. */
interface WindowShape {
  width: number;
  minDistinct: number;
  p1: number;
  p2: number;
}

/** {@link forEachWindow} for windows of `shape`. */
function forEachWindowOf(
  shape: WindowShape,
  text: string,
  visit: (key: number) => void,
  skip: () => void = () => undefined,
): void {
  const { width, minDistinct, p1, p2 } = shape;
  if (text.length < width) return;
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
      if (i >= width) {
        const old = text.charCodeAt(i - width);
        h1 = (h1 - Math.imul(old, p1)) | 0;
        h2 = (h2 - Math.imul(old, p2)) | 0;
        if ((counts[old] = (counts[old] ?? 1) - 1) === 0) distinct -= 1;
      }
      if (i < width - 1) continue;
      if (distinct >= minDistinct) visit((h1 >>> 0) * 0x200000 + ((h2 >>> 0) & 0x1fffff) || 1);
      else skip();
    }
  } finally {
    for (let i = Math.max(0, reached - width); i <= reached; i += 1) counts[text.charCodeAt(i)] = 0;
  }
}

/** {@link forEachWindow}'s count table, one slot per UTF-16 unit. */
const WINDOW_COUNTS = new Int32Array(0x10000);

// Random odd bases per process: an attacker cannot prepare colliding windows in advance.
const B1 = randomOdd();
const B2 = randomOdd();
const MAIN: WindowShape = { width: WINDOW, minDistinct: MIN_DISTINCT, p1: power(B1, WINDOW), p2: power(B2, WINDOW) };
const SINK: WindowShape = {
  width: SINK_FRAGMENT_CHARS,
  minDistinct: SINK_MIN_DISTINCT,
  p1: power(B1, SINK_FRAGMENT_CHARS),
  p2: power(B2, SINK_FRAGMENT_CHARS),
};

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
