import { closeSync, readSync, type Stats } from 'node:fs';
import type { RunEvent } from '../../../common/run-events.js';
import type { TranscriptPage } from '../../../common/studio-schemas.js';
import { FileReadError, formatBytes, openRegularFileSync } from '../files/regular-file.js';
import { isBlankLine, MAX_TRANSCRIPT_LINE_BYTES, parseTranscriptLine, TranscriptError } from './transcript-reader.js';

/**
 * Reads a transcript by pages without holding it whole. The file is streamed once to build an
 * index of where each line starts (one float per line, in a typed array), then a page is read by
 * byte range. Indexes are cached by file and stay valid while its identity, size and mtime do; a
 * transcript that grows (a live run appending) is indexed from where the last scan stopped.
 */

/** The largest transcript paged (far above what a run writes; the index costs 8 bytes a line). */
const MAX_PAGED_TRANSCRIPT_BYTES = 8 * 1024 ** 3;
/** The most lines one page holds. */
export const MAX_PAGE_EVENTS = 5000;
/** The most bytes one page reads (a page of huge lines is cut short, always after its first line). */
const MAX_PAGE_BYTES = 64 << 20;
const SCAN_CHUNK_BYTES = 1 << 20;
const MAX_CACHED_INDEXES = 16;

/** A transcript that disappeared (deleted or renamed) while it was open. */
export class TranscriptGoneError extends TranscriptError {
  constructor(message: string) {
    super(message);
    this.name = 'TranscriptGoneError';
  }
}

interface LineIndex {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  /** `offsets[i]` is where line `i` starts; `offsets[count]` is just past the last newline. */
  offsets: Float64Array;
  count: number;
  /** Where the scan stopped: just past the last newline (the start of an unterminated tail). */
  scanned: number;
  /** The file's first bytes when indexed: a file rewritten (not appended to) no longer starts so. */
  head: Buffer;
}

const HEAD_BYTES = 256;

function readHead(fd: number): Buffer {
  const head = Buffer.alloc(HEAD_BYTES);
  return head.subarray(0, readSync(fd, head, 0, HEAD_BYTES, 0));
}

const indexes = new Map<string, LineIndex>();

function growOffsets(index: LineIndex): void {
  const next = new Float64Array(index.offsets.length * 2);
  next.set(index.offsets);
  index.offsets = next;
}

/** Indexes the file from `index.scanned` to `size`, one chunk at a time. */
function scan(fd: number, index: LineIndex, size: number): void {
  const chunk = Buffer.allocUnsafe(SCAN_CHUNK_BYTES);
  let position = index.scanned;
  while (position < size) {
    const read = readSync(fd, chunk, 0, Math.min(chunk.length, size - position), position);
    if (read === 0) break;
    let at = chunk.indexOf(0x0a, 0);
    while (at !== -1 && at < read) {
      if (index.count + 1 >= index.offsets.length) growOffsets(index);
      index.count += 1;
      index.offsets[index.count] = position + at + 1;
      at = chunk.indexOf(0x0a, at + 1);
    }
    position += read;
  }
  index.scanned = index.offsets[index.count]!;
}

function freshIndex(fd: number, stats: Stats): LineIndex {
  const head = readHead(fd);
  const bom = head.length >= 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  const offsets = new Float64Array(1024);
  offsets[0] = bom;
  return { dev: stats.dev, ino: stats.ino, size: 0, mtimeMs: 0, offsets, count: 0, scanned: bom, head };
}

/**
 * Whether the file only grew since it was indexed: it is larger, still starts with the same bytes
 * (up to {@link HEAD_BYTES}) and still has the newline the index saw last. Anything else is a
 * rewrite, indexed again from the start.
 */
function onlyGrew(fd: number, index: LineIndex, size: number): boolean {
  if (size <= index.size) return false;
  const head = readHead(fd);
  if (!head.subarray(0, index.head.length).equals(index.head)) return false;
  if (index.count === 0) return true;
  const byte = Buffer.alloc(1);
  return readSync(fd, byte, 0, 1, index.scanned - 1) === 1 && byte[0] === 0x0a;
}

/** The line index of the open file `fd`, from the cache when the file is unchanged or only grew. */
function indexFor(file: string, fd: number, stats: Stats): LineIndex {
  let index = indexes.get(file);
  const same = index && index.dev === stats.dev && index.ino === stats.ino;
  // File times tick coarsely (a rewrite within the same tick keeps size and mtime): the first bytes
  // are compared too, one small read per page.
  if (same && index!.size === stats.size && index!.mtimeMs === stats.mtimeMs && readHead(fd).equals(index!.head)) {
    indexes.delete(file);
    indexes.set(file, index!);
    return index!;
  }
  if (!same || !onlyGrew(fd, index!, stats.size)) index = freshIndex(fd, stats);
  else if (index!.head.length < HEAD_BYTES) index!.head = readHead(fd);
  scan(fd, index!, stats.size);
  index!.size = stats.size;
  index!.mtimeMs = stats.mtimeMs;
  indexes.delete(file);
  if (indexes.size >= MAX_CACHED_INDEXES) indexes.delete(indexes.keys().next().value!);
  indexes.set(file, index!);
  return index!;
}

