import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRulesText } from '../../../main/core/rules/rules-file.js';
import { RULES_SCHEMA_PATH, rulesJsonSchemaText } from '../../../main/core/rules/rules-schema.js';

const root = path.resolve(import.meta.dirname, '../../..');

function problems(text: string) {
  const parsed = parseRulesText(text);
  if (parsed.ok) throw new Error('expected problems');
  return parsed;
}

describe('the rules file', () => {
  it('reads a good file', () => {
    const parsed = parseRulesText(
      'version: 1\nrules:\n  - id: mail\n    decision: allow\n    workspace: "*"\n    tool: send\n    when:\n      - { pointer: /to, oneOf: [a@x.org, b@x.org] }\n',
    );
    expect(parsed.ok && parsed.file.rules?.[0]?.when?.[0]?.oneOf).toEqual(['a@x.org', 'b@x.org']);
  });

  it('names the line of broken YAML, and says to fix the syntax', () => {
    const found = problems('version: 1\nrules:\n  - id: x\n    decision: [allow\n');
    expect(found.problems[0]?.line).toBeGreaterThanOrEqual(4);
    expect(found.problems[0]?.message).toMatch(/not valid YAML.*fix the YAML syntax/);
  });

  it('names the line and the field of a wrong value, with the choices', () => {
    const found = problems('version: 1\nrules:\n  - id: x\n    decision: maybe\n    workspace: "*"\n    tool: t\n');
    expect(found.problems[0]).toMatchObject({ line: 4, field: 'rules[0].decision' });
    expect(found.problems[0]?.message).toMatch(/allow, ask, deny/);
  });

  it('refuses an unknown field by name', () => {
    const found = problems(
      'version: 1\nrules:\n  - id: x\n    decision: allow\n    workspace: "*"\n    tool: t\n    alow: true\n',
    );
    expect(found.problems[0]?.message).toMatch(/unknown field "alow"/);
    expect(found.problems[0]?.line).toBe(3);
  });

  it('refuses a file from a newer version, saying to update (and that nothing applies meanwhile)', () => {
    const found = problems('version: 2\nrules: []\nsomethingNew: {}\n');
    expect(found.newer).toBe(2);
    expect(found.problems[0]).toMatchObject({ line: 1, field: 'version' });
    expect(found.problems[0]?.message).toMatch(/newer PromptForge.*every call asks/);
  });

  it('refuses a pattern RE2 cannot run, naming the rule and the field', () => {
    const found = problems(
      'version: 1\nrules:\n  - id: back\n    decision: deny\n    workspace: "*"\n    tool: t\n    when:\n      - { pointer: /a, pattern: "(a)\\\\1" }\n',
    );
    expect(found.problems[0]).toMatchObject({ line: 8, field: 'rules[0].when[0].pattern' });
    expect(found.problems[0]?.message).toMatch(/RE2 cannot run this pattern.*backreference/);
  });

  it('refuses an entry with two targets, a condition with two tests, a duplicate id, a relative workspace', () => {
    const found = problems(
      [
        'version: 1',
        'rules:',
        '  - { id: a, decision: allow, workspace: "*", tool: t, tools: "t*" }',
        '  - { id: a, decision: allow, workspace: here, tool: t, when: [{ pointer: /x, equals: 1, glob: "*" }] }',
      ].join('\n'),
    );
    const text = found.problems.map((problem) => `${problem.field}: ${problem.message}`).join('\n');
    expect(text).toMatch(/rules\[0\]: give exactly one of "tool".*not tool and tools/);
    expect(text).toMatch(/rules\[1\]\.id: id "a" is used twice/);
    expect(text).toMatch(/rules\[1\]\.workspace: "here" is not an absolute path/);
    expect(text).toMatch(/rules\[1\]\.when\[0\]: a condition holds exactly one test.*not equals and glob/);
  });

  it('refuses a URL host that is not a host, and an overlong glob', () => {
    const found = problems(
      `version: 1\nrules:\n  - { id: a, decision: allow, workspace: "*", tools: "${'x'.repeat(600)}*", when: [{ pointer: /u, urlHost: ["example.com/path"] }] }\n`,
    );
    const text = found.problems.map((problem) => `${problem.field}: ${problem.message}`).join('\n');
    expect(text).toMatch(/rules\[0\]\.tools: the glob is over 512 characters/);
    expect(text).toMatch(/rules\[0\]\.when\[0\]\.urlHost\[0\]: "example.com\/path" is not a host name/);
  });

  it('refuses __proto__ keys anywhere', () => {
    const found = problems(
      'version: 1\nrules:\n  - id: a\n    decision: allow\n    workspace: "*"\n    tool: t\n    __proto__: { decision: allow }\n',
    );
    expect(found.problems[0]?.message).toMatch(/__proto__/);
  });

  it('keeps schemas/approval-rules.schema.json equal to its definition (npm run schemas)', () => {
    expect(readFileSync(path.join(root, RULES_SCHEMA_PATH), 'utf8')).toBe(rulesJsonSchemaText());
  });
});
