import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../common/run-events.js';
import { TranscriptError } from '../../../main/core/transcript/transcript-reader.js';
import { TranscriptPathError, TranscriptWriter } from '../../../main/core/transcript/transcript-writer.js';
import { runScript } from '../run/run-harness.js';

/**
 * Transcripts hold prompts, tool outputs and arguments: the writer makes them the owner's alone,
 * and a `runs/` that is a symbolic link out of the workspace (a cloned repository can hold one) is
 * refused instead of followed.
 */

const top = mkdtempSync(path.join(tmpdir(), 'pf-transcript-writer-'));
afterAll(() => rmSync(top, { recursive: true, force: true }));

let count = 0;
function workspace(): string {
  const dir = path.join(top, `ws${++count}`);
  mkdirSync(dir);
  return dir;
}

const EVENT = { type: 'log', text: 'hello', seq: 1, t: '2026-01-01T00:00:00.000Z', runId: 'run-1' } as RunEvent;
const mode = (file: string) => statSync(file).mode & 0o777;
const posix = process.platform !== 'win32';

function thrownBy(action: () => unknown): Error {
  try {
    action();
  } catch (error) {
    return error as Error;
  }
  throw new Error('nothing was thrown');
}

describe('transcripts are the owner’s alone', () => {
  it.skipIf(!posix)('a new transcript is 0600 and the runs/ folder made for it 0700', () => {
    const root = workspace();
    const file = path.join(root, 'runs', 'nested', 'run-1.jsonl');
    const writer = new TranscriptWriter(file, Infinity, { workspace: root });
    writer.write(EVENT);
    writer.close();
    expect(mode(file)).toBe(0o600);
    expect(mode(path.join(root, 'runs'))).toBe(0o700);
    expect(mode(path.join(root, 'runs', 'nested'))).toBe(0o700);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(EVENT);
  });

  it.skipIf(!posix)('an existing runs/ folder keeps its mode (the files in it are 0600 all the same)', () => {
    const root = workspace();
    mkdirSync(path.join(root, 'runs'));
    chmodSync(path.join(root, 'runs'), 0o755);
    const file = path.join(root, 'runs', 'run-1.jsonl');
    new TranscriptWriter(file, Infinity, { workspace: root }).close();
    expect(mode(path.join(root, 'runs'))).toBe(0o755);
    expect(mode(file)).toBe(0o600);
  });

  it.skipIf(!posix)('a run writes its transcript 0600', async () => {
    const root = workspace();
    const transcriptPath = path.join(root, 'runs', 'run.jsonl');
    const h = await runScript(`log('hi')`, { overrides: { workspace: root, transcriptPath } });
    expect(h.result.status).toBe('ok');
    expect(mode(transcriptPath)).toBe(0o600);
    expect(readFileSync(transcriptPath, 'utf8')).toContain('"type":"run-end"');
  });
});

