import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, truncateSync, writeFileSync, copyFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { CatalogProblem } from '../../../main/core/catalog/catalog-problem.js';
import { bin, jsonl, recordingLines, root, tempWorkspace } from './corpus.js';

// Files that block or never end. Each check runs in a child process: if a regression makes the
// reader block, only the child hangs, and the guard below kills it so the test fails with a
// message instead of hanging the suite. The guard is not a timing assertion; a pass never
// depends on it.
const GUARD_MS = 40_000;
const TEST_TIMEOUT_MS = 60_000;
const child = fileURLToPath(new URL('./read-blocking-child.ts', import.meta.url));

function run(
  command: string,
  args: string[],
  cwd: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const process_ = spawn(command, args, { cwd, timeout: GUARD_MS, killSignal: 'SIGKILL', env: { ...process.env } });
    let stdout = '';
    let stderr = '';
    process_.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    process_.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    process_.stdin.end();
    process_.on('close', (code, signal) =>
      resolve({ code, stdout, stderr: signal ? `killed by ${signal} (it blocked): ${stderr}` : stderr }),
    );
  });
}

const workspace = tempWorkspace();
const cleanWorkspace = tempWorkspace();
afterAll(() => {
  rmSync(workspace, { recursive: true, force: true });
  rmSync(cleanWorkspace, { recursive: true, force: true });
});
const runs = path.join(workspace, 'runs');
mkdirSync(runs, { recursive: true });
const blocking = {
  fifo: path.join(runs, 'fifo.jsonl'),
  zero: path.join(runs, 'zero.jsonl'),
  urandom: path.join(runs, 'urandom.jsonl'),
  folder: path.join(runs, 'folder.jsonl'),
  huge: path.join(runs, 'huge.jsonl'),
  dangling: path.join(runs, 'dangling.jsonl'),
};
execFileSync('mkfifo', [blocking.fifo]);
symlinkSync('/dev/zero', blocking.zero);
symlinkSync('/dev/urandom', blocking.urandom);
mkdirSync(blocking.folder);
// Sparse: 300 MiB on paper, nothing on disk.
writeFileSync(blocking.huge, jsonl(recordingLines()));
truncateSync(blocking.huge, 300 << 20);
symlinkSync(path.join(workspace, 'nothing-here.jsonl'), blocking.dangling);
// A good run, and a crashed one (its last line cut off), that the history must still list.
const good = path.join(runs, 'good.jsonl');
copyFileSync(path.join(workspace, 'recordings/echo-loop.jsonl'), good);
const crashedText = jsonl(recordingLines().map((event) => ({ ...event, runId: 'run-crashed' })));
writeFileSync(path.join(runs, 'crashed.jsonl'), crashedText.slice(0, crashedText.length - 30));
// A run with a damaged line in the middle: listed, with a warning naming the line.
const damaged = recordingLines().map((event) => ({ ...event, runId: 'run-damaged' }));
writeFileSync(
  path.join(runs, 'damaged.jsonl'),
  jsonl(damaged)
    .split('\n')
    .map((line, index) => (index === 4 ? '['.repeat(100_000) : line))
    .join('\n'),
);
// Catalog files that block: tools.yaml is a FIFO, models.yaml a link to /dev/zero.
execFileSync('mkfifo', [path.join(workspace, 'tools.fifo')]);
rmSync(path.join(workspace, 'tools.yaml'));
symlinkSync(path.join(workspace, 'tools.fifo'), path.join(workspace, 'tools.yaml'));
rmSync(path.join(workspace, 'models.yaml'));
symlinkSync('/dev/zero', path.join(workspace, 'models.yaml'));

