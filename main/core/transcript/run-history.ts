import { closeSync, readdirSync, statSync } from 'node:fs';
import { agentNameOf } from '../../../common/agent-name.js';
import path from 'node:path';
import { blankNonces } from '../../../common/envelope.js';
import type { RunEvent } from '../../../common/run-events.js';
import type {
  CatalogProblemInfo,
  ComparedRun,
  ComparePage,
  CompareRow,
  RunComparison,
  RunModel,
  RunSummary,
} from '../../../common/studio-schemas.js';
import { describeFileType, openRegularFileSync } from '../files/regular-file.js';
import { MAX_PAGE_EVENTS, readTranscriptLines, readTranscriptPage, streamTranscript } from './transcript-pages.js';
import {
  isBlankLine,
  MAX_TRANSCRIPT_BYTES,
  parseTranscriptLine,
  readTranscriptBytes,
  transcriptLines,
} from './transcript-reader.js';
import { errorMessage } from '../../../common/error-message.js';

/** What is readable of a transcript, and where (if anywhere) reading stopped early. */
export interface LenientTranscript {
  events: RunEvent[];
  /** Set when a line other than a cut-off last line is broken: `line: why`. */
  stoppedAt?: { line: number; reason: string };
}

/**
 * Reads what is readable of a transcript: every valid line up to the first broken one. A crashed
 * run's history stays readable this way (its last line may be cut off). Replay uses the strict
 * reader instead. Never blocks: a FIFO, a device or a folder is a TranscriptError naming the file,
 * and so is a file over the transcript size cap.
 */
export function readTranscriptLenient(file: string): RunEvent[] {
  return readTranscriptPartial(file).events;
}

/** {@link readTranscriptLenient}, also saying where a broken line stopped it. */
export function readTranscriptPartial(file: string): LenientTranscript {
  const events: RunEvent[] = [];
  for (const { line, bytes, terminated } of transcriptLines(readTranscriptBytes(file))) {
    if (isBlankLine(bytes)) continue;
    const result = parseTranscriptLine(bytes);
    if ('error' in result) return terminated ? { events, stoppedAt: { line, reason: result.error } } : { events };
    events.push(result.event);
  }
  return { events };
}

/** Summarises one transcript for the history list, in one pass over its events. */
export function summarizeRun(events: Iterable<RunEvent>, file: string): RunSummary | undefined {
  let start: Extract<RunEvent, { type: 'run-start' }> | undefined;
  let end: Extract<RunEvent, { type: 'run-end' }> | undefined;
  let answered: RunModel | undefined;
  let replayed = false;
  let rounds = 0;
  let inputTokens = 0;
  let outputTokens = 0;
  const toolCalls: Record<string, number> = {};
  let first = true;
  for (const e of events) {
    if (first) {
      if (e.type !== 'run-start') return undefined;
      start = e;
      first = false;
    }
    if (e.type === 'run-end') end = e;
    else if (e.type === 'round-request') {
      // A round answered from a recording says provider `replay`; the recorded model answered it.
      replayed ||= e.model.provider === 'replay';
      answered = e.model.provider === 'replay' ? (start?.model ?? e.model) : e.model;
    } else if (e.type === 'tool-dispatch') toolCalls[e.alias] = e.count;
    else if (e.type === 'round-response') {
      rounds += 1;
      inputTokens += e.usage.inputTokens;
      outputTokens += e.usage.outputTokens;
    }
  }
  if (!start) return undefined;
  return {
    runId: start.runId,
    file,
    script: start.script.path,
    agent: agentNameOf(start.script.path),
    ...((answered ?? start.model) && { model: answered ?? start.model }),
    ...((replayed || start.replayOf !== undefined) && { replayed: true }),
    startedAt: start.t,
    status: end?.status ?? 'running',
    ...(end && { durationMs: end.durationMs }),
    ...(end?.error && { error: end.error.message }),
    toolCalls,
    rounds,
    inputTokens,
    outputTokens,
    ...(end?.cost !== undefined && { cost: end.cost }),
    ...(start.replayOf !== undefined && { replayOf: start.replayOf }),
    ...(start.forkOf && {
      forkOf: { runId: start.forkOf.runId, step: start.forkOf.step, edited: start.forkOf.edit !== undefined },
    }),
  };
}

