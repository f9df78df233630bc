import { beforeAll, describe, expect, it } from 'vitest';
import { buildWorkspace } from '../../../main/core/catalog/workspace.js';
import { formatProblem } from '../../../main/core/catalog/catalog-problem.js';
import { nearestName, shownName } from '../../../main/core/did-you-mean.js';
import { formatRulesProblem, parseRulesText } from '../../../main/core/rules/rules-file.js';
import { exampleWorkspace, load, testFile } from '../testing/harness.js';

/** The error lines of a catalog file, as the CLI prints them. */
function catalogLines(file: 'tools.yaml' | 'models.yaml' | 'promptforge.yaml', text: string): string[] {
  const files = { 'models.yaml': 'fast:\n  provider: openai\n  model: gpt-4o-mini\n', [file]: text };
  return buildWorkspace('/nowhere', files)
    .problems.filter((problem) => problem.file === file && problem.severity === 'error')
    .map(formatProblem);
}

function rulesLines(text: string): string[] {
  const parsed = parseRulesText(text);
  if (parsed.ok) throw new Error('expected problems');
  return parsed.problems.map((problem) => formatRulesProblem('approval-rules.yaml', problem));
}

let dir: string;
beforeAll(async () => {
  dir = await exampleWorkspace();
});

async function testFileLines(text: string): Promise<string[]> {
  const { problems } = await load(dir, testFile(dir, 't.yaml', text));
  return problems.map(formatProblem);
}

// eslint-disable-next-line no-control-regex -- finding control characters is the point
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('the nearest known name: one clear candidate or none', () => {
  it.each([
    ['agnet', ['agent', 'model', 'expect'], 'agent'],
    ['expcet', ['agent', 'model', 'expect'], 'expect'],
    ['rnu', ['run', 'test', 'keys'], 'run'],
    ['opnai', ['openai', 'anthropic', 'ollama'], 'openai'],
    ['OpenAI', ['openai', 'anthropic'], 'openai'],
    ['settins', ['settings', 'defaultModel'], 'settings'],
    ['timout', ['timeoutMs', 'cwd'], 'timeoutMs'],
    ['--modle', ['--model', '--replay'], '--model'],
  ])('%s -> %s', (name, known, guess) => {
    expect(nearestName(name, known)).toBe(guess);
  });

  it.each([
    ['a long random string', 'xq9vkz2lmwpt7rbe', ['expect', 'environment', 'injections']],
    ['a name far from every one', 'oracle', ['payer', 'agent']],
    ['two equally near', 'cat', ['bat', 'hat']],
    ['a two-letter name one edit away', 'ab', ['ac']],
    ['an empty name', '', ['a']],
    ['a huge name that starts like one', `agent${'x'.repeat(100_000)}`, ['agent']],
  ])('no guess for %s', (_, name, known) => {
    expect(nearestName(name, known)).toBeUndefined();
  });
});

