import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ReplayRecording } from '../../../main/core/run/replay.js';
import { readTranscriptLenient } from '../../../main/core/transcript/run-history.js';
import { readTranscript, TranscriptError } from '../../../main/core/transcript/transcript-reader.js';
import { brokenCorpus, tempWorkspace } from './corpus.js';
import { runCliInProcess } from '../cli/spawn-cli.js';

const dir = mkdtempSync(path.join(tmpdir(), 'pf-broken-transcripts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cases = brokenCorpus().map((entry, index) => {
  const file = path.join(dir, `case-${index + 1}.jsonl`);
  writeFileSync(file, entry.content);
  return { ...entry, file };
});

function thrownBy(work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    return error;
  }
  return undefined;
}

/** The CLI, in process, with an empty keychain (a replay needs no key). */
function cli(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return runCliInProcess(args, { cwd });
}

describe('the broken transcript corpus', () => {
  it('has every kind of damage the replay reader must survive', () => {
    expect(cases.length).toBeGreaterThanOrEqual(30);
  });

  const broken = cases.filter((entry) => !entry.ok);
  const tolerated = cases.filter((entry) => entry.ok);

  it.each(broken)('$name: replay refuses it with an error naming file:line', ({ file, line, error }) => {
    const thrown = thrownBy(() => new ReplayRecording(file, readTranscript(file)));
    expect(thrown).toBeInstanceOf(TranscriptError);
    const message = (thrown as Error).message;
    expect(message.startsWith(line === undefined ? `${file}:` : `${file}:${line}: `), message.slice(0, 300)).toBe(true);
    if (typeof error === 'string') expect(message).toContain(error);
    else expect(message).toMatch(error!);
    expect(message.length).toBeLessThan(1000);
    // eslint-disable-next-line no-control-regex -- a message must not carry raw control bytes to a terminal
    expect(message).not.toMatch(/[\u0000-\u0008\u000b-\u001f]/);
  });

  it.each(tolerated)('$name: is tolerated and reads like the original', ({ file }) => {
    const events = readTranscript(file);
    expect(events[0]?.type).toBe('run-start');
    expect(events.at(-1)?.type).toBe('run-end');
    expect(new ReplayRecording(file, readTranscript(file)).start.type).toBe('run-start');
  });

  it.each(broken)('$name: the history reader never throws for it', ({ file, line, structure }) => {
    const events = readTranscriptLenient(file);
    // A damaged line stops the history reader right before it; damage to the run's structure
    // (order, pairing) is the replay's business, and the history shows every event.
    if (line === undefined) expect(events).toEqual([]);
    else if (!structure) expect(events).toHaveLength(line - 1);
    else expect(events.length).toBeGreaterThan(0);
  });
});

describe('promptforge run --replay with a broken transcript', () => {
  const workspace = tempWorkspace();
  afterAll(() => rmSync(workspace, { recursive: true, force: true }));

  const picked = [
    'a line of 100000 "["',
    'a valid event with a 100000-deep value inside',
    'a response without a request',
    'a tool output for a call that was never dispatched',
    'out-of-order seq',
    'binary garbage',
    'NUL bytes',
    'an unknown event type',
    'an empty file',
    'a 33 MiB line',
  ];
  it.each(cases.filter((entry) => picked.includes(entry.name)))(
    '$name: exit code 2, one clear line naming file:line, no stack trace',
    async ({ file, line }) => {
      const result = await cli(['run', 'agents/echo-loop.lua', '--replay', file], workspace);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr.startsWith(`promptforge: ${file}:${line ?? 1}: `), result.stderr.slice(0, 300)).toBe(true);
      expect(result.stderr).not.toContain('internal error');
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    },
  );

  it('a Lua script passed as the transcript: the line says it is a script, not a transcript', async () => {
    const result = await cli(['run', 'agents/echo-loop.lua', '--replay', 'agents/echo-loop.lua'], workspace);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^promptforge: \S*echo-loop\.lua:1: not valid JSON \(.*\); it looks like a Lua script, not a transcript/,
    );
  });

  it.each(cases.filter((entry) => entry.ok))('$name: the replay runs to the end (exit 0)', async ({ file }) => {
    const result = await cli(['run', 'agents/echo-loop.lua', '--replay', file], workspace);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toMatch(/error|diverged/);
    expect(result.stdout).toContain('hello');
  });
});