/** Summaries by transcript path, valid while the file's size and mtime are unchanged. */
const summaries = new Map<
  string,
  { size: number; mtimeMs: number; summary: RunSummary | undefined; problem: SkipReason | undefined }
>();

/** Why the history skipped a file or shows it only in part, and at which line. */
interface SkipReason {
  line: number;
  message: string;
}
const MAX_CACHED_SUMMARIES = 10_000;

function cachedSummary(
  file: string,
  relative: string,
): { summary: RunSummary | undefined; mtimeMs: number; problem: SkipReason | undefined } {
  const stat = statSync(file);
  // A FIFO or a device (or a link to one) is skipped without being opened: opening could block.
  if (!stat.isFile())
    return {
      summary: undefined,
      mtimeMs: 0,
      problem: { line: 1, message: `${relative} is ${describeFileType(stat)}, not a transcript` },
    };
  const hit = summaries.get(file);
  if (hit && hit.size === stat.size && hit.mtimeMs === stat.mtimeMs) return hit;
  let summary: RunSummary | undefined;
  let problem: SkipReason | undefined;
  try {
    // Over the cap the history skips the file (the open descriptor's size decides, as for replay).
    if (stat.size > MAX_TRANSCRIPT_BYTES) closeSync(openRegularFileSync(file, MAX_TRANSCRIPT_BYTES, 'transcript').fd);
    // Read page by page: a long run is summarised without holding its events.
    const stop: { at?: { line: number; reason: string } } = {};
    let events = 0;
    summary = summarizeRun(
      (function* counted() {
        for (const event of streamTranscript(file, file, stop)) {
          events += 1;
          yield event;
        }
      })(),
      relative,
    );
    if (stop.at)
      problem = {
        line: stop.at.line,
        message: `${relative}:${stop.at.line}: ${stop.at.reason}; the history shows only the events before this line`,
      };
    else if (!summary && events > 0)
      problem = { line: 1, message: `${relative}:1: the first event is not a run-start` };
  } catch (error) {
    problem = { line: 1, message: errorMessage(error) };
  }
  const entry = { size: stat.size, mtimeMs: stat.mtimeMs, summary, problem };
  if (summaries.size >= MAX_CACHED_SUMMARIES) summaries.clear();
  summaries.set(file, entry);
  return entry;
}

/**
 * Every run in `<root>/<runsDir>`, newest first. Files that are not transcripts are skipped; when
 * `problems` is given, each skipped or damaged file is reported there as a warning (a FIFO, a
 * device, a folder named `*.jsonl`, a file over the size cap, a broken line). A transcript is read
 * again only when it changed, so refreshing a workspace with a long history stays cheap. Never
 * blocks on a FIFO or a device.
 */
export function listRuns(root: string, runsDir: string, problems?: CatalogProblemInfo[]): RunSummary[] {
  const dir = path.join(root, runsDir);
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.jsonl'));
  } catch {
    return [];
  }
  const runs: { summary: RunSummary; mtime: number }[] = [];
  for (const name of names) {
    const relative = path.posix.join(runsDir.split(path.sep).join('/'), name);
    let entry: ReturnType<typeof cachedSummary>;
    try {
      entry = cachedSummary(path.join(dir, name), relative);
    } catch (error) {
      // Gone since readdir, or a dangling link.
      entry = {
        summary: undefined,
        mtimeMs: 0,
        problem: {
          line: 1,
          message: `${relative}: cannot be read (${(error as NodeJS.ErrnoException).code ?? errorMessage(error)}); it may be a link to a file that no longer exists`,
        },
      };
    }
    if (entry.summary) runs.push({ summary: entry.summary, mtime: entry.mtimeMs });
    if (entry.problem !== undefined)
      problems?.push({
        severity: 'warning',
        file: relative,
        pointer: '',
        line: entry.problem.line,
        column: 1,
        message: entry.problem.message,
        fix: entry.summary
          ? 'The transcript is damaged after this line; the events before it are shown.'
          : `Move ${relative} out of ${runsDir}/ if it is not a transcript; the history skips it.`,
      });
  }
  return runs
    .sort((a, b) => b.summary.startedAt.localeCompare(a.summary.startedAt) || b.mtime - a.mtime)
    .map((r) => r.summary);
}

