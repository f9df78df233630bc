import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../common/run-events.js';
import { compareRuns, compareTranscripts } from '../../../main/core/transcript/run-history.js';
import {
  readTranscriptPage,
  streamTranscript,
  TranscriptGoneError,
} from '../../../main/core/transcript/transcript-pages.js';
import { readTranscript, TranscriptError } from '../../../main/core/transcript/transcript-reader.js';
import { syntheticEvent, syntheticRun } from './synthetic-run.js';

function tempFile(name: string, text: string | Buffer): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'pf-pages-')), name);
  writeFileSync(file, text);
  return file;
}

/** Every event of `file`, read in pages of `size`. */
function readAllPaged(file: string, size: number): { events: unknown[]; pages: number } {
  const events: unknown[] = [];
  let from = 0;
  let pages = 0;
  for (;;) {
    const page = readTranscriptPage(file, from, size);
    pages += 1;
    events.push(...page.events);
    if (page.complete) return { events, pages };
    from = page.next;
  }
}

describe('transcript pages: a transcript read by byte range through a line index', () => {
  it('pages of any size put together are exactly the strict reader’s events', () => {
    const file = tempFile('run.jsonl', syntheticRun('r1', 1234));
    const strict = readTranscript(file).map(({ line: _line, ...event }) => event);
    for (const size of [1, 7, 500, 5000]) {
      const { events, pages } = readAllPaged(file, size);
      expect(events).toEqual(strict);
      expect(pages).toBe(Math.ceil(strict.length / size));
    }
    const page = readTranscriptPage(file, 10, 3);
    expect(page).toMatchObject({ from: 10, next: 13, total: 1236, complete: false, truncatedTail: false });
    expect(page.events.map((e) => e.seq)).toEqual([11, 12, 13]);
  });

  it('a transcript cut off mid-line at the end of a page: the cut line is never served, the rest is', () => {
    const whole = syntheticRun('r1', 10);
    const cut = whole.slice(0, whole.length - 20); // the run-end line loses its end
    const file = tempFile('cut.jsonl', cut);
    const page = readTranscriptPage(file, 8, 5);
    expect(page.events.map((e) => e.seq)).toEqual([9, 10, 11]);
    expect(page).toMatchObject({ total: 11, next: 11, complete: true, truncatedTail: true });
    expect(page.stoppedAt).toBeUndefined();
    // A page that ends exactly before the cut line, and one that starts at it.
    expect(readTranscriptPage(file, 0, 11)).toMatchObject({ next: 11, complete: true, truncatedTail: true });
    expect(readTranscriptPage(file, 11, 5)).toMatchObject({ events: [], from: 11, next: 11, complete: true });
  });

  it('a page past the end is empty and says how many lines there are', () => {
    const file = tempFile('run.jsonl', syntheticRun('r1', 3));
    for (const from of [5, 6, 1_000_000, Number.MAX_SAFE_INTEGER])
      expect(readTranscriptPage(file, from, 100)).toEqual({
        events: [],
        from: 5,
        next: 5,
        total: 5,
        complete: true,
        truncatedTail: false,
      });
  });

  it('a transcript that grows while open (a live run): new lines are served as they complete', () => {
    const file = tempFile('live.jsonl', '');
    expect(readTranscriptPage(file, 0, 10)).toMatchObject({ events: [], total: 0, complete: true });
    const line = (seq: number) => `${JSON.stringify(syntheticEvent('live', seq, 100))}\n`;
    appendFileSync(file, line(1) + line(2));
    expect(readTranscriptPage(file, 0, 10).events.map((e) => e.seq)).toEqual([1, 2]);
    // Half a line: being written.
    const third = line(3);
    appendFileSync(file, third.slice(0, 15));
    expect(readTranscriptPage(file, 2, 10)).toMatchObject({ events: [], total: 2, truncatedTail: true });
    appendFileSync(file, third.slice(15) + line(4));
    const page = readTranscriptPage(file, 2, 10);
    expect(page.events.map((e) => e.seq)).toEqual([3, 4]);
    expect(page).toMatchObject({ total: 4, truncatedTail: false, complete: true });
    // The earlier lines still read right after the index was extended.
    expect(readTranscriptPage(file, 0, 2).events.map((e) => e.seq)).toEqual([1, 2]);
  });

  it('a transcript rewritten in place (not appended) is indexed again, never served from stale offsets', () => {
    const file = tempFile(
      'rewritten.jsonl',
      syntheticRun('a', 50, (n) => `short ${n}`),
    );
    expect(readTranscriptPage(file, 0, 100).events).toHaveLength(52);
    writeFileSync(
      file,
      syntheticRun('b', 80, (n) => `a much longer line of text, number ${n}`),
    );
    const page = readTranscriptPage(file, 0, 100);
    expect(page.events).toHaveLength(82);
    expect(page.events.every((e) => e.runId === 'b')).toBe(true);
    writeFileSync(file, syntheticRun('c', 2));
    expect(readTranscriptPage(file, 0, 100).events.map((e) => e.runId)).toEqual(['c', 'c', 'c', 'c']);
    // The same size, other bytes (and a rewrite that grows past the old last newline).
    writeFileSync(file, syntheticRun('d', 2));
    expect(readTranscriptPage(file, 0, 100).events.map((e) => e.runId)).toEqual(['d', 'd', 'd', 'd']);
    writeFileSync(file, syntheticRun('e', 3));
    expect(readTranscriptPage(file, 0, 100).events.map((e) => e.runId)).toEqual(['e', 'e', 'e', 'e', 'e']);
  });

  it('a transcript deleted while open: the next page says it is gone, naming the file', () => {
    const file = tempFile('gone.jsonl', syntheticRun('g', 20));
    expect(readTranscriptPage(file, 0, 5, 'runs/gone.jsonl').events).toHaveLength(5);
    rmSync(file);
    expect(() => readTranscriptPage(file, 5, 5, 'runs/gone.jsonl')).toThrow(TranscriptGoneError);
    expect(() => readTranscriptPage(file, 5, 5, 'runs/gone.jsonl')).toThrow(
      /runs\/gone\.jsonl: the transcript is gone/,
    );
    // A new file at the same path is a new transcript.
    writeFileSync(file, syntheticRun('h', 1));
    expect(readTranscriptPage(file, 0, 5).events.map((e) => e.runId)).toEqual(['h', 'h', 'h']);
  });

  it('a broken line in the middle stops the page there, naming the 1-based line', () => {
    const lines = syntheticRun('b', 6).split('\n');
    lines[4] = '{"seq":5, not json';
    const file = tempFile('broken.jsonl', lines.join('\n'));
    const page = readTranscriptPage(file, 0, 100);
    expect(page.events.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect(page.stoppedAt).toMatchObject({ line: 5, reason: expect.stringContaining('not valid JSON') });
    expect(page).toMatchObject({ next: 4, complete: true });
    // Asking past the broken line still stops at it: nothing after it is served.
    expect(readTranscriptPage(file, 4, 100).stoppedAt?.line).toBe(5);
  });

  it('tolerates a byte order mark, CRLF line endings and blank lines', () => {
    const text = syntheticRun('w', 3).split('\n').join('\r\n').replace('\r\n', '\r\n  \r\n');
    const file = tempFile('crlf.jsonl', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]));
    const { events } = readAllPaged(file, 2);
    expect(events.map((e) => (e as { seq: number }).seq)).toEqual([1, 2, 3, 4, 5]);
  });

  it('refuses a FIFO or a folder named like a transcript without blocking', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pf-pages-'));
    const fifo = path.join(dir, 'fifo.jsonl');
    execFileSync('mkfifo', [fifo]);
    expect(() => readTranscriptPage(fifo, 0, 10)).toThrow(TranscriptError);
    expect(() => readTranscriptPage(fifo, 0, 10)).toThrow(/FIFO/);
    expect(() => readTranscriptPage(dir, 0, 10)).toThrow(/folder/);
  });

  it('a line over the per-line cap is reported, not read into memory', () => {
    const huge = `${JSON.stringify(syntheticEvent('x', 1, 1))}\n{"text":"${'a'.repeat((32 << 20) + 10)}"}\n`;
    const file = tempFile('huge.jsonl', huge);
    const page = readTranscriptPage(file, 1, 10);
    expect(page.events).toEqual([]);
    expect(page.stoppedAt).toMatchObject({ line: 2, reason: expect.stringContaining('longer than the 32 MiB') });
  });

  it('a stream stops reading when its consumer stops', () => {
    const file = tempFile('run.jsonl', syntheticRun('s', 20_000));
    let seen = 0;
    for (const event of streamTranscript(file)) {
      seen += 1;
      if (event.seq === 3) break;
    }
    expect(seen).toBe(3);
  });
});

