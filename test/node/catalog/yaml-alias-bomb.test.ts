import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadWorkspace } from '../../../main/core/catalog/workspace.js';

/** A "billion laughs" document: each level refers to the previous one ten times. */
function aliasBomb(levels: number): string {
  const lines = ['a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]'];
  for (let level = 1; level <= levels; level += 1) {
    const refs = Array.from({ length: 10 }, () => `*a${level - 1}`).join(', ');
    lines.push(`a${level}: &a${level} [${refs}]`);
  }
  return `${lines.join('\n')}\n`;
}

describe('a YAML alias bomb in a catalog file is a located problem, never an exception', () => {
  it.each(['tools.yaml', 'models.yaml', 'promptforge.yaml'] as const)('in %s', async (file) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pf-alias-bomb-'));
    writeFileSync(path.join(dir, file), aliasBomb(9));
    const workspace = await loadWorkspace(dir);
    const problem = workspace.problems.find((p) => p.file === file && p.severity === 'error');
    expect(problem).toMatchObject({ line: 1, column: 1 });
    expect(problem?.message).toMatch(/alias/i);
    expect(problem?.fix).toContain('alias');
    // The rest of the workspace keeps working: the builtins are still there.
    expect(workspace.tools.get('echo')).toBeDefined();
  });

  it('a few aliases are fine', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pf-alias-ok-'));
    writeFileSync(
      path.join(dir, 'tools.yaml'),
      [
        'shout:',
        '  kind: builtin',
        '  builtin: echo',
        '  parameters: &params { type: object, properties: { text: { type: string } } }',
        'whisper:',
        '  kind: builtin',
        '  builtin: echo',
        '  parameters: *params',
        '',
      ].join('\n'),
    );
    const workspace = await loadWorkspace(dir);
    expect(workspace.problems.filter((p) => p.severity === 'error')).toEqual([]);
    expect(workspace.tools.get('whisper')).toBeDefined();
  });
});