/** A one-line, nonce-free description of an event for comparison. */
function describe(event: RunEvent): { kind: CompareRow['kind']; text: string } | undefined {
  switch (event.type) {
    case 'round-response': {
      const calls = event.toolCalls.map((c) => `${c.name}(${c.rawArguments})`).join(', ');
      return {
        kind: 'round',
        text: `${JSON.stringify(event.content)}${calls ? ` → ${calls}` : ''} [${event.finishReason}]`,
      };
    }
    case 'tool-dispatch':
      return { kind: 'call', text: `${event.alias}(${JSON.stringify(event.arguments)})` };
    // What ran when it is not what was asked: the person's edited arguments, or a denial. (Who
    // approved is not compared: a replay approves from its recording, the recording by a person.)
    case 'approval-decision':
      if (event.decision.kind === 'approve-edited')
        return {
          kind: 'call',
          text: `${event.alias} ran with edited arguments (${JSON.stringify(event.decision.arguments ?? null)})`,
        };
      if (event.decision.kind === 'deny')
        return { kind: 'call', text: `${event.alias} denied: ${event.decision.reason ?? ''}` };
      return undefined;
    case 'tool-output':
      return { kind: 'call', text: `${event.alias} → ${event.trust}: ${JSON.stringify(event.output.slice(0, 200))}` };
    case 'tool-error':
      return { kind: 'call', text: `${event.alias} ✗ ${event.stage}: ${event.message}` };
    case 'log':
      return { kind: 'log', text: event.text };
    case 'run-end':
      return { kind: 'end', text: `${event.status}${event.error ? `: ${event.error.message}` : ''}` };
    default:
      return undefined;
  }
}

/** The run-start of a transcript (its first line), or undefined when it has none. */
function runStartOf(file: string, shown: string): Extract<RunEvent, { type: 'run-start' }> | undefined {
  const first = readTranscriptPage(file, 0, 1, shown).events[0];
  return first?.type === 'run-start' ? first : undefined;
}

function comparedRun(start: Extract<RunEvent, { type: 'run-start' }> | undefined, fallbackId: string): ComparedRun {
  const script = start?.script.path ?? '';
  return {
    runId: start?.runId ?? fallbackId,
    agent: script ? agentNameOf(script) : '',
    script,
    startedAt: start?.t ?? '',
    scriptSha256: start?.script.sha256 ?? '',
  };
}

/** The comparison row (1-based) of the parent's event `step`: rows of events up to it, counted. */
function rowOfStep(parent: { file: string; shown: string }, step: number): number | null {
  let rows = 0;
  for (const event of streamTranscript(parent.file, parent.shown)) {
    if (event.seq > step) break;
    if (describe(event)) rows += 1;
    if (event.seq === step) return rows;
  }
  return null;
}

/**
 * What the headers of a comparison need: which runs the two sides are (agent, start), whether
 * they ran different scripts, and, when one is a fork of the other, the row of the fork's step.
 */
export function comparisonHeader(
  left: { file: string; shown: string; runId: string },
  right: { file: string; shown: string; runId: string },
): Omit<RunComparison, keyof ComparePage> {
  const leftStart = runStartOf(left.file, left.shown);
  const rightStart = runStartOf(right.file, right.shown);
  const l = comparedRun(leftStart, left.runId);
  const r = comparedRun(rightStart, right.runId);
  let fork: RunComparison['fork'] = null;
  const parentOf = (child: typeof leftStart, parent: ComparedRun) =>
    child?.forkOf !== undefined && child.forkOf.runId === parent.runId ? child.forkOf.step : undefined;
  const leftStep = parentOf(leftStart, r);
  const rightStep = parentOf(rightStart, l);
  if (rightStep !== undefined) fork = { side: 'right', step: rightStep, row: rowOfStep(left, rightStep) };
  else if (leftStep !== undefined) fork = { side: 'left', step: leftStep, row: rowOfStep(right, leftStep) };
  return {
    left: l,
    right: r,
    scriptsDiffer: l.script !== r.script || l.scriptSha256 !== r.scriptSha256,
    fork,
  };
}