describe('promptforge run --replay with a file that blocks or never ends', () => {
  it.each([
    ['a FIFO', blocking.fifo, 'it is a FIFO (named pipe), not a regular file; replace it with a regular file'],
    ['a link to /dev/zero', blocking.zero, 'it is a character device (like /dev/zero), not a regular file'],
    ['a link to /dev/urandom', blocking.urandom, 'it is a character device'],
    ['a folder', blocking.folder, 'it is a folder, not a regular file'],
    ['a 300 MiB file', blocking.huge, 'the transcript is 300 MiB, more than the 256 MiB PromptForge reads; split it'],
    ['a dangling link', blocking.dangling, 'there is no such transcript'],
  ])(
    '%s: exit code 2 and one line naming the file',
    async (_, file, message) => {
      const result = await run(
        process.execPath,
        [bin, 'run', 'agents/echo-loop.lua', '--replay', file],
        cleanWorkspace,
      );
      expect(result.code, result.stderr).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr.startsWith(`promptforge: ${file}: `), result.stderr).toBe(true);
      expect(result.stderr).toContain(message);
      expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    },
    TEST_TIMEOUT_MS,
  );
});

describe('the studio history list and catalog loading with files that block', () => {
  it(
    'skips and reports each one, lists the rest, and loads the valid catalog',
    async () => {
      const result = await run(
        process.execPath,
        ['--import', 'tsx', child, workspace, blocking.fifo, blocking.zero, blocking.folder, good],
        root,
      );
      expect(result.code, result.stderr).toBe(0);
      const report = JSON.parse(result.stdout) as {
        runs: string[];
        problems: CatalogProblem[];
        opened: { file: string; events?: number; error?: string }[];
        catalogProblems: CatalogProblem[];
        tools: string[];
      };
      expect([...report.runs].sort()).toEqual(['runs/crashed.jsonl', 'runs/damaged.jsonl', 'runs/good.jsonl']);
      const byFile = Object.fromEntries(report.problems.map((problem) => [problem.file, problem]));
      expect(Object.keys(byFile).sort()).toEqual([
        'runs/damaged.jsonl',
        'runs/dangling.jsonl',
        'runs/fifo.jsonl',
        'runs/folder.jsonl',
        'runs/huge.jsonl',
        'runs/urandom.jsonl',
        'runs/zero.jsonl',
      ]);
      expect(byFile['runs/fifo.jsonl']?.message).toContain('is a FIFO (named pipe)');
      expect(byFile['runs/zero.jsonl']?.message).toContain('is a character device');
      expect(byFile['runs/folder.jsonl']?.message).toContain('is a folder');
      expect(byFile['runs/huge.jsonl']?.message).toContain('more than the 256 MiB');
      expect(byFile['runs/dangling.jsonl']?.message).toContain('a link to a file that no longer exists');
      expect(byFile['runs/urandom.jsonl']?.message).toContain('is a character device');
      expect(byFile['runs/damaged.jsonl']).toMatchObject({ severity: 'warning', line: 5 });
      expect(byFile['runs/damaged.jsonl']?.message).toContain('nested more than 512 levels');
      for (const problem of report.problems) expect(problem.fix.length).toBeGreaterThan(10);

      // Opening a run (the studio's run view) refuses instead of blocking.
      expect(report.opened[0]?.error).toMatch(
        /^TranscriptError: .*fifo\.jsonl: cannot read the transcript: it is a FIFO/,
      );
      expect(report.opened[1]?.error).toMatch(/^TranscriptError: .*zero\.jsonl: .*character device/);
      expect(report.opened[2]?.error).toMatch(/^TranscriptError: .*folder\.jsonl: .*folder/);
      expect(report.opened[3]?.events).toBe(recordingLines().length);

      const catalog = Object.fromEntries(report.catalogProblems.map((problem) => [problem.file, problem]));
      expect(catalog['tools.yaml']?.message).toContain('it is a FIFO (named pipe), not a regular file');
      expect(catalog['models.yaml']?.message).toContain('it is a character device');
      expect(catalog['tools.yaml']?.fix).toContain('Replace tools.yaml with a regular YAML file');
      // The builtins still load; nothing hung.
      expect(report.tools).toContain('echo');
    },
    TEST_TIMEOUT_MS,
  );
});
