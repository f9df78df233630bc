import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Condition, Rule } from '../../../common/approval-rules.js';
import type { JsonObject } from '../../../common/json.js';
import { RuleSet, serverIdentity, valueAt } from '../../../main/core/rules/rule-match.js';
import { describeRule, explainDecision, narrowestRuleFor, widen } from '../../../main/core/rules/rule-words.js';

const WS = realpathSync(mkdtempSync(path.join(tmpdir(), 'pf-rules-ws-')));
mkdirSync(path.join(WS, 'reports/2026'), { recursive: true });
writeFileSync(path.join(WS, 'reports/2026/q1.md'), '# q1');
mkdirSync(path.join(WS, 'reportsold'));
const OUTSIDE = realpathSync(mkdtempSync(path.join(tmpdir(), 'pf-rules-out-')));
symlinkSync(OUTSIDE, path.join(WS, 'reports/escape'));

/** Whether a deny rule with `condition` on /x matches `value`. */
function holds(condition: Omit<Condition, 'pointer'>, value: unknown): boolean {
  const rule: Rule = { id: 'r', decision: 'deny', workspace: WS, tool: 't', when: [{ pointer: '/x', ...condition }] };
  const [match] = new RuleSet({ version: 1, rules: [rule] }).rulesFor({
    alias: 't',
    arguments: { x: value } as JsonObject,
    workspace: WS,
  });
  return match!.matched;
}

describe('argument conditions', () => {
  it('equals and oneOf compare JSON values, whatever the key order', () => {
    expect(holds({ equals: { a: 1, b: [2] } }, { b: [2], a: 1 })).toBe(true);
    expect(holds({ equals: '1' }, 1)).toBe(false);
    expect(holds({ oneOf: ['a', 2] }, 2)).toBe(true);
    expect(holds({ oneOf: ['a', 2] }, 'b')).toBe(false);
  });

  it('glob: * and ? only, every other character literal', () => {
    expect(holds({ glob: 'report-*.pdf' }, 'report-2026.pdf')).toBe(true);
    expect(holds({ glob: 'report-*.pdf' }, 'report-2026xpdf')).toBe(false);
    expect(holds({ glob: 'a?c' }, 'abc')).toBe(true);
    expect(holds({ glob: '(a+)+' }, 'aaa')).toBe(false);
    expect(holds({ glob: '*.pdf' }, 'x.pdf\nrm -rf /')).toBe(false);
  });

  it('pattern: a whole match on RE2', () => {
    expect(holds({ pattern: '[A-Z]{2}[0-9]{20}' }, 'GB29000000000000000000')).toBe(true);
    expect(holds({ pattern: '[A-Z]{2}[0-9]{20}' }, 'xGB29000000000000000000')).toBe(false);
    expect(holds({ pattern: '[0-9]+' }, 12)).toBe(false);
  });

  it.each([
    ['https://docs.example.com/a', true],
    ['https://DOCS.Example.COM./a', true],
    ['http://docs.example.com/', true],
    ['https://docs.example.com:8443/', false],
    ['https://docs.example.com.evil.net/', false],
    ['https://evil.net/docs.example.com', false],
    ['https://evil.net#@docs.example.com', false],
    ['https://docs.example.com@evil.net/', false],
    ['https://user:pw@docs.example.com/', false],
    ['https://evil.net\\@docs.example.com/', false],
    ['ftp://docs.example.com/', false],
    ['javascript://docs.example.com/%0aalert(1)', false],
    ['docs.example.com', false],
    ['https://xn--dcs-6na.example.com/', false],
  ])('urlHost docs.example.com: %s → %s', (url, expected) => {
    expect(holds({ urlHost: ['docs.example.com'] }, url)).toBe(expected);
  });

  it('urlHost: subdomain wildcards, explicit ports, IDN hosts compared as punycode', () => {
    expect(holds({ urlHost: ['*.example.com'] }, 'https://a.b.example.com/')).toBe(true);
    expect(holds({ urlHost: ['*.example.com'] }, 'https://example.com/')).toBe(false);
    expect(holds({ urlHost: ['*.example.com'] }, 'https://badexample.com/')).toBe(false);
    expect(holds({ urlHost: ['example.com:8443'] }, 'https://example.com:8443/')).toBe(true);
    expect(holds({ urlHost: ['bücher.example'] }, 'https://xn--bcher-kva.example/')).toBe(true);
    expect(holds({ urlHost: ['bücher.example'] }, 'https://BÜCHER.example/')).toBe(true);
  });

  it('inFolder: resolved, symlink-safe, no prefix tricks', () => {
    expect(holds({ inFolder: 'reports' }, 'reports/2026/q1.md')).toBe(true);
    expect(holds({ inFolder: 'reports' }, 'reports/2026/new-file.md')).toBe(true);
    expect(holds({ inFolder: 'reports' }, path.join(WS, 'reports/2026/q1.md'))).toBe(true);
    expect(holds({ inFolder: 'reports' }, 'reports/../secrets.txt')).toBe(false);
    expect(holds({ inFolder: 'reports' }, 'reportsold/x')).toBe(false);
    expect(holds({ inFolder: 'reports' }, 'reports/escape/x')).toBe(false);
    expect(holds({ inFolder: 'reports' }, '/etc/passwd')).toBe(false);
    expect(holds({ inFolder: 'reports' }, 'reports/\0x')).toBe(false);
    expect(holds({ inFolder: '../' }, 'anything')).toBe(false);
  });

  it('reads own members only (no prototype look-ups)', () => {
    expect(valueAt({ a: {} } as JsonObject, '/a/constructor')).toBeUndefined();
    expect(valueAt({ a: ['x'] } as JsonObject, '/a/length')).toBeUndefined();
    expect(holds({ equals: 'x' }, undefined)).toBe(false);
  });
});

