import { cpSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../../main/cli/exit-codes.js';
import { root, runCli } from '../cli/spawn-cli.js';

/** Defects found by red-teaming `promptforge run --fork-at` with hostile flag values. */

function tempWorkspace(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'pf-attack-fork-'));
  cpSync(path.join(root, 'examples'), dir, { recursive: true, filter: (src) => !src.includes(`${path.sep}runs`) });
  return dir;
}

describe('--edit-calls with deeply nested JSON', () => {
  it('is a usage error (exit 2) in one line, not an internal error with a stack trace', async () => {
    const dir = tempWorkspace();
    const depth = 10_000;
    writeFileSync(
      path.join(dir, 'deep.json'),
      `[{"name":"echo","arguments":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}]`,
    );
    const result = await runCli(
      [
        'run',
        'agents/echo-loop.lua',
        '--replay',
        'recordings/echo-loop.jsonl',
        '--fork-at',
        '3',
        '--edit-calls',
        '@deep.json',
      ],
      { cwd: dir },
    );
    expect(result.stderr).not.toMatch(/internal error|RangeError|\n\s+at /);
    expect(result.code, result.stderr).toBe(EXIT.usage);
    expect(result.stderr).toMatch(/--edit-calls/);
  });
});
