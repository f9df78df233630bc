import { describe, expect, it } from 'vitest';
import { buildWorkspace } from '../../../main/core/catalog/workspace.js';

/** The problems of a tools.yaml (or models.yaml / promptforge.yaml) text, as `message (fix)` lines. */
function problems(file: 'tools.yaml' | 'models.yaml' | 'promptforge.yaml', text: string): string[] {
  return buildWorkspace('/nowhere', { [file]: text })
    .problems.filter((problem) => problem.file === file && problem.severity === 'error')
    .map((problem) => `${problem.pointer}: ${problem.message} (fix: ${problem.fix})`);
}

// Every message names the field as the form and the file name it, says one thing, and gives one fix;
// none repeats the validator's own words ("must NOT have fewer than", "must be string").
const VALIDATOR_WORDS = /must NOT have|must be (string|array|object|boolean|integer|number)\b|>=|<=|Correct "/;

describe('catalog problems speak the catalog’s language, one per mistake, with one fix', () => {
  it('a command tool added by the form (command: []) is one problem: the list is empty', () => {
    expect(problems('tools.yaml', 'x:\n  kind: command\n  command: []\n')).toEqual([
      '/x/command: tool "x": "command" is an empty list (fix: Add an item, e.g. [node, tools/search.js].)',
    ]);
  });

  it('command: node x.mjs (text where a list goes) shows the very list to write', () => {
    expect(problems('tools.yaml', 'x:\n  kind: command\n  command: node tools/x.mjs --fast\n')).toEqual([
      '/x/command: tool "x": "command" must be a list (fix: Write it as a list, one item per word: command: [node, tools/x.mjs, --fast])',
    ]);
  });

  it('an MCP server may give its command as text, and then nothing is wrong with it', () => {
    expect(problems('tools.yaml', 'fs:\n  kind: mcp\n  command: npx\n  args: [server]\n')).toEqual([]);
  });

  it.each([
    [
      'x:\n  kind: command\n  command: [""]\n',
      '/x/command/0: tool "x": "command" item 1 is empty (fix: Write something there, or remove it.)',
    ],
    [
      'x:\n  kind: command\n  command: [node, 5]\n',
      '/x/command/1: tool "x": "command" item 2 must be text (fix: Put it in quotes: "5")',
    ],
    [
      'x:\n  kind: command\n  command: [node]\n  timeoutMs: "5000"\n',
      '/x/timeoutMs: tool "x": "timeoutMs" must be a whole number (fix: Write the number without quotes: timeoutMs: 5000)',
    ],
    [
      'x:\n  kind: command\n  command: [node]\n  timeoutMs: 0\n',
      '/x/timeoutMs: tool "x": "timeoutMs" must be at least 1 (fix: Use a number at least 1, or remove "timeoutMs" for the default.)',
    ],
    [
      'x:\n  kind: http\n  url: https://a.example/x\n  headers:\n    Authorization: { secrt: k }\n',
      '/x/headers/Authorization/secrt: tool "x" has unknown field "secrt"; did you mean "secret"? (fix: Rename it to "secret".)',
    ],
    [
      'x:\n  kind: http\n  url: https://a.example/x\n  headers:\n    Authorization: [a, b]\n',
      '/x/headers/Authorization: tool "x": "headers/Authorization" must be text or a mapping (name: value lines) (fix: Change "headers/Authorization" to text or a mapping (name: value lines).)',
    ],
  ])('%j', (text, expected) => {
    expect(problems('tools.yaml', text)).toEqual([expected]);
  });

  it('settings and models too', () => {
    expect(problems('promptforge.yaml', 'builtins: "yes"\n')).toEqual([
      '/builtins: settings: "builtins" must be true or false (fix: Change "builtins" to true or false.)',
    ]);
    expect(problems('models.yaml', 'm:\n  provider: openai\n  model: x\n  defaults: { temperature: 9 }\n')).toEqual([
      '/m/defaults/temperature: model "m": "defaults/temperature" must be at most 2 (fix: Use a number at most 2, or remove "defaults/temperature" for the default.)',
    ]);
  });

  it('no message anywhere in a corpus of mistakes uses the validator’s words', () => {
    const texts = [
      'x:\n  kind: command\n  command: []\n  env: [1]\n  cwd: 5\n  maxOutputBytes: -1\n',
      'x:\n  kind: mcp\n  command: []\n  env: { A: [1] }\n  prefix: "!!"\n',
      'x:\n  kind: http\n  url: 5\n  headers: { A: { secret: "" } }\n',
      'x:\n  kind: builtin\n  builtin: echo\n  parameters: 5\n  approval: maybe\n  taintCheck: "no"\n',
    ];
    for (const text of texts)
      for (const line of problems('tools.yaml', text)) expect(line, line).not.toMatch(VALIDATOR_WORDS);
  });
});
