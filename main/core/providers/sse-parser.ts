// The SSE wire format: an incremental, linear-time Server-Sent Events parser with bounded lines and events.
import type { JsonValue } from '../../../common/json.js';

/** One parsed SSE item: a dispatched event, or a line that is not valid SSE (kept verbatim). */
export type SseItem = { kind: 'event'; event: string | undefined; data: string } | { kind: 'malformed'; line: string };

/**
 * The longest SSE line, and the longest event (the data of all its lines), the parser accepts, in
 * characters. Real events are small: text and OpenAI/Anthropic tool arguments arrive in many
 * small deltas. Gemini sends a whole call's arguments in one event, and the host sends at most
 * 16 MiB to Lua in one reply, so twice that leaves room for any event a script could receive,
 * while an endless line stops long before it exhausts the host's memory.
 */
export const MAX_SSE_EVENT_CHARS = 32 * 1024 * 1024;

/** Parses an SSE `data` payload as JSON, or returns undefined when it is not JSON. */
export function parseJsonData(data: string): JsonValue | undefined {
  try {
    return JSON.parse(data) as JsonValue;
  } catch {
    return undefined;
  }
}

/** Thrown by {@link SseParser} when a line or an event is longer than its limit. */
export class SseTooLongError extends Error {
  constructor(
    readonly what: 'line' | 'event',
    readonly limitChars: number,
  ) {
    super(`an SSE ${what} longer than ${formatChars(limitChars)}`);
    this.name = 'SseTooLongError';
  }
}

/**
 * Incremental Server-Sent Events parser (WHATWG HTML §9.2), tolerant of a missing final blank line.
 * Each pushed chunk is scanned once: an unfinished line is kept as a list of pieces and joined only
 * when its end arrives, so the work is linear in the stream's length. A line or an event longer
 * than `maxEventChars` characters throws {@link SseTooLongError}.
 */
export class SseParser {
  private readonly decoder = new TextDecoder();
  private readonly maxEventChars: number;
  /** The unfinished last line, in pieces, and its length. */
  private pending: string[] = [];
  private pendingChars = 0;
  private event: string | undefined;
  private data: string[] = [];
  /** Characters of `data` joined with line feeds. */
  private dataChars = 0;
  private skipLeadingLineFeed = false;
  private out: SseItem[] = [];

  constructor(options: { maxEventChars?: number } = {}) {
    this.maxEventChars = options.maxEventChars ?? MAX_SSE_EVENT_CHARS;
  }

  /** Feeds bytes; returns the items completed by them. */
  push(bytes: Uint8Array): SseItem[] {
    this.scan(this.decoder.decode(bytes, { stream: true }));
    return this.take();
  }

  /** Ends the stream; returns what the last bytes completed. */
  end(): SseItem[] {
    this.scan(this.decoder.decode());
    if (this.pendingChars > 0) this.line(this.takePending(''));
    if (this.data.length > 0) this.dispatch();
    return this.take();
  }

  private take(): SseItem[] {
    const items = this.out;
    this.out = [];
    return items;
  }

  /** Splits newly decoded text into lines; the unfinished rest waits in `pending`. */
  private scan(text: string): void {
    let start = 0;
    if (this.skipLeadingLineFeed && text.length > 0) {
      if (text.charCodeAt(0) === 10) start = 1;
      this.skipLeadingLineFeed = false;
    }
    // Positions of the next CR and LF at or after `start` (-1: none in the rest of `text`), each
    // searched again only once passed, so a chunk is scanned once whatever its line endings.
    let cr = text.indexOf('\r', start);
    let lf = text.indexOf('\n', start);
    while (cr !== -1 || lf !== -1) {
      if (cr !== -1 && (lf === -1 || cr < lf)) {
        this.lineEnd(text, start, cr);
        if (cr + 1 < text.length) {
          start = text.charCodeAt(cr + 1) === 10 ? cr + 2 : cr + 1;
        } else {
          // A lone CR at the end of a chunk may be half of a CRLF split across chunks.
          this.skipLeadingLineFeed = true;
          start = cr + 1;
        }
      } else {
        this.lineEnd(text, start, lf);
        start = lf + 1;
      }
      if (cr !== -1 && cr < start) cr = text.indexOf('\r', start);
      if (lf !== -1 && lf < start) lf = text.indexOf('\n', start);
    }
    if (start < text.length) {
      this.checkLine(text.length - start);
      this.pending.push(text.slice(start));
      this.pendingChars += text.length - start;
    }
  }

  /** Handles the line that ends at `end` in `text` (it started in `pending`, if any). */
  private lineEnd(text: string, start: number, end: number): void {
    this.checkLine(end - start);
    const tail = text.slice(start, end);
    this.line(this.pendingChars === 0 ? tail : this.takePending(tail));
  }

  /** Throws when `more` characters would make the current line too long. */
  private checkLine(more: number): void {
    if (this.pendingChars + more > this.maxEventChars) throw new SseTooLongError('line', this.maxEventChars);
  }

  private takePending(last: string): string {
    this.pending.push(last);
    const line = this.pending.join('');
    this.pending = [];
    this.pendingChars = 0;
    return line;
  }

  private line(line: string): void {
    if (line === '') {
      if (this.data.length > 0) this.dispatch();
      else this.event = undefined;
      return;
    }
    const first = line.charCodeAt(0);
    if (first === 58 /* ':' */) return;
    // Blank-looking lines (spaces, tabs) are keep-alive padding, not fields and not malformed.
    if ((first === 32 || first === 9) && line.trim() === '') return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32 /* ' ' */) value = value.slice(1);
    switch (field) {
      case 'data':
        this.dataChars += (this.data.length > 0 ? 1 : 0) + value.length;
        if (this.dataChars > this.maxEventChars) throw new SseTooLongError('event', this.maxEventChars);
        this.data.push(value);
        return;
      case 'event':
        this.event = value;
        return;
      case 'id':
      case 'retry':
        return;
      default:
        this.out.push({ kind: 'malformed', line });
    }
  }

  private dispatch(): void {
    this.out.push({
      kind: 'event',
      event: this.event,
      data: this.data.length === 1 ? this.data[0]! : this.data.join('\n'),
    });
    this.event = undefined;
    this.data = [];
    this.dataChars = 0;
  }
}

/** A character count in words: `32 MiB`, `8 KiB`, `100 characters` (a MiB is 1,048,576 characters). */
export function formatChars(chars: number): string {
  if (chars >= 1 << 20 && chars % (1 << 20) === 0)
    return `${chars / (1 << 20)} MiB (${chars.toLocaleString('en-US')} characters)`;
  if (chars >= 1 << 10 && chars % (1 << 10) === 0)
    return `${chars / (1 << 10)} KiB (${chars.toLocaleString('en-US')} characters)`;
  return `${chars.toLocaleString('en-US')} characters`;
}
