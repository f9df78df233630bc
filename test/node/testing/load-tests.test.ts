import { describe, expect, it, beforeAll } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { testFileJsonSchemaText, TEST_FILE_SCHEMA_PATH } from '../../../main/core/testing/test-file-schema.js';
import { exampleWorkspace, load, root, testFile } from './harness.js';

let dir: string;
beforeAll(async () => {
  dir = await exampleWorkspace();
});

/** [line, pointer, message, fix] of each problem of a test file with `text`. */
async function problemsOf(name: string, text: string): Promise<[number, string, string, string][]> {
  const { problems } = await load(dir, testFile(dir, name, text));
  return problems.map((problem) => [problem.line, problem.pointer, problem.message, problem.fix]);
}

describe('test files: every mistake names the file, the line, the field and the fix, and nothing runs', () => {
  it('an agent, a tool or a model that does not exist', async () => {
    expect(
      await problemsOf(
        'names.yaml',
        `cases:
  - name: no such agent
    agent: agents/echo-lop.lua
    model: { replies: [] }
  - name: no such tool
    agent: agents/echo-loop.lua
    model:
      replies:
        - calls: [{ name: ecko }]
    expect:
      calls: [{ tool: read_fil }]
  - name: no such model
    agent: agents/echo-loop.lua
    model: fastt
  - name: no such recording
    agent: agents/echo-loop.lua
    model: { recording: recordings/nope.jsonl }
`,
      ),
    ).toEqual([
      [
        3,
        '/cases/0/agent',
        'agent "agents/echo-lop.lua" does not exist in the workspace; did you mean "agents/echo-loop.lua"?',
        'Write "agents/echo-loop.lua" instead.',
      ],
      [
        9,
        '/cases/1/model/replies/0/calls/0/name',
        'tool "ecko" is not in this case\'s catalog (tools.yaml, the builtins); did you mean "echo"?',
        'Write "echo" instead.',
      ],
      [
        11,
        '/cases/1/expect/calls/0/tool',
        'tool "read_fil" is not in this case\'s catalog (tools.yaml, the builtins); did you mean "read_file"?',
        'Write "read_file" instead.',
      ],
      [14, '/cases/2/model', 'model "fastt" is not in models.yaml; did you mean "fast"?', 'Write "fast" instead.'],
      [
        17,
        '/cases/3/model/recording',
        'recording "recordings/nope.jsonl" does not exist',
        expect.stringContaining('relative to the workspace'),
      ],
    ]);
  });

  it('a field typo does not hide a wrong name: one pass names both, in a case and at the top of the file', async () => {
    const inCase = await problemsOf(
      'typo-and-tool.yaml',
      `cases:
  - name: both
    agent: agents/echo-loop.lua
    model: { replies: [] }
    expect: { statuss: ok, counts: { ecko: 1 } }
`,
    );
    expect(inCase.map(([line, pointer, message]) => [line, pointer, message])).toEqual([
      [5, '/cases/0/expect/statuss', 'cases.0.expect: unknown field "statuss"; did you mean "status"?'],
      [5, '/cases/0/expect/counts/ecko', expect.stringMatching(/"ecko".*did you mean "echo"\?/)],
    ]);
    const atTop = await load(
      dir,
      testFile(
        dir,
        'top-typo.yaml',
        `defualts: { model: { replies: [] } }
cases:
  - name: tool typo
    agent: agents/echo-loop.lua
    model: { replies: [] }
    expect: { counts: { ecko: 1 } }
  - name: fine on its own
    agent: agents/echo-loop.lua
    model: { replies: [] }
`,
      ),
    );
    expect(atTop.problems.map((problem) => [problem.line, problem.pointer])).toEqual([
      [1, '/defualts'],
      [6, '/cases/0/expect/counts/ecko'],
    ]);
    // Nothing of a file with a problem runs, not even its sound cases.
    expect(atTop.cases).toEqual([]);
    // A wrong type leaves nothing to check names on: only it is named.
    const wrongType = await problemsOf(
      'type-and-tool.yaml',
      `cases:
  - name: both
    agent: agents/echo-loop.lua
    model: { replies: [] }
    expect: { max_rounds: many, counts: { ecko: 1 } }
`,
    );
    expect(wrongType.map(([, pointer]) => pointer)).toEqual(['/cases/0/expect/max_rounds']);
  });

  it('malformed YAML, with its line', async () => {
    const problems = await problemsOf('syntax.yaml', `cases:\n  - name: a\n    agent: [unclosed\n`);
    expect(problems).toHaveLength(1);
    expect(problems[0]![2]).toMatch(/^YAML syntax error/);
    expect(problems[0]![3]).toMatch(/^Fix the YAML at line \d+, column \d+/);
  });

  it('unknown fields, wrong types, duplicate names and patterns that cannot run in linear time', async () => {
    expect(
      await problemsOf(
        'fields.yaml',
        `cases:
  - name: typo
    agent: agents/echo-loop.lua
    model: { replies: [] }
    expect: { statuss: ok }
  - name: typo
    agent: agents/echo-loop.lua
    model: { replies: [] }
  - name: bad approve
    agent: agents/echo-loop.lua
    model: { replies: [] }
    approve: sometimes
  - name: backreference
    agent: agents/echo-loop.lua
    model: { replies: [] }
    expect: { final: { matches: '(a)\\1' } }
`,
      ),
    ).toEqual([
      [
        5,
        '/cases/0/expect/statuss',
        'cases.0.expect: unknown field "statuss"; did you mean "status"?',
        'Rename it to "status".',
      ],
      [6, '/cases/1/name', 'two cases are named "typo"', expect.stringContaining('the first is on line 2')],
      [
        12,
        '/cases/2/approve',
        'cases.2.approve: not one of the forms this field takes',
        'Write deny, auto, ask-as-deny, or { default: approve|deny, tools: { ALIAS: approve|deny } }.',
      ],
      [
        16,
        '/cases/3/expect/final/matches',
        expect.stringContaining('uses a backreference'),
        expect.stringContaining('RE2'),
      ],
    ]);
  });

  it('problems come in the order of their lines, whatever order the checks found them in', async () => {
    const problems = await problemsOf(
      'order.yaml',
      `cases:
  - name: first
    agent: agents/echo-loop.lua
    model: { replies: [] }
    expect: { status: ok, calls: [{ tool: ecko }] }
  - name: second
    agnet: agents/echo-loop.lua
    model: { replies: [] }
    expect: { statuss: ok }
`,
    );
    expect(problems.map(([line]) => line)).toEqual([5, 7, 9]);
  });

  it('a file without cases is a problem of the file', async () => {
    expect(await problemsOf('empty.yaml', `description: nothing\n`)).toEqual([
      [1, '/cases', 'cases: Invalid input: expected array, received undefined', 'Write an array here.'],
    ]);
  });

  it('10,000 cases load fast, each with an id of its own', async () => {
    const lines = ['defaults: { agent: agents/echo-loop.lua, model: { replies: [{ content: hi }] } }', 'cases:'];
    for (let i = 0; i < 10_000; i += 1) lines.push(`  - name: case ${i}`);
    const { cases, problems } = await load(dir, testFile(dir, 'many.yaml', `${lines.join('\n')}\n`));
    expect(problems).toEqual([]);
    expect(cases).toHaveLength(10_000);
    expect(new Set(cases.map((testCase) => testCase.id)).size).toBe(10_000);
    expect(cases[9_999]).toMatchObject({ name: 'case 9999', line: 10_002 });
  });

  it('the published JSON Schema is the one the format generates (npm run schemas)', () => {
    expect(readFileSync(path.join(root, TEST_FILE_SCHEMA_PATH), 'utf8')).toBe(testFileJsonSchemaText());
  });
});