describe('server identity', () => {
  it('a relative command is resolved against its workspace, so a look-alike elsewhere is another server', () => {
    expect(serverIdentity({ type: 'stdio', command: './srv.js', args: ['--x'] }, '/w/a')).toEqual({
      command: ['/w/a/srv.js', '--x'],
    });
    expect(serverIdentity({ type: 'stdio', command: 'npx', args: ['pkg'] }, '/w/a')).toEqual({
      command: ['npx', 'pkg'],
    });
    expect(serverIdentity({ type: 'http', url: 'https://mcp.example/x' }, '/w/a')).toEqual({
      url: 'https://mcp.example/x',
    });
  });
});

describe('rules for people', () => {
  const call = {
    alias: 'save',
    arguments: { path: 'reports/2026/q2.md', url: 'https://docs.example.com/a?b=1', mode: 'w' } as JsonObject,
    workspace: WS,
    digest: 'a'.repeat(64),
  };

  it('the narrowest rule pins this tool, these values, this workspace and this definition', () => {
    const rule = narrowestRuleFor(call, { id: 'save-q2', now: new Date('2026-12-04T10:00:00Z') });
    expect(rule).toMatchObject({
      id: 'save-q2',
      decision: 'allow',
      workspace: WS,
      tool: 'save',
      when: [
        { pointer: '/path', equals: 'reports/2026/q2.md' },
        { pointer: '/url', equals: 'https://docs.example.com/a?b=1' },
        { pointer: '/mode', equals: 'w' },
      ],
      confirmed: [{ alias: 'save', digest: 'a'.repeat(64) }],
    });
    expect(explainDecision({ version: 1, rules: [rule] }, call).verdict).toMatchObject({ outcome: 'allow' });
    expect(
      explainDecision({ version: 1, rules: [rule] }, { ...call, arguments: { ...call.arguments, mode: 'a' } }).verdict
        .outcome,
    ).toBe('none');
  });

  it('offers widenings: any value, a folder, a host, every workspace', () => {
    const labels = widen(narrowestRuleFor(call), call).map((option) => option.label);
    expect(labels).toEqual([
      'any value of /path',
      'any /path inside reports/2026/',
      'any value of /url',
      'any /url on docs.example.com',
      'any value of /mode',
      'in every workspace',
    ]);
    const folder = widen(narrowestRuleFor(call), call)[1]!.rule;
    expect(
      explainDecision(
        { version: 1, rules: [folder] },
        { ...call, arguments: { ...call.arguments, path: 'reports/2026/q3.md' } },
      ).verdict.outcome,
    ).toBe('allow');
  });

  it('describes a rule in plain words', () => {
    expect(describeRule(narrowestRuleFor(call))).toMatch(
      /^Allows calls of tool "save" in the workspace .* when \/path is "reports\/2026\/q2.md" and .*\. It covers only the tool definition you confirmed \(1\); a new or changed tool asks once first\. Calls whose arguments carry untrusted text still ask\.$/,
    );
    expect(describeRule({ id: 'x', decision: 'deny', workspace: '*', tools: 'shell.*' })).toBe(
      'Denies calls of every tool whose alias matches "shell.*" in every workspace, whatever the arguments.',
    );
  });

  it('explains conflicts: every matching rule, which one decided and why', () => {
    const { lines } = explainDecision(
      {
        version: 1,
        rules: [
          {
            id: 'allow-save',
            decision: 'allow',
            workspace: '*',
            tool: 'save',
            confirmed: [{ alias: 'save', digest: 'a'.repeat(64), at: 'x' }],
          },
          {
            id: 'ask-urls',
            decision: 'ask',
            workspace: '*',
            tool: 'save',
            when: [{ pointer: '/url', urlHost: ['evil.net'] }],
          },
          { id: 'deny-save', decision: 'deny', workspace: WS, tools: 's*', when: [{ pointer: '/mode', equals: 'w' }] },
        ],
      },
      call,
    );
    expect(lines).toEqual([
      'rule "allow-save" (allow): matched, outranked',
      'rule "ask-urls" (ask): did not match',
      '  no   /url is an http(s) URL on evil.net (its host is docs.example.com)',
      'rule "deny-save" (deny): DECIDES',
      '  yes  /mode is "w"',
      'rule "deny-save" decides: deny',
    ]);
  });
});