/** Rows shown on each side of the first difference (and at the end of two runs that match). */
export const COMPARE_CONTEXT_ROWS = 50;

function* describedRows(events: Iterable<RunEvent>): Generator<{ kind: CompareRow['kind']; text: string }> {
  for (const event of events) {
    const row = describe(event);
    if (row) yield { kind: row.kind, text: blankNonces(row.text, '…') };
  }
}

/**
 * Lines up two runs event by event (rounds, calls, outputs, logs, the end) and marks the rows that
 * differ. Nonces are blanked, so two runs of the same deterministic script compare equal. Both
 * runs are read as streams, only as far as needed: without `from`, up to {@link
 * COMPARE_CONTEXT_ROWS} rows past the first difference, returning the rows around it (or the last
 * rows when the runs match); with `from` (1-based), the `count` rows from there.
 */
export function compareRuns(
  left: Iterable<RunEvent>,
  right: Iterable<RunEvent>,
  window: { from?: number; count?: number } = {},
  /** Rows already compared (by {@link compareTranscripts}' fast phase): all the same. */
  start: { index: number; rows: CompareRow[] } = { index: 0, rows: [] },
): ComparePage {
  const count = windowRows(window);
  const a = describedRows(left)[Symbol.iterator]();
  const b = describedRows(right)[Symbol.iterator]();
  const rows: CompareRow[] = [...start.rows];
  let firstDifference: number | null = null;
  let index = start.index;
  for (;;) {
    const l = a.next();
    const r = b.next();
    if (l.done && r.done) return { rows, firstDifference, compared: index, complete: true };
    index += 1;
    const lt = l.done ? null : l.value.text;
    const rt = r.done ? null : r.value.text;
    const row: CompareRow = { kind: (l.done ? r.value! : l.value).kind, index, left: lt, right: rt, same: lt === rt };
    if (!row.same && firstDifference === null) firstDifference = index;
    if (window.from !== undefined) {
      if (index >= window.from) rows.push(row);
      if (rows.length >= count) return { rows, firstDifference, compared: index, complete: false };
      continue;
    }
    rows.push(row);
    if (firstDifference === null) {
      if (rows.length > COMPARE_CONTEXT_ROWS) rows.shift();
    } else if (index >= firstDifference + COMPARE_CONTEXT_ROWS) {
      return { rows, firstDifference, compared: index, complete: false };
    }
  }
}

function windowRows(window: { count?: number }): number {
  return Math.max(1, Math.min(window.count ?? 2 * COMPARE_CONTEXT_ROWS + 1, 1000));
}