describe.skipIf(!posix)('runs/ is resolved through symbolic links and stays in the workspace', () => {
  it('a runs/ linked to a folder outside the workspace is refused, naming the link and the fix; nothing is written there', () => {
    const root = workspace();
    const outside = mkdtempSync(path.join(tmpdir(), 'pf-outside-'));
    try {
      symlinkSync(outside, path.join(root, 'runs'));
      const file = path.join(root, 'runs', 'run-1.jsonl');
      const error = thrownBy(() => new TranscriptWriter(file, Infinity, { workspace: root }));
      expect(error).toBeInstanceOf(TranscriptPathError);
      expect(error).toBeInstanceOf(TranscriptError);
      expect(error.message).toBe(
        `cannot write the transcript in ${path.join(root, 'runs')}: ${path.join(root, 'runs')} is a symbolic link that leads outside the workspace (the folder is really ${outside}, which is not in ${root}); transcripts stay in the workspace. Replace the link with a folder (rm runs && mkdir runs), or choose where the transcript goes on purpose with --transcript PATH`,
      );
      expect(readdirSync(outside)).toEqual([]);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('a runs/ linked to /tmp is refused before a folder is made there', () => {
    const root = workspace();
    symlinkSync(tmpdir(), path.join(root, 'runs'));
    const name = `pf-never-made-${process.pid}-${count}`;
    const file = path.join(root, 'runs', name, 'run-1.jsonl');
    expect(() => new TranscriptWriter(file, Infinity, { workspace: root })).toThrow(
      /runs is a symbolic link that leads outside the workspace/,
    );
    expect(existsSync(path.join(tmpdir(), name))).toBe(false);
  });

  it('a runs/ linked to a link that leads back inside the workspace is fine', () => {
    const root = workspace();
    mkdirSync(path.join(root, 'store', 'real-runs'), { recursive: true });
    symlinkSync(path.join(root, 'store', 'real-runs'), path.join(root, 'hop'));
    symlinkSync(path.join(root, 'hop'), path.join(root, 'runs'));
    const file = path.join(root, 'runs', 'run-1.jsonl');
    const writer = new TranscriptWriter(file, Infinity, { workspace: root });
    writer.write(EVENT);
    writer.close();
    expect(readdirSync(path.join(root, 'store', 'real-runs'))).toEqual(['run-1.jsonl']);
  });

  it('a workspace reached through a link of its own is fine', () => {
    const root = workspace();
    const link = path.join(top, `link-to-ws${count}`);
    symlinkSync(root, link);
    new TranscriptWriter(path.join(link, 'runs', 'run-1.jsonl'), Infinity, { workspace: link }).close();
    expect(readdirSync(path.join(root, 'runs'))).toEqual(['run-1.jsonl']);
  });

  it('a runs/ that is a link to nowhere is refused (the folder would be made wherever it points)', () => {
    const root = workspace();
    const nowhere = path.join(top, `nowhere-${count}`);
    symlinkSync(nowhere, path.join(root, 'runs'));
    const error = thrownBy(
      () => new TranscriptWriter(path.join(root, 'runs', 'run-1.jsonl'), Infinity, { workspace: root }),
    );
    expect(error).toBeInstanceOf(TranscriptPathError);
    expect(error.message).toContain(
      `${path.join(root, 'runs')} is a symbolic link to ${nowhere}, which does not exist`,
    );
    expect(existsSync(nowhere)).toBe(false);
  });

  it('a transcript file that is itself a symbolic link is refused, and the file it points to is left alone', () => {
    const root = workspace();
    mkdirSync(path.join(root, 'runs'));
    const victim = path.join(top, `victim-${count}.txt`);
    writeFileSync(victim, 'keep me\n');
    symlinkSync(victim, path.join(root, 'runs', 'run-1.jsonl'));
    const error = thrownBy(
      () => new TranscriptWriter(path.join(root, 'runs', 'run-1.jsonl'), Infinity, { workspace: root }),
    );
    expect(error).toBeInstanceOf(TranscriptPathError);
    expect(error.message).toContain('it is a symbolic link');
    expect(readFileSync(victim, 'utf8')).toBe('keep me\n');
  });

  it('a transcript path outside the workspace by name (an explicit --transcript) is not checked', () => {
    const root = workspace();
    const elsewhere = path.join(top, `elsewhere-${count}`);
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, path.join(top, `elsewhere-link-${count}`));
    const file = path.join(top, `elsewhere-link-${count}`, 'mine.jsonl');
    new TranscriptWriter(file, Infinity, { workspace: root }).close();
    expect(readdirSync(elsewhere)).toEqual(['mine.jsonl']);
  });

  it('a run whose runs/ leads outside its workspace is not built', () => {
    const root = workspace();
    const outside = mkdtempSync(path.join(tmpdir(), 'pf-outside-'));
    try {
      symlinkSync(outside, path.join(root, 'runs'));
      const error = thrownBy(() =>
        runScript(`log('hi')`, { overrides: { workspace: root, transcriptPath: path.join(root, 'runs', 'r.jsonl') } }),
      );
      expect(error).toBeInstanceOf(TranscriptPathError);
      expect(readdirSync(outside)).toEqual([]);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
