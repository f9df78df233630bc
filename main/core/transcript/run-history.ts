import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { blankNonces } from '../../../common/envelope.js';
import { RunEventSchema, type RunEvent } from '../../../common/run-events.js';
import type { CompareRow, RunSummary } from '../../../common/studio-schemas.js';

/**
 * Reads what is readable of a transcript: every valid line up to the first broken one. A crashed
 * run's history stays readable this way (its last line may be cut off). Replay uses the strict
 * reader instead.
 */
export function readTranscriptLenient(file: string): RunEvent[] {
  const events: RunEvent[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      const parsed = RunEventSchema.safeParse(JSON.parse(line));
      if (!parsed.success) break;
      events.push(parsed.data);
    } catch {
      break;
    }
  }
  return events;
}

/** Summarises one transcript for the history list. */
export function summarizeRun(events: RunEvent[], file: string): RunSummary | undefined {
  const start = events[0];
  if (start?.type !== 'run-start') return undefined;
  const end = events.findLast((e): e is Extract<RunEvent, { type: 'run-end' }> => e.type === 'run-end');
  const rounds = events.filter((e) => e.type === 'round-response');
  const toolCalls: Record<string, number> = {};
  for (const e of events) if (e.type === 'tool-dispatch') toolCalls[e.alias] = e.count;
  let inputTokens = 0;
  let outputTokens = 0;
  for (const e of rounds) {
    inputTokens += e.usage.inputTokens;
    outputTokens += e.usage.outputTokens;
  }
  return {
    runId: start.runId,
    file,
    script: start.script.path,
    startedAt: start.t,
    status: end?.status ?? 'running',
    ...(end && { durationMs: end.durationMs }),
    ...(end?.error && { error: end.error.message }),
    toolCalls,
    rounds: rounds.length,
    inputTokens,
    outputTokens,
    ...(end?.cost !== undefined && { cost: end.cost }),
    ...(start.replayOf !== undefined && { replayOf: start.replayOf }),
  };
}

/** Summaries by transcript path, valid while the file's size and mtime are unchanged. */
const summaries = new Map<string, { size: number; mtimeMs: number; summary: RunSummary | undefined }>();

function cachedSummary(file: string, relative: string): { summary: RunSummary | undefined; mtimeMs: number } {
  const stat = statSync(file);
  const hit = summaries.get(file);
  if (hit && hit.size === stat.size && hit.mtimeMs === stat.mtimeMs) return hit;
  const entry = {
    size: stat.size,
    mtimeMs: stat.mtimeMs,
    summary: summarizeRun(readTranscriptLenient(file), relative),
  };
  summaries.set(file, entry);
  return entry;
}

/**
 * Every run in `<root>/<runsDir>`, newest first. Files that are not transcripts are skipped. A
 * transcript is read again only when it changed, so refreshing a workspace with a long history
 * stays cheap.
 */
export function listRuns(root: string, runsDir: string): RunSummary[] {
  const dir = path.join(root, runsDir);
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.jsonl'));
  } catch {
    return [];
  }
  const runs: { summary: RunSummary; mtime: number }[] = [];
  for (const name of names) {
    const { summary, mtimeMs } = cachedSummary(path.join(dir, name), path.join(runsDir, name));
    if (summary) runs.push({ summary, mtime: mtimeMs });
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

/**
 * Lines up two runs event by event (rounds, calls, outputs, logs, the end) and marks the rows that
 * differ. Nonces are blanked, so two runs of the same deterministic script compare equal.
 */
export function compareRuns(left: RunEvent[], right: RunEvent[]): CompareRow[] {
  const a = left.flatMap((e) => describe(e) ?? []);
  const b = right.flatMap((e) => describe(e) ?? []);
  const rows: CompareRow[] = [];
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const l = a[i];
    const r = b[i];
    const lt = l ? blankNonces(l.text, '…') : null;
    const rt = r ? blankNonces(r.text, '…') : null;
    rows.push({ kind: (l ?? r)!.kind, index: i + 1, left: lt, right: rt, same: lt === rt });
  }
  return rows;
}
