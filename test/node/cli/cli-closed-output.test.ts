import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readTranscript } from '../../../main/core/transcript/transcript-reader.js';
import { bin, NO_BUS } from './spawn-cli.js';

// A closed pipe on the CLI's output (`promptforge run … | head -1`, a pager quit early, a CI log
// collector gone) must not crash it: the run stops, its transcript ends with run-end, exit 3.

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'pf-pipe-'));
  mkdirSync(path.join(dir, 'agents'));
  // A workspace with only builtins needs no trust; `ask_echo` asks a person on every call.
  writeFileSync(path.join(dir, 'tools.yaml'), 'ask_echo:\n  kind: builtin\n  builtin: echo\n  approval: ask\n');
  // Far more than a pipe's buffer (64 KiB), so a write after the reader left is certain.
  writeFileSync(path.join(dir, 'agents', 'chatty.lua'), `for i = 1, 200000 do log('line ' .. i) end`);
  writeFileSync(
    path.join(dir, 'agents', 'asks.lua'),
    `log('before the call')\nlocal out = tools.call('ask_echo', { text = 'hi' })\nlog('after the call')`,
  );
});

function start(args: string[]) {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: dir,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PROMPTFORGE_CONFIG_DIR: process.env.PROMPTFORGE_CONFIG_DIR,
      DBUS_SESSION_BUS_ADDRESS: NO_BUS,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, exited };
}

/** Resolves with what `stream` carried once it contains `text`. */
function waitFor(stream: NodeJS.ReadableStream, text: string): Promise<string> {
  let seen = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      if (seen.includes(text)) {
        stream.off('data', onData);
        resolve(seen);
      }
    };
    stream.on('data', onData);
    stream.once('end', () => reject(new Error(`stream ended without "${text}": ${seen.slice(-400)}`)));
  });
}

function collect(stream: NodeJS.ReadableStream): { text: string } {
  const out = { text: '' };
  stream.on('data', (chunk: Buffer) => (out.text += chunk.toString('utf8')));
  return out;
}

describe('the CLI survives a closed stdout or stderr', () => {
  it('stdout closed mid-run (| head -1): the run stops, run-end is written, exit 3, no stack trace', async () => {
    const transcript = path.join(dir, 'head.jsonl');
    const { child, exited } = start(['run', 'agents/chatty.lua', '--transcript', transcript]);
    const stderr = collect(child.stderr);
    const stderrClosed = once(child.stderr, 'close');
    await waitFor(child.stdout, 'line 1\n');
    child.stdout.destroy(); // the reader goes away, as head does after its line
    const result = await exited;
    await stderrClosed;
    expect(result).toEqual({ code: 3, signal: null });
    expect(stderr.text).not.toMatch(/EPIPE|node:events|Unhandled|at .*\.js:\d+/);
    expect(stderr.text).toContain('agents/chatty.lua: stopped: stdout was closed');
    const events = readTranscript(transcript);
    expect(events.at(-1)).toMatchObject({
      type: 'run-end',
      status: 'stopped',
      error: { message: expect.stringContaining('stdout was closed') },
    });
    // It stopped early: nowhere near the 200,000 lines.
    expect(events.filter((event) => event.type === 'log').length).toBeLessThan(200_000);
  }, 60_000);

  it('stdout and stderr both closed (a pipeline whose reader died): still exit 3 with run-end', async () => {
    const transcript = path.join(dir, 'both.jsonl');
    const { child, exited } = start(['run', 'agents/chatty.lua', '--transcript', transcript]);
    await waitFor(child.stdout, 'line 1\n');
    child.stderr.destroy();
    child.stdout.destroy();
    expect(await exited).toEqual({ code: 3, signal: null });
    expect(readTranscript(transcript).at(-1)).toMatchObject({ type: 'run-end', status: 'stopped' });
  }, 60_000);

  it('--json to a closed stdout stops the run the same way', async () => {
    const transcript = path.join(dir, 'json.jsonl');
    const { child, exited } = start(['run', 'agents/chatty.lua', '--json', '--transcript', transcript]);
    await waitFor(child.stdout, '"type":"log"');
    child.stdout.destroy();
    expect(await exited).toEqual({ code: 3, signal: null });
    expect(readTranscript(transcript).at(-1)).toMatchObject({ type: 'run-end', status: 'stopped' });
  }, 60_000);

  it('stderr closed before the approval prompt: the call is cancelled, never approved, and the run ends', async () => {
    const transcript = path.join(dir, 'prompt-before.jsonl');
    const { child, exited } = start(['run', 'agents/asks.lua', '--approve', 'ask', '--transcript', transcript]);
    // stdin stays open: a person who has not answered; the prompt cannot reach them.
    child.stderr.destroy();
    const stdout = collect(child.stdout);
    expect(await exited).toEqual({ code: 3, signal: null });
    expect(stdout.text).toContain('before the call');
    expect(stdout.text).not.toContain('after the call');
    const events = readTranscript(transcript);
    expect(events.find((event) => event.type === 'approval-decision')).toMatchObject({
      decision: { kind: 'cancelled' },
    });
    expect(events.some((event) => event.type === 'tool-output')).toBe(false);
    expect(events.at(-1)).toMatchObject({ type: 'run-end', status: 'stopped' });
    child.stdin.destroy();
  }, 60_000);

  it('stderr closed while the prompt waits: the next thing written stops the run; the answer typed is not taken', async () => {
    const transcript = path.join(dir, 'prompt-during.jsonl');
    const { child, exited } = start(['run', 'agents/asks.lua', '--approve', 'ask', '--transcript', transcript]);
    await waitFor(child.stderr, '[a]pprove');
    child.stderr.destroy();
    // An answer that is not a choice: the CLI writes "Please answer…" to the closed pipe.
    child.stdin.write('maybe\n');
    expect(await exited).toEqual({ code: 3, signal: null });
    const events = readTranscript(transcript);
    expect(events.find((event) => event.type === 'approval-decision')).toMatchObject({
      decision: { kind: 'cancelled' },
    });
    expect(events.at(-1)).toMatchObject({ type: 'run-end', status: 'stopped' });
    child.stdin.destroy();
  }, 60_000);
});