describe('comparing two runs as streams', () => {
  const run = (id: string, logs: number, differAt?: number, to = 'CHANGED') =>
    streamTranscript(
      tempFile(
        `${id}.jsonl`,
        syntheticRun(id, logs, (n) => (n === differAt ? `${to} ${n}` : `line ${n}`)),
      ),
    );

  it('finds the first difference deep in two long runs and returns the rows around it', () => {
    const page = compareRuns(run('a', 20_000), run('b', 20_000, 19_000));
    expect(page.firstDifference).toBe(19_000);
    expect(page.rows[0]!.index).toBe(19_000 - 50);
    expect(page.rows.at(-1)!.index).toBe(19_000 + 50);
    expect(page.rows.filter((row) => !row.same)).toEqual([
      { kind: 'log', index: 19_000, left: 'line 19000', right: 'CHANGED 19000', same: false },
    ]);
    expect(page).toMatchObject({ compared: 19_050, complete: false });
  });

  it('a call that ran with edited arguments shows what ran, and a denial its reason; who approved is not compared', () => {
    const base = { t: '2026-01-01T00:00:00.000Z' };
    const events = (runId: string, decision: Record<string, unknown>): RunEvent[] =>
      [
        { type: 'tool-dispatch', callId: 'c1', alias: 'send', arguments: { to: 'a@example.com' }, count: 1 },
        {
          type: 'approval-decision',
          callId: 'c1',
          alias: 'send',
          proposedArguments: { to: 'a@example.com' },
          decision: { at: base.t, ...decision },
        },
      ].map((event, index) => ({ ...base, runId, seq: index + 1, ...event }) as RunEvent);
    const edited = compareRuns(
      events('a', { kind: 'approve', source: 'policy' }),
      events('b', { kind: 'approve-edited', source: 'studio', arguments: { to: 'me@example.com' } }),
    );
    expect(edited.rows.filter((row) => !row.same)).toEqual([
      {
        kind: 'call',
        index: 2,
        left: null,
        right: 'send ran with edited arguments ({"to":"me@example.com"})',
        same: false,
      },
    ]);
    // A replay approves from its recording, the recording by a person: the same run, no difference.
    const replayed = compareRuns(
      events('a', { kind: 'approve', source: 'studio' }),
      events('b', { kind: 'approve', source: 'replay' }),
    );
    expect(replayed.firstDifference).toBeNull();
    const denied = compareRuns(
      events('a', { kind: 'approve', source: 'studio' }),
      events('b', { kind: 'deny', source: 'studio', reason: 'not that address' }),
    );
    expect(denied.rows.filter((row) => !row.same).map((row) => row.right)).toEqual(['send denied: not that address']);
  });

  it('pages a comparison with from/count, and says when both runs ended', () => {
    const page = compareRuns(run('a', 300), run('b', 300, 7), { from: 295, count: 100 });
    expect(page.rows.map((row) => row.index)).toEqual([295, 296, 297, 298, 299, 300, 301]);
    expect(page.rows.at(-1)).toMatchObject({ kind: 'end', same: true });
    expect(page).toMatchObject({ firstDifference: 7, complete: true });
  });

  it('runs that match: no difference, the last rows; runs of different length differ at the first missing row', () => {
    const same = compareRuns(run('a', 120), run('b', 120));
    expect(same.firstDifference).toBeNull();
    expect(same.rows.map((row) => row.index)).toEqual(Array.from({ length: 50 }, (_, i) => 72 + i));
    const shorter = compareRuns(run('a', 10), run('b', 12));
    expect(shorter.firstDifference).toBe(11);
    expect(shorter.rows.find((row) => row.index === 11)).toMatchObject({ left: 'ok', right: 'line 11' });
    expect(shorter.rows.at(-1)).toMatchObject({ left: null, right: 'ok', kind: 'end' });
  });

  it('blanks envelope nonces, so two runs that differ only in nonces compare equal', () => {
    const page = compareRuns(
      run('a', 5, 3, '<untrusted_input_aaaaaaaaaaaaaaaa>'),
      run('b', 5, 3, '<untrusted_input_bbbbbbbbbbbbbbbb>'),
    );
    expect(page.firstDifference).toBeNull();
  });
});

