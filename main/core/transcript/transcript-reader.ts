import { FileReadError, formatBytes, readRegularFileSync } from '../files/regular-file.js';
import { RunEventSchema, type RunEvent } from '../../../common/run-events.js';
import { errorMessage } from '../../../common/error-message.js';
import { TranscriptError } from './transcript-error.js';

export { TranscriptError } from './transcript-error.js';

/** An event with the 1-based line it was read from. */
export type LocatedEvent = RunEvent & { line: number };

/** The largest transcript read (for replay, the history list and opening a run). */
export const MAX_TRANSCRIPT_BYTES = 256 << 20;
/** The longest line read; one event (a round's request with its wire body) fits many times over. */
export const MAX_TRANSCRIPT_LINE_BYTES = 32 << 20;
/** The deepest nesting of `[` and `{` in a line; deeper values would overflow the validator's stack. */
const MAX_TRANSCRIPT_NESTING = 512;

const EVENT_TYPES: readonly string[] = RunEventSchema.options.map((option) => option.shape.type.value);
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** One line of a transcript file, as bytes. `terminated` is false for a last line with no newline. */
export interface TranscriptLine {
  line: number;
  bytes: Buffer;
  terminated: boolean;
}

/**
 * The bytes of the transcript at `file`, read without blocking (a FIFO, a device or a folder is
 * refused) and capped at {@link MAX_TRANSCRIPT_BYTES}. Throws a {@link TranscriptError} naming it.
 */
export function readTranscriptBytes(file: string): Buffer {
  try {
    return readRegularFileSync(file, MAX_TRANSCRIPT_BYTES, 'transcript');
  } catch (error) {
    if (error instanceof FileReadError) throw new TranscriptError(error.message);
    throw error;
  }
}

/**
 * The lines of a transcript. A UTF-8 byte order mark at the very start is skipped, and so is the
 * `\r` of a CRLF line ending (a recording checked out on Windows), so both are tolerated.
 */
export function* transcriptLines(bytes: Buffer): Generator<TranscriptLine> {
  let start = bytes.subarray(0, 3).equals(BOM) ? 3 : 0;
  let line = 1;
  while (start < bytes.length) {
    const newline = bytes.indexOf(0x0a, start);
    const end = newline === -1 ? bytes.length : newline;
    const contentEnd = end > start && bytes[end - 1] === 0x0d ? end - 1 : end;
    yield { line, bytes: bytes.subarray(start, contentEnd), terminated: newline !== -1 };
    start = end + 1;
    line += 1;
  }
}

/** How a Lua script's first line often starts: a comment, a local, a call of the host API. */
const LUA_START = /^\s*(--|local\s|function\s|return\b|(log|print|tools\.call|models\.chat)\s*\()/;

/** Whether a transcript line holds only spaces and tabs (stops at the first other byte). */
export function isBlankLine(bytes: Buffer): boolean {
  for (const byte of bytes) if (byte !== 0x20 && byte !== 0x09) return false;
  return true;
}

/** `text` for a message: control characters as `\u` escapes, cut to `max` characters. */
function printable(text: string, max = 160): string {
  const shown = text.replace(
    // eslint-disable-next-line no-control-regex -- escaping control characters is the point
    /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return shown.length > max ? `${shown.slice(0, max)}...` : shown;
}

/** The deepest `[`/`{` nesting in a JSON text, counting only outside strings (one linear scan). */
function nestingDepth(text: string, stopAt: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c) i += 1;
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x5b || code === 0x7b) {
      depth += 1;
      if (depth > deepest) deepest = depth;
      if (deepest > stopAt) return deepest;
    } else if (code === 0x5d || code === 0x7d) depth -= 1;
  }
  return deepest;
}

/**
 * Parses one transcript line into a run event, or says (without the file and line, which the
 * caller adds) why it is not one. Never throws, whatever the bytes.
 */
export function parseTranscriptLine(bytes: Buffer): { event: RunEvent } | { error: string } {
  if (bytes.length > MAX_TRANSCRIPT_LINE_BYTES)
    return {
      error: `the line is ${formatBytes(bytes.length)}, longer than the ${formatBytes(MAX_TRANSCRIPT_LINE_BYTES)} a transcript line may have`,
    };
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    return { error: 'not UTF-8 text (binary data in a transcript?)' };
  }
  if (text.trim() === '') return { error: 'an empty line (every line must be one run event)' };
  if (nestingDepth(text, MAX_TRANSCRIPT_NESTING) > MAX_TRANSCRIPT_NESTING)
    return { error: `the JSON is nested more than ${MAX_TRANSCRIPT_NESTING} levels deep` };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const lua = LUA_START.test(text)
      ? '; it looks like a Lua script, not a transcript (a transcript is the .jsonl a run writes under runs/ or recordings/)'
      : '';
    return { error: `not valid JSON (${printable(errorMessage(error))})${lua}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { error: `not a PromptForge run event: a line must be a JSON object, not ${describeJson(value)}` };
  const type = (value as Record<string, unknown>)['type'];
  if (typeof type !== 'string' || !EVENT_TYPES.includes(type))
    return {
      error: `not a PromptForge run event: ${typeof type === 'string' ? `unknown event type "${printable(type, 60)}"` : 'no "type" string'} (known: ${EVENT_TYPES.join(', ')})`,
    };
  const parsed = RunEventSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length > 0 ? ` at "${printable(issue.path.join('.'), 80)}"` : '';
    return { error: `not a PromptForge run event${where}: ${printable(issue.message)}` };
  }
  return { event: parsed.data };
}

function describeJson(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/**
 * Reads a JSONL transcript strictly: every line must be a valid run event, the first a
 * `run-start`, all of one run, with `seq` counting up from 1. A truncated or corrupt file is a
 * {@link TranscriptError} naming the file and line. Never blocks on a FIFO or a device.
 *
 * With `soFar`, the transcript may still be being written (a run in progress): a last line with no
 * newline is the event being written, and is left out instead of being an error.
 */
export function readTranscript(path: string, options: { soFar?: boolean } = {}): LocatedEvent[] {
  const events: LocatedEvent[] = [];
  for (const { line, bytes, terminated } of transcriptLines(readTranscriptBytes(path))) {
    if (!terminated && options.soFar) break;
    if (!terminated)
      throw new TranscriptError(
        `${path}:${line}: the last line is incomplete (no newline); the transcript was cut off while it was being written`,
      );
    const result = parseTranscriptLine(bytes);
    if ('error' in result) throw new TranscriptError(`${path}:${line}: ${result.error}`);
    const event = result.event;
    const first = events[0];
    if (!first && event.type !== 'run-start')
      throw new TranscriptError(`${path}:${line}: a transcript must begin with a run-start event, not ${event.type}`);
    if (first && event.type === 'run-start')
      throw new TranscriptError(`${path}:${line}: a second run-start; a transcript holds one run`);
    if (first && event.runId !== first.runId)
      throw new TranscriptError(
        `${path}:${line}: the event belongs to run "${printable(event.runId, 80)}", not "${first.runId}"; a transcript holds one run`,
      );
    const expectedSeq = events.length + 1;
    if (event.seq !== expectedSeq)
      throw new TranscriptError(
        `${path}:${line}: seq is ${event.seq}, expected ${expectedSeq}; events are out of order or missing`,
      );
    events.push({ ...event, line });
  }
  if (events.length === 0) throw new TranscriptError(`${path}:1: the transcript is empty (no events)`);
  return events;
}
