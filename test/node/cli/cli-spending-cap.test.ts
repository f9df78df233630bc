import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTranscript } from '../../../main/core/transcript/transcript-reader.js';
import { root, spawnCli } from './spawn-cli.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'pf-cap-'));
  cpSync(path.join(root, 'examples'), dir, { recursive: true });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const REPLAY = ['run', 'agents/summarize-page.lua', '--replay', 'recordings/summarize-page.jsonl'];

describe('promptforge run --max-run-tokens / --max-run-cost', () => {
  it('stops at the round that reaches the cap: status limit, the round named, exit 3', async () => {
    const transcript = path.join(dir, 'cap.jsonl');
    const result = await spawnCli([...REPLAY, '--max-run-tokens', '100', '--transcript', transcript], { cwd: dir })
      .finished;
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(
      /agents\/summarize-page\.lua: spending cap reached: round 2 brought the run to \d+ tokens \(cap 100\)/,
    );
    const events = readTranscript(transcript);
    expect(events[0]).toMatchObject({ type: 'run-start', limits: { maxTokens: 100 } });
    expect(events.at(-1)).toMatchObject({ type: 'run-end', status: 'limit', error: { kind: 'budget' } });
  }, 60_000);

  it('a replay costs nothing: a dollar cap does not stop it, and each round says why it is free', async () => {
    const transcript = path.join(dir, 'free.jsonl');
    const result = await spawnCli([...REPLAY, '--max-run-cost', '0.000001', '--transcript', transcript], { cwd: dir })
      .finished;
    expect(result.code).toBe(0);
    const events = readTranscript(transcript);
    const rounds = events.filter((event) => event.type === 'round-response');
    expect(rounds.length).toBeGreaterThan(0);
    for (const round of rounds) expect(round).toMatchObject({ cost: 0, price: { from: 'replay' } });
    expect(events.at(-1)).toMatchObject({ type: 'run-end', status: 'ok', cost: 0 });
  }, 60_000);

  it.each([
    ['--max-run-tokens', '0', '--max-run-tokens must be a positive number of tokens, got "0"'],
    ['--max-run-tokens', 'lots', '--max-run-tokens must be a positive number of tokens, got "lots"'],
    ['--max-run-cost', '-1', '--max-run-cost must be a positive number of US dollars, got "-1"'],
    ['--max-run-cost', 'Infinity', '--max-run-cost must be a positive number of US dollars, got "Infinity"'],
  ])(
    '%s %s is a usage error (exit 2)',
    async (flag, value, message) => {
      const result = await spawnCli([...REPLAY, flag, value], { cwd: dir }).finished;
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(message);
    },
    60_000,
  );
});