describe('compareTranscripts (the fast path over raw lines) gives what compareRuns gives', () => {
  const file = (name: string, text: string) => tempFile(`${name}.jsonl`, text);
  /** The writer's own field order: the identity last. */
  const writerOrder = (runId: string, logs: number, text: (n: number) => string) =>
    syntheticRun(runId, logs, text)
      .trimEnd()
      .split('\n')
      .map((line) => {
        const { seq, t, runId: id, ...rest } = JSON.parse(line) as Record<string, unknown>;
        return `${JSON.stringify({ ...rest, seq, t, runId: id })}\n`;
      })
      .join('');
  const plain = (a: string, b: string, window?: { from?: number; count?: number }) =>
    compareRuns(streamTranscript(a), streamTranscript(b), window);
  const fast = (a: string, b: string, window?: { from?: number; count?: number }) =>
    compareTranscripts({ file: a, shown: a }, { file: b, shown: b }, window);
  const same = (n: number) => `line ${n}`;

  const cases: Array<[string, string, string]> = [];
  for (const order of [syntheticRun, writerOrder]) {
    const tag = order === syntheticRun ? 'identity first' : 'identity last';
    cases.push(
      [`${tag}: equal`, order('a', 300, same), order('b', 300, same)],
      [`${tag}: differ deep`, order('a', 300, same), order('b', 300, (n) => (n === 280 ? 'x' : same(n)))],
      [`${tag}: differ at 1`, order('a', 300, same), order('b', 300, (n) => (n === 1 ? 'x' : same(n)))],
      [`${tag}: right longer`, order('a', 200, same), order('b', 260, same)],
      [`${tag}: left longer`, order('a', 260, same), order('b', 200, same)],
      [
        `${tag}: nonces only`,
        order('a', 120, (n) => `<untrusted_input_aaaa${n}>x`),
        order('b', 120, (n) => `<untrusted_input_bbbb${n}>x`),
      ],
    );
  }
  // Same run id in both (a run compared with a copy of itself), and a broken line in one.
  const text = syntheticRun('same', 90, same);
  cases.push(['one run with itself', text, text]);
  const broken = text.split('\n');
  broken[40] = '{"seq":41, broken';
  cases.push(['a broken line in one run', text, broken.join('\n')]);
  const blank = text.split('\n');
  blank.splice(10, 0, '   ');
  cases.push(['a blank line in one run', text, blank.join('\n')]);

  it.each(cases)('%s', (_, leftText, rightText) => {
    const a = file('left', leftText);
    const b = file('right', rightText);
    expect(fast(a, b)).toEqual(plain(a, b));
    expect(fast(b, a)).toEqual(plain(b, a));
    for (const window of [{ from: 1, count: 7 }, { from: 250, count: 100 }, { from: 9999 }])
      expect(fast(a, b, window)).toEqual(plain(a, b, window));
  });
});