describe('a mistyped name is one line, with "did you mean" and a rename, in every file kind', () => {
  it('a test file: agnet and expcet are two lines, and the missing agent is not a third', async () => {
    expect(
      await testFileLines(
        'cases:\n  - name: one\n    agnet: agents/echo-loop.lua\n    model: { replies: [] }\n    expcet:\n      final: hi\n',
      ),
    ).toEqual([
      'tests/t.yaml:3:5: error: cases.0: unknown field "agnet"; did you mean "agent"? (fix: Rename it to "agent".)',
      'tests/t.yaml:5:5: error: cases.0: unknown field "expcet"; did you mean "expect"? (fix: Rename it to "expect".)',
    ]);
  });

  it('a test file: a misspelt union field (modle) is not also "model is not one of the forms"', async () => {
    expect(
      await testFileLines('cases:\n  - name: one\n    agent: agents/echo-loop.lua\n    modle: { replies: [] }\n'),
    ).toEqual([
      'tests/t.yaml:4:5: error: cases.0: unknown field "modle"; did you mean "model"? (fix: Rename it to "model".)',
    ]);
  });

  it('a test file: a misspelt nested field, a tool, a model alias', async () => {
    expect(
      await testFileLines(
        'cases:\n  - name: one\n    agent: agents/echo-loop.lua\n    model: fsat\n    expect:\n      not_called: [ecko]\n  - name: two\n    agent: agents/echo-loop.lua\n    model: { replies: [{ contnet: hi }] }\n',
      ),
    ).toEqual([
      'tests/t.yaml:4:12: error: model "fsat" is not in models.yaml; did you mean "fast"? (fix: Write "fast" instead.)',
      'tests/t.yaml:6:20: error: tool "ecko" is not in this case\'s catalog (tools.yaml, the builtins); did you mean "echo"? (fix: Write "echo" instead.)',
      'tests/t.yaml:9:26: error: cases.1.model.replies.0: unknown field "contnet"; did you mean "content"? (fix: Rename it to "content".)',
    ]);
  });

  it('promptforge.yaml: a misspelt setting and a misspelt model alias', () => {
    expect(catalogLines('promptforge.yaml', 'defaultModel: fsat\nbuiltin: []\n')).toEqual([
      'promptforge.yaml:1:15: error: model "fsat" is not defined in models.yaml; did you mean "fast"? (fix: Write "fast" instead, or add "fsat" to models.yaml.)',
      'promptforge.yaml:2:1: error: settings has unknown field "builtin"; did you mean "builtins"? (fix: Rename it to "builtins".)',
    ]);
  });

  it('tools.yaml: a misspelt field of a tool is not also its missing field', () => {
    expect(catalogLines('tools.yaml', 'x:\n  kind: command\n  comand: [node, x.mjs]\n')).toEqual([
      'tools.yaml:3:3: error: tool "x" has unknown field "comand"; did you mean "command"? (fix: Rename it to "command".)',
    ]);
  });

  it('models.yaml: a misspelt field of a model', () => {
    expect(catalogLines('models.yaml', 'fast:\n  provider: openai\n  modle: gpt-4o-mini\n')).toEqual([
      'models.yaml:3:3: error: model "fast" has unknown field "modle"; did you mean "model"? (fix: Rename it to "model".)',
    ]);
  });

  it('the approval rules file: a misspelt field, and a far one kept as it was', () => {
    expect(
      rulesLines('version: 1\nrules:\n  - id: x\n    decision: allow\n    workspace: "*"\n    tol: t\n    zzzzzz: 1\n'),
    ).toEqual([
      'approval-rules.yaml:3: rules[0]: unknown field "tol"; did you mean "tool"? rename it to "tool"; unknown field "zzzzzz"; remove it (see schemas/approval-rules.schema.json)',
    ]);
  });

  it('with no close name, the fix stays what it was', async () => {
    expect(catalogLines('promptforge.yaml', 'xq9vkz2lmwpt: {}\n')).toEqual([
      'promptforge.yaml:1:1: error: settings has unknown field "xq9vkz2lmwpt" (fix: Remove "xq9vkz2lmwpt".)',
    ]);
    expect(
      await testFileLines(
        'cases:\n  - name: one\n    agent: agents/echo-loop.lua\n    model: { replies: [] }\n    xq9vkz2lmwpt: 1\n',
      ),
    ).toEqual([
      'tests/t.yaml:5:5: error: cases.0: unknown field "xq9vkz2lmwpt" (fix: Remove "xq9vkz2lmwpt" or correct its name (docs/testing.md lists the fields).)',
    ]);
  });
});

describe('an untrusted name is shown safely: control characters spelled out, long names cut', () => {
  const evil = `a\u001b]0;title\u0007\u009b2J\u202e${'x'.repeat(900)}`;

  it('shownName spells out control and direction characters and cuts at 80', () => {
    const shown = shownName(evil);
    expect(shown.startsWith('a\\u{1b}]0;title\\u{7}\\u{9b}2J\\u{202e}xxx')).toBe(true);
    expect(shown).toHaveLength(81 + '\\u{1b}\\u{7}\\u{9b}\\u{202e}'.length - 4);
    expect(shown.endsWith('x…')).toBe(true);
  });

  it.each([
    ['promptforge.yaml', () => catalogLines('promptforge.yaml', `${JSON.stringify(evil)}: 1\n`)],
    [
      'tools.yaml',
      () => catalogLines('tools.yaml', `x:\n  kind: command\n  command: [a]\n  ${JSON.stringify(evil)}: 1\n`),
    ],
    [
      'approval-rules.yaml',
      () =>
        rulesLines(
          `version: 1\nrules:\n  - id: x\n    decision: allow\n    workspace: "*"\n    tool: t\n    ${JSON.stringify(evil)}: 1\n`,
        ),
    ],
  ])('an unknown field in %s', (_, lines) => {
    const [line, ...rest] = lines();
    expect(rest).toEqual([]);
    expect(line).toContain(`"${shownName(evil)}"`);
    expect(line).not.toMatch(UNSAFE);
    expect(line!.length).toBeLessThan(400);
  });

  it('an unknown field, a model and a tool in a test file', async () => {
    const name = JSON.stringify(evil);
    const lines = await testFileLines(
      `cases:\n  - name: one\n    agent: agents/echo-loop.lua\n    model: ${name}\n    expect: { not_called: [${name}] }\n  - name: two\n    agent: agents/echo-loop.lua\n    model: { replies: [] }\n    ${name}: 1\n`,
    );
    expect(lines).toHaveLength(3);
    for (const line of lines) {
      expect(line).toContain(`"${shownName(evil)}"`);
      expect(line).not.toMatch(UNSAFE);
      expect(line.length).toBeLessThan(400);
    }
  });
});
