import { cpSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const examples = path.join(root, 'examples');
export const bin = path.join(root, 'main/cli/promptforge.mjs');

/** The lines of a real recording (echo-loop: two rounds with tool calls, approvals and outputs). */
export function recordingLines(): Record<string, unknown>[] {
  return readFileSync(path.join(examples, 'recordings/echo-loop.jsonl'), 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** JSONL text for `events`, with `seq` renumbered from 1 unless `keepSeq`. */
export function jsonl(events: Record<string, unknown>[], keepSeq = false): string {
  return events.map((event, index) => `${JSON.stringify(keepSeq ? event : { ...event, seq: index + 1 })}\n`).join('');
}

/** The 1-based line of the first event matching `test`. */
function lineOf(events: Record<string, unknown>[], test: (event: Record<string, unknown>) => boolean): number {
  const index = events.findIndex(test);
  if (index < 0) throw new Error('no such event in the recording');
  return index + 1;
}

/** A temporary copy of the example workspace (agents, catalogs, recordings; no runs). */
export function tempWorkspace(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'pf-transcript-'));
  cpSync(examples, dir, { recursive: true, filter: (src) => !src.includes(`${path.sep}runs`) });
  return dir;
}

/**
 * One broken (or tolerated) transcript. `content` is the file's bytes; `line` the line the error
 * must name (undefined: the error names the file only); `error` a piece of the message; `ok` when
 * the file is tolerated and replays.
 */
export interface CorpusCase {
  name: string;
  content: string | Buffer;
  line?: number;
  error?: string | RegExp;
  ok?: true;
  /** The damage is to the run's structure, not to one line: the history reader reads past it. */
  structure?: true;
}

/** Broken transcripts that are regular files. The blocking kinds (FIFO, devices) are separate. */
export function brokenCorpus(): CorpusCase[] {
  const events = recordingLines();
  const text = jsonl(events, true);
  const without = (type: string) => {
    const index = events.findIndex((event) => event['type'] === type);
    return events.filter((_, i) => i !== index);
  };
  const replaceAt = (index: number, line: string) => {
    const lines = text.split('\n');
    lines[index] = line;
    return lines.join('\n');
  };
  const dispatchLine = lineOf(events, (event) => event['type'] === 'tool-dispatch');
  const outputLine = lineOf(events, (event) => event['type'] === 'tool-output');
  const deep = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
  return [
    {
      name: 'truncated mid-line (a crashed run)',
      content: text.slice(0, text.indexOf('\n', text.length / 2) - 20),
      line: text.slice(0, text.indexOf('\n', text.length / 2) - 20).split('\n').length,
      error: 'the last line is incomplete (no newline)',
    },
    {
      name: 'a line of 100000 "["',
      content: replaceAt(2, '['.repeat(100_000)),
      line: 3,
      error: 'nested more than 512',
    },
    {
      name: 'a valid event with a 100000-deep value inside',
      content: replaceAt(2, `{"type":"log","seq":3,"t":"x","runId":"r","text":"hi","extra":${deep(100_000)}}`),
      line: 3,
      error: 'nested more than 512',
    },
    {
      name: 'deep objects hidden in a string are fine, deep objects outside are not',
      content: replaceAt(
        1,
        `{"type":"log","seq":2,"t":"x","runId":"r","text":"${'['.repeat(5000)}","x":${'{"a":'.repeat(600)}1${'}'.repeat(600)}}`,
      ),
      line: 2,
      error: 'nested more than 512',
    },
    {
      name: 'a 33 MiB line',
      content: replaceAt(1, `{"type":"log","seq":2,"t":"x","runId":"r","text":"${'x'.repeat(33 << 20)}"}`),
      line: 2,
      error: 'longer than the 32 MiB',
    },
    {
      name: 'wrong types',
      content: replaceAt(3, '{"type":"log","seq":"four"}'),
      line: 4,
      error: 'not a PromptForge run event at "seq"',
    },
    {
      name: 'a number where a round is expected',
      content: jsonl(events.map((event) => (event['type'] === 'round-request' ? { ...event, round: 'one' } : event))),
      line: 2,
      error: 'at "round"',
    },
    {
      name: 'out-of-order seq',
      content: jsonl([events[0]!, events[2]!, events[1]!, ...events.slice(3)], true),
      line: 2,
      error: 'seq is 3, expected 2',
      structure: true,
    },
    {
      name: 'a missing event (seq gap)',
      content: jsonl([...events.slice(0, 4), ...events.slice(5)], true),
      line: 5,
      error: 'seq is 6, expected 5',
      structure: true,
    },
    {
      name: 'a response without a request',
      content: jsonl(without('round-request')),
      line: 2,
      error: 'round 1 has a response but no request',
      structure: true,
    },
    {
      name: 'a round requested twice',
      content: jsonl([events[0]!, events[1]!, events[1]!, ...events.slice(2)]),
      line: 3,
      error: 'round 1 is requested twice',
      structure: true,
    },
    {
      name: 'a dispatch answering a call the model never requested',
      content: jsonl(
        events.map((event) =>
          event['type'] === 'tool-dispatch' ? { ...event, requestedCallId: 'call_never' } : event,
        ),
      ),
      line: dispatchLine,
      error: 'no tool-call-requested before it asked for that call',
      structure: true,
    },
    {
      name: 'a tool output for a call that was never dispatched',
      content: jsonl(
        events.map((event) => (event['type'] === 'tool-output' ? { ...event, callId: 'call-99' } : event)),
      ),
      line: outputLine,
      error: 'tool-output for call "call-99", but no tool-dispatch before it started that call',
      structure: true,
    },
    {
      name: 'an output before its dispatch',
      content: jsonl([
        ...events.slice(0, dispatchLine - 1),
        events[outputLine - 1]!,
        ...events.slice(dispatchLine - 1).filter((_, i) => i + dispatchLine !== outputLine),
      ]),
      line: dispatchLine,
      error: 'no tool-dispatch before it started that call',
      structure: true,
    },
    {
      name: 'an output naming another tool than its dispatch',
      content: jsonl(events.map((event) => (event['type'] === 'tool-output' ? { ...event, alias: 'now' } : event))),
      line: outputLine,
      error: 'names tool "now", but the call was to "echo"',
      structure: true,
    },
    {
      name: 'a call dispatched twice',
      content: jsonl([...events.slice(0, dispatchLine), events[dispatchLine - 1]!, ...events.slice(dispatchLine)]),
      line: dispatchLine + 1,
      error: 'is dispatched twice',
      structure: true,
    },
    {
      name: 'an unknown event type',
      content: replaceAt(3, '{"type":"teleport","seq":4,"t":"x","runId":"r"}'),
      line: 4,
      error: 'unknown event type "teleport"',
    },
    { name: 'no type at all', content: replaceAt(3, '{"seq":4}'), line: 4, error: 'no "type" string' },
    {
      name: 'a JSON array line',
      content: replaceAt(3, '[1,2,3]'),
      line: 4,
      error: 'must be a JSON object, not an array',
    },
    { name: 'a JSON number line', content: replaceAt(3, '42'), line: 4, error: 'not a number' },
    {
      name: 'binary garbage',
      content: Buffer.concat([
        Buffer.from(text.split('\n').slice(0, 2).join('\n') + '\n'),
        Buffer.from([0xff, 0xfe, 0x00, 0x80, 0xc3, 0x28, 0x0a]),
      ]),
      line: 3,
      error: 'not UTF-8 text',
    },
    {
      name: 'NUL bytes',
      content: replaceAt(2, '{"type":"log",\u0000"seq":3}'),
      line: 3,
      error: 'not valid JSON',
    },
    {
      name: 'a NUL byte inside a string',
      content: replaceAt(2, '{"type":"log","seq":3,"t":"x","runId":"r","text":"a\u0000b"}'),
      line: 3,
      error: 'not valid JSON (Bad control character',
    },
    {
      name: 'an unknown event type made of control characters',
      content: replaceAt(3, '{"type":"\\u001b[31mred\\u0007","seq":4}'),
      line: 4,
      error: 'unknown event type "\\u001b[31mred\\u0007"',
    },
    { name: 'a byte order mark at the start', content: `\uFEFF${text}`, ok: true },
    {
      name: 'a byte order mark in the middle',
      content: replaceAt(2, `\uFEFF${text.split('\n')[2]!}`),
      line: 3,
      error: 'not valid JSON',
    },
    { name: 'CRLF line endings', content: text.replaceAll('\n', '\r\n'), ok: true },
    { name: 'an empty file', content: '', error: /:1: the transcript is empty/ },
    { name: 'only a newline', content: '\n', line: 1, error: 'an empty line' },
    {
      name: 'a blank line in the middle',
      content: replaceAt(2, `\n${text.split('\n')[2]!}`),
      line: 3,
      error: 'an empty line',
      structure: true,
    },
    {
      name: 'a first event that is not run-start',
      content: jsonl(events.slice(1)),
      line: 1,
      error: 'must begin with a run-start event, not round-request',
      structure: true,
    },
    {
      name: 'two runs in one file',
      content: jsonl([...events, events[0]!]),
      line: events.length + 1,
      error: 'a second run-start',
      structure: true,
    },
    {
      name: 'an event of another run',
      content: jsonl(events.map((event, index) => (index === 3 ? { ...event, runId: 'run-other' } : event))),
      line: 4,
      error: 'belongs to run "run-other"',
      structure: true,
    },
  ];
}
