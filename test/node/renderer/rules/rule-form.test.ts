// The rule form's pure logic (renderer/src/rules/rule-form.ts) and the server's claims in words, run
// in Node (what a card says about a press it ignores is checked in the page: studio-inline-approvals). The rules these make are checked by the
// core itself (ruleProblems), so a form can never send what the file would refuse without saying.
import { describe, expect, it } from 'vitest';
import { ruleProblems } from '../../../../main/core/rules/rules-file.js';
import { claimsSentence, claimWords } from '../../../../renderer/src/approvals/server-claims.js';
import {
  conditionOf,
  draftOf,
  rowsOf,
  startText,
  type ConditionRow,
} from '../../../../renderer/src/rules/rule-form.js';
import type { RuleDraft } from '../../../../common/rules-schemas.js';

const base: RuleDraft = {
  id: 'allow-send-20261204t2015',
  decision: 'allow',
  workspace: '/home/ana/site',
  tool: 'send',
  when: [
    { pointer: '/to', equals: 'ana@example.org' },
    { pointer: '/count', equals: 3 },
  ],
};
const args = { to: 'ana@example.org', count: 3, 'a/b': 'x', link: 'https://docs.example.org/a?b=1' };

describe('the rule form', () => {
  it('has a row per condition, and one per other argument of the call as "any value"', () => {
    const rows = rowsOf(base, args);
    expect(rows.map((row) => [row.pointer, row.kind, row.text])).toEqual([
      ['/to', 'equals', '"ana@example.org"'],
      ['/count', 'equals', '3'],
      ['/a~1b', 'any', ''],
      ['/link', 'any', ''],
    ]);
    expect(rows[1]?.value).toBe(3);
  });

  it('starts each test from the call’s value, or the core’s suggestion, escaping a pattern', () => {
    const row: ConditionRow = { pointer: '/link', kind: 'any', text: '', value: args.link };
    expect(startText('oneOf', row)).toBe(args.link);
    expect(startText('glob', row)).toBe(args.link);
    expect(startText('pattern', row)).toBe('https://docs\\.example\\.org/a\\?b=1');
    expect(startText('urlHost', row, { pointer: '/link', urlHost: ['docs.example.org'] })).toBe('docs.example.org');
    expect(startText('inFolder', row)).toBe('');
    expect(startText('equals', { ...row, value: 3 })).toBe('3');
  });

  it('makes conditions the core accepts, keeping texts as texts and other values as JSON', () => {
    const made = (row: Omit<ConditionRow, 'pointer'>) => conditionOf({ pointer: '/x', ...row });
    expect(made({ kind: 'oneOf', text: ' 42 \n\nb ', value: 'a' })).toEqual({
      ok: true,
      condition: { pointer: '/x', oneOf: ['42', 'b'] },
    });
    expect(made({ kind: 'oneOf', text: '1\n2', value: 7 })).toEqual({
      ok: true,
      condition: { pointer: '/x', oneOf: [1, 2] },
    });
    expect(made({ kind: 'urlHost', text: 'a.example, *.b.example\n' })).toEqual({
      ok: true,
      condition: { pointer: '/x', urlHost: ['a.example', '*.b.example'] },
    });
    expect(made({ kind: 'any', text: 'ignored' })).toEqual({ ok: true });
    // What cannot make a condition says which argument and what to write.
    expect(made({ kind: 'equals', text: 'ana' })).toEqual({
      ok: false,
      problem: '/x: write the value as JSON (a text in double quotes, "like this")',
    });
    expect(made({ kind: 'oneOf', text: '  \n' })).toMatchObject({
      ok: false,
      problem: '/x: give at least one value, one per line',
    });
    expect(made({ kind: 'oneOf', text: 'x', value: 1 })).toMatchObject({
      ok: false,
      problem: '/x: "x" is not a JSON value',
    });
    expect(made({ kind: 'glob', text: '' })).toMatchObject({ ok: false, problem: '/x: fill in the glob' });
  });

  it('makes the rule from its fields: the target, the workspace and the conditions, and nothing else changes', () => {
    const rows = rowsOf(base, args).map((row) =>
      row.pointer === '/to'
        ? { ...row, kind: 'glob' as const, text: '*@example.org' }
        : row.pointer === '/count'
          ? { ...row, kind: 'any' as const }
          : row,
    );
    const made = draftOf(
      { ...base, sinks: ['/to'], note: 'mine' },
      { target: { kind: 'tools', glob: 'send*' }, workspace: '*', rows },
    );
    expect(made).toEqual({
      ok: true,
      draft: {
        id: base.id,
        decision: 'allow',
        workspace: '*',
        tools: 'send*',
        when: [{ pointer: '/to', glob: '*@example.org' }],
        sinks: ['/to'],
        note: 'mine',
      },
    });
    expect(made.ok && ruleProblems(made.draft)).toEqual([]);
    // Every argument any value: no `when` at all.
    const any = draftOf(base, { target: { kind: 'tool', alias: 'send' }, workspace: '*', rows: rowsOf({}, args) });
    expect(any.ok && any.draft.when).toBeUndefined();
    // A server target replaces the alias.
    const server = draftOf(base, {
      target: { kind: 'server', server: { url: 'https://mcp.example/' } },
      workspace: '*',
      rows: [],
    });
    expect(server.ok && [server.draft.server, server.draft.tool]).toEqual([{ url: 'https://mcp.example/' }, undefined]);
  });
});

describe('what a card says', () => {
  it('words the server’s claims as its claims, in a fixed order', () => {
    expect(claimWords({ openWorldHint: false, readOnlyHint: true })).toEqual(['read-only', 'stays in its own world']);
    expect(
      claimsSentence({ destructiveHint: true, idempotentHint: false, readOnlyHint: false, openWorldHint: true }),
    ).toBe('The server says: changes things, destructive, not idempotent, reaches the outside world');
    expect(claimsSentence(undefined)).toBe('');
    expect(claimsSentence({})).toBe('');
  });
});