function openTranscript(file: string, shown: string): { fd: number; stats: Stats } {
  try {
    return openRegularFileSync(file, MAX_PAGED_TRANSCRIPT_BYTES, 'transcript', shown);
  } catch (error) {
    if (error instanceof FileReadError) {
      if (error.reason === 'missing') {
        indexes.delete(file);
        throw new TranscriptGoneError(
          `${shown}: the transcript is gone (deleted or moved while it was open); the events already shown stay`,
        );
      }
      throw new TranscriptError(error.message);
    }
    throw error;
  }
}

/**
 * Lines `from` to `from + count - 1` (0-based) of the transcript at `file`, parsed into events.
 * A page past the end is empty (`complete`, with the real `total`). `shown` names the file in
 * messages. Throws {@link TranscriptGoneError} when the file no longer exists.
 */
export function readTranscriptPage(file: string, from: number, count: number, shown = file): TranscriptPage {
  const { fd, stats } = openTranscript(file, shown);
  try {
    const index = indexFor(file, fd, stats);
    const total = index.count;
    const truncatedTail = stats.size > index.scanned;
    const start = Math.min(Math.max(0, Math.floor(from)), total);
    let end = Math.min(total, start + Math.max(1, Math.min(MAX_PAGE_EVENTS, Math.floor(count))));
    const base = index.offsets[start]!;
    while (end > start + 1 && index.offsets[end]! - base > MAX_PAGE_BYTES) end -= 1;
    const page: TranscriptPage = { events: [], from: start, next: start, total, complete: false, truncatedTail };
    const firstLength = index.offsets[start + 1]! - base;
    if (end > start && firstLength > MAX_TRANSCRIPT_LINE_BYTES + 1) {
      page.stoppedAt = {
        line: start + 1,
        reason: `the line is ${formatBytes(firstLength)}, longer than the ${formatBytes(MAX_TRANSCRIPT_LINE_BYTES)} a transcript line may have`,
      };
    } else if (end > start) {
      const bytes = Buffer.allocUnsafe(index.offsets[end]! - base);
      const read = readSync(fd, bytes, 0, bytes.length, base);
      for (let line = start; line < end; line += 1) {
        const lineStart = index.offsets[line]! - base;
        let lineEnd = index.offsets[line + 1]! - base - 1;
        if (lineEnd > read) {
          // Shrunk between fstat and read: serve what was read; the next page re-indexes.
          indexes.delete(file);
          break;
        }
        if (lineEnd > lineStart && bytes[lineEnd - 1] === 0x0d) lineEnd -= 1;
        const text = bytes.subarray(lineStart, lineEnd);
        page.next = line + 1;
        if (isBlankLine(text)) continue;
        const result = parseTranscriptLine(text);
        if ('error' in result) {
          page.next = line;
          page.stoppedAt = { line: line + 1, reason: result.error };
          break;
        }
        page.events.push(result.event);
      }
    }
    page.complete = page.stoppedAt !== undefined || page.next >= total;
    return page;
  } finally {
    closeSync(fd);
  }
}

/**
 * Every event of the transcript at `file`, one page at a time, so a caller that stops early (a
 * comparison that found its difference) never reads the rest. Stops at a broken line, and
 * records it in `stop.at` when `stop` is given.
 */
export function* streamTranscript(
  file: string,
  shown = file,
  stop: { at?: { line: number; reason: string } } = {},
  start = 0,
): Generator<RunEvent> {
  let from = start;
  for (;;) {
    const page = readTranscriptPage(file, from, MAX_PAGE_EVENTS, shown);
    yield* page.events;
    if (page.stoppedAt) stop.at = page.stoppedAt;
    if (page.complete || page.next === from) return;
    from = page.next;
  }
}

/**
 * Lines `from` to `from + count - 1` (0-based) of the transcript at `file` as raw bytes, without
 * parsing them (a CRLF's `\r` is dropped; the cut-off tail is never included). For readers that
 * can often decide without parsing (comparing two runs line by line).
 */
export function readTranscriptLines(
  file: string,
  from: number,
  count: number,
  shown = file,
): { lines: Buffer[]; next: number; complete: boolean } {
  const { fd, stats } = openTranscript(file, shown);
  try {
    const index = indexFor(file, fd, stats);
    const start = Math.min(Math.max(0, Math.floor(from)), index.count);
    let end = Math.min(index.count, start + Math.max(1, Math.min(MAX_PAGE_EVENTS, Math.floor(count))));
    const base = index.offsets[start]!;
    while (end > start + 1 && index.offsets[end]! - base > MAX_PAGE_BYTES) end -= 1;
    const lines: Buffer[] = [];
    if (end > start && index.offsets[start + 1]! - base <= MAX_TRANSCRIPT_LINE_BYTES + 1) {
      const bytes = Buffer.allocUnsafe(index.offsets[end]! - base);
      const read = readSync(fd, bytes, 0, bytes.length, base);
      for (let line = start; line < end; line += 1) {
        const lineStart = index.offsets[line]! - base;
        let lineEnd = index.offsets[line + 1]! - base - 1;
        if (lineEnd > read) break;
        if (lineEnd > lineStart && bytes[lineEnd - 1] === 0x0d) lineEnd -= 1;
        lines.push(bytes.subarray(lineStart, lineEnd));
      }
    }
    const next = start + lines.length;
    return { lines, next, complete: next >= index.count };
  } finally {
    closeSync(fd);
  }
}

/** Forgets every cached index (for tests and memory measurements). */
export function clearTranscriptIndexes(): void {
  indexes.clear();
}