// A line as the transcript writer writes it: the run's identity (seq, time, run id) first or last,
// the event type at the start of the rest. Anchored at the line's ends, so never inside a value.
const IDENTITY_FIRST = /^\{"seq":\d+,"t":"[^"\\]*","runId":"[^"\\]*",(?="type":"([a-z-]+)")/;
const IDENTITY_LAST = /,"seq":\d+,"t":"[^"\\]*","runId":"[^"\\]*"\}$/;
const TYPE_FIRST = /^\{"type":"([a-z-]+)"/;
const IDENTITY_SCAN_BYTES = 400;
const ROW_TYPES: ReadonlySet<string> = new Set([
  'round-response',
  'tool-dispatch',
  'tool-output',
  'tool-error',
  'log',
  'run-end',
]);

/** A line without its run identity, and its event type; undefined when it is not in the writer's shape. */
function lineCore(line: Buffer): { core: Buffer; type: string } | undefined {
  const head = line.toString('latin1', 0, IDENTITY_SCAN_BYTES);
  const first = IDENTITY_FIRST.exec(head);
  if (first) return { core: line.subarray(first[0].length), type: first[1]! };
  const type = TYPE_FIRST.exec(head)?.[1];
  if (type === undefined) return undefined;
  const tailStart = Math.max(0, line.length - IDENTITY_SCAN_BYTES);
  const last = IDENTITY_LAST.exec(line.toString('latin1', tailStart));
  return last ? { core: line.subarray(0, tailStart + last.index), type } : undefined;
}

/** The comparison row of one line, nonces blanked; undefined: no row; null: not a valid event. */
function rowOfLine(line: Buffer): { kind: CompareRow['kind']; text: string } | undefined | null {
  const parsed = parseTranscriptLine(line);
  if ('error' in parsed) return null;
  const row = describe(parsed.event);
  return row && { kind: row.kind, text: blankNonces(row.text, '…') };
}

/**
 * {@link compareRuns} for two transcript files, read page by page. While the two runs agree line
 * for line, a pair of lines that is byte for byte the same apart from the run's identity needs no
 * parsing (two runs of one script mostly are); any other pair is parsed and compared as rows.
 * At the first pair that does not line up, the comparison goes on row by row as in
 * {@link compareRuns}, from there. The result is the same as {@link compareRuns}' on both streams.
 */
export function compareTranscripts(
  left: { file: string; shown: string },
  right: { file: string; shown: string },
  window: { from?: number; count?: number } = {},
): ComparePage {
  const count = windowRows(window);
  /** The last rows before the first difference (context), or the window's rows. */
  const kept: Array<{ index: number; line?: Buffer; row?: { kind: CompareRow['kind']; text: string } }> = [];
  let index = 0;
  let line = 0;
  const toRows = (): CompareRow[] =>
    kept.flatMap(({ index: at, line: bytes, row }) => {
      const described = row ?? (bytes && rowOfLine(bytes));
      return described
        ? [{ kind: described.kind, index: at, left: described.text, right: described.text, same: true }]
        : [];
    });
  scan: for (;;) {
    const l = readTranscriptLines(left.file, line, MAX_PAGE_EVENTS, left.shown);
    const r = readTranscriptLines(right.file, line, MAX_PAGE_EVENTS, right.shown);
    const pairs = Math.min(l.lines.length, r.lines.length);
    const base = line;
    for (let i = 0; i < pairs; i += 1) {
      const a = l.lines[i]!;
      const b = r.lines[i]!;
      const ca = lineCore(a);
      const cb = lineCore(b);
      let entry: (typeof kept)[number] | undefined;
      if (ca && cb && ca.type === cb.type && ca.core.equals(cb.core)) {
        if (ROW_TYPES.has(ca.type)) entry = { index: index + 1, line: a };
      } else {
        const ra = rowOfLine(a);
        const rb = rowOfLine(b);
        // A broken line, or rows that differ or do not pair up: compare row by row from here.
        if (ra === null || rb === null || (ra === undefined) !== (rb === undefined)) break scan;
        if (ra && rb) {
          if (ra.kind !== rb.kind || ra.text !== rb.text) break scan;
          entry = { index: index + 1, row: ra };
        }
      }
      line = base + i + 1;
      if (!entry) continue;
      index += 1;
      kept.push(entry);
      if (window.from === undefined) {
        if (kept.length > COMPARE_CONTEXT_ROWS) kept.shift();
      } else if (index < window.from) kept.pop();
      else if (kept.length >= count) return { rows: toRows(), firstDifference: null, compared: index, complete: false };
    }
    if (pairs === 0 || (l.complete && pairs === l.lines.length) || (r.complete && pairs === r.lines.length)) break;
  }
  return compareRuns(
    streamTranscript(left.file, left.shown, {}, line),
    streamTranscript(right.file, right.shown, {}, line),
    window,
    { index, rows: toRows() },
  );
}
