import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTranscript } from '../../../main/core/transcript/transcript-reader.js';
import { root, spawnCli } from './spawn-cli.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'pf-input-'));
  cpSync(path.join(root, 'examples'), dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'agents', 'greet.lua'),
    "local message = ...\nlog('type: ' .. type(message))\nlog('got: ' .. tostring(message))\n",
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const RUN = ['run', 'agents/greet.lua', '--restricted'];

describe('promptforge run --input', () => {
  it('gives the script the message as `...`, records it in the run-start, and a replay gives it again', async () => {
    const message = 'Résumé «this» — مرحبا\nsecond line';
    const transcript = path.join(dir, 'greet.jsonl');
    const result = await spawnCli([...RUN, '--input', message, '--transcript', transcript], { cwd: dir }).finished;
    expect(result.stderr).not.toMatch(/error|at .*\.js/i);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`type: string\ngot: ${message}\n`);
    expect(readTranscript(transcript)[0]).toMatchObject({ type: 'run-start', input: message });

    const replayed = path.join(dir, 'greet-replay.jsonl');
    const replay = await spawnCli(['run', 'agents/greet.lua', '--replay', transcript, '--transcript', replayed], {
      cwd: dir,
    }).finished;
    expect(replay.code).toBe(0);
    expect(replay.stdout).toBe(`type: string\ngot: ${message}\n`);
    expect(readTranscript(replayed)[0]).toMatchObject({ type: 'run-start', input: message });
  }, 60_000);

  it('without --input the script gets nil, and the run-start records none', async () => {
    const transcript = path.join(dir, 'none.jsonl');
    const result = await spawnCli([...RUN, '--transcript', transcript], { cwd: dir }).finished;
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('type: nil\ngot: nil\n');
    expect(readTranscript(transcript)[0]).not.toHaveProperty('input');
  }, 60_000);

  it('reads the message from a file with @FILE, and @@ starts a message with @', async () => {
    writeFileSync(path.join(dir, 'message.txt'), 'from a file');
    const fromFile = await spawnCli([...RUN, '--input', '@message.txt'], { cwd: dir }).finished;
    expect(fromFile.stdout).toBe('type: string\ngot: from a file\n');
    const at = await spawnCli([...RUN, '--input', '@@handle'], { cwd: dir }).finished;
    expect(at.stdout).toBe('type: string\ngot: @handle\n');
  }, 60_000);

  it('a folder given as the script is a usage error that lists its scripts', async () => {
    const result = await spawnCli(['run', 'agents', '--restricted'], { cwd: dir }).finished;
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^promptforge: agents is a folder, not a script; its scripts: agents\/\S+\.lua/);
  }, 60_000);

  it('a missing @FILE is a usage error that names it (exit 2), and nothing runs', async () => {
    const result = await spawnCli([...RUN, '--input', '@nowhere.txt'], { cwd: dir }).finished;
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--input @nowhere.txt');
    expect(result.stdout).toBe('');
  }, 60_000);
});
