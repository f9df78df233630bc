import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadWorkspace } from '../../../main/core/catalog/workspace.js';
import { CATALOG_FIXTURES } from './helpers.js';

interface Expectation {
  severity: 'error' | 'warning';
  file: string;
  pointer: string;
  line: number;
  column: number;
  /** The fixture's text at line:column (to the end of that line): where the problem must point. */
  at: string;
  message: string;
  /** Aliases that must still load despite the problem. */
  loads: { tools: string[]; models: string[] };
}

const brokenDir = path.join(CATALOG_FIXTURES, 'broken');
const cases = readdirSync(brokenDir)
  .sort()
  .map((name) => ({
    name,
    dir: path.join(brokenDir, name),
    expected: JSON.parse(readFileSync(path.join(brokenDir, name, 'expect.json'), 'utf8')) as Expectation,
  }));

describe('broken catalog corpus', () => {
  it('has at least 25 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(25);
  });

  it.each(cases)('$name: names the file, pointer, line and what is wrong, with a fix', async ({ dir, expected }) => {
    const workspace = await loadWorkspace(dir);
    const match = workspace.problems.find(
      (problem) =>
        problem.file === expected.file &&
        problem.pointer === expected.pointer &&
        problem.severity === expected.severity &&
        problem.message.includes(expected.message),
    );
    expect(match, JSON.stringify(workspace.problems, null, 2)).toBeDefined();
    expect(match?.line).toBe(expected.line);
    expect(match?.column).toBe(expected.column);
    // Checked against the fixture's own text, not against the loader.
    const lines = readFileSync(path.join(dir, expected.file), 'utf8').split('\n');
    expect(lines[expected.line - 1]?.slice(expected.column - 1).trimEnd()).toBe(expected.at);
    expect(match?.fix.length).toBeGreaterThan(5);
    for (const problem of workspace.problems) {
      expect(problem.fix.length).toBeGreaterThan(5);
      const text = readFileSync(path.join(dir, problem.file), 'utf8').split('\n');
      expect(problem.line).toBeGreaterThanOrEqual(1);
      expect(problem.line).toBeLessThanOrEqual(text.length);
      expect(problem.column).toBeGreaterThanOrEqual(1);
      expect(problem.column).toBeLessThanOrEqual((text[problem.line - 1]?.length ?? 0) + 1);
    }
  });

  it.each(cases)('$name: the valid rest still loads', async ({ dir, expected }) => {
    const workspace = await loadWorkspace(dir);
    for (const alias of expected.loads.tools) expect(workspace.tools.get(alias), alias).toBeDefined();
    for (const alias of expected.loads.models) expect(workspace.models.get(alias), alias).toBeDefined();
    if (expected.severity === 'error' && expected.file === 'tools.yaml' && expected.pointer !== '') {
      const badAlias = decodeURIComponent(expected.pointer.split('/')[1] ?? '')
        .replaceAll('~1', '/')
        .replaceAll('~0', '~');
      if (!/^\d+$/.test(badAlias) && !expected.loads.tools.includes(badAlias))
        expect(workspace.tools.get(badAlias)).toBeUndefined();
    }
    // Builtins stay available whatever is wrong with tools.yaml.
    expect(workspace.tools.get('now')).toBeDefined();
  });
});

describe('specific messages', () => {
  it('a misspelt field suggests the right one', async () => {
    const workspace = await loadWorkspace(path.join(brokenDir, '03-unknown-field'));
    expect(workspace.problems[0]?.fix).toBe('Rename it to "timeoutMs".');
  });

  it('an mcp entry with neither command nor url gets one clear message and nothing else about it', async () => {
    const workspace = await loadWorkspace(path.join(brokenDir, '02-mcp-kind'));
    expect(workspace.problems.map((problem) => problem.message)).toEqual([
      'MCP server "browser" needs "command" (a stdio server) or "url" (a Streamable HTTP server)',
    ]);
    expect(workspace.tools.get('browser')).toBeUndefined();
  });

  it('a YAML syntax error gives line and column and drops only that file', async () => {
    const workspace = await loadWorkspace(path.join(brokenDir, '01-yaml-syntax'));
    expect(workspace.problems).toHaveLength(1);
    expect(workspace.problems[0]).toMatchObject({ file: 'tools.yaml', pointer: '', line: 5, column: 1 });
    expect(workspace.tools.list().map((tool) => tool.alias)).toEqual([
      'echo',
      'read_file',
      'list_files',
      'http_get',
      'now',
    ]);
  });

  it('an unknown default model lists the defined ones', async () => {
    const workspace = await loadWorkspace(path.join(brokenDir, '36-settings-unknown-default-model'));
    expect(workspace.problems[0]?.fix).toContain('"ok_model"');
    expect(workspace.settings.defaultModel).toBeUndefined();
    expect(workspace.models.defaultFor()).toBeUndefined();
  });
});
