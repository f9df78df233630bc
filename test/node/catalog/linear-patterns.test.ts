import { writeFile } from 'node:fs/promises';
import { RE2JS } from 're2js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadWorkspace } from '../../../main/core/catalog/workspace.js';
import { MAX_URL_FORMAT_LENGTH, UserSchemaCompiler } from '../../../main/core/catalog/catalog-schemas.js';
import { compileLinearPattern, maxPatternInputLength, UnsupportedPatternError } from '../../../common/linear-regexp.js';
import { makeTempDir, removeTempDir } from './helpers.js';

// Each of these takes a backtracking engine longer than the age of the universe on the inputs
// below. The tests make no timing assertion: with a backtracking engine they never finish.
const CATASTROPHIC: { pattern: string; input: string; matches: boolean }[] = [
  { pattern: '^(a+)+$', input: `${'a'.repeat(100_000)}!`, matches: false },
  { pattern: '^(a+)+$', input: 'a'.repeat(100_000), matches: true },
  { pattern: '^(a|a)*$', input: `${'a'.repeat(50_000)}b`, matches: false },
  { pattern: '^(a|aa)+$', input: `${'a'.repeat(50_000)}b`, matches: false },
  { pattern: '(x+x+)+y', input: 'x'.repeat(100_000), matches: false },
  { pattern: '^(\\w+\\s?)*$', input: `${'word '.repeat(20_000)}!`, matches: false },
  { pattern: '^([a-z0-9]+\\.)*[a-z0-9]+$', input: `${'a.'.repeat(40_000)}-`, matches: false },
  { pattern: '^(.*a){20}$', input: 'a'.repeat(10_000), matches: true },
  { pattern: '^(\\d+)*[a-z]$', input: `${'1'.repeat(100_000)}!`, matches: false },
  { pattern: '^(?<word>[a-z]+)+$', input: `${'abc'.repeat(30_000)}1`, matches: false },
];

describe('schema patterns run in linear time', () => {
  it.each(CATASTROPHIC)(
    '$pattern gives the right verdict on $input.length characters',
    ({ pattern, input, matches }) => {
      expect(compileLinearPattern(pattern).test(input)).toBe(matches);
    },
  );

  it('ajv compiled by the user-schema compiler answers through RE2 (parameters, patternProperties, propertyNames)', () => {
    const compiler = new UserSchemaCompiler();
    const validate = compiler.compile({
      type: 'object',
      properties: { text: { type: 'string', pattern: '^(a+)+$' } },
      patternProperties: { '^(b+)+$': { type: 'integer' } },
      propertyNames: { pattern: '^(t|e|x|a+|b+)+$' },
    });
    expect(validate({ text: `${'a'.repeat(100_000)}!` })).toBe(false);
    expect(validate({ text: 'a'.repeat(100_000) })).toBe(true);
    expect(validate({ [`${'b'.repeat(50_000)}`]: 'not a number' })).toBe(false);
    expect(validate({ [`${'ab'.repeat(50_000)}c`]: 1 })).toBe(false);
  });

  it('draft-07 schemas use RE2 too', () => {
    const validate = new UserSchemaCompiler().compile({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'string',
      pattern: '^(a|a)*$',
    });
    expect(validate(`${'a'.repeat(100_000)}b`)).toBe(false);
  });

  it('RE2 semantics are visible: "." matches a carriage return, unlike a JavaScript RegExp', () => {
    // Proves that the engine in use is RE2 and not the backtracking one.
    const validate = new UserSchemaCompiler().compile({ type: 'string', pattern: '^a.b$' });
    expect(validate('a\rb')).toBe(true);
    expect(/^a.b$/u.test('a\rb')).toBe(false);
  });

  it('Unicode script and category classes are spelt for RE2 and keep their meaning', () => {
    const validate = new UserSchemaCompiler().compile({
      type: 'object',
      properties: {
        greek: { type: 'string', pattern: '^\\p{Script=Greek}+$' },
        upper: { type: 'string', pattern: '^\\p{gc=Lu}\\P{sc=Latin}$' },
        letters: { type: 'string', pattern: '^\\p{L}+$' },
      },
    });
    expect(validate({ greek: 'αβγ', upper: 'Aα', letters: 'héllo' })).toBe(true);
    expect(validate({ greek: 'abc' })).toBe(false);
    expect(validate({ upper: 'aα' })).toBe(false);
    expect(validate({ upper: 'Ab' })).toBe(false);
  });

  it('two patterns in one schema are not confused with each other (ajv shares patterns by key)', () => {
    const validate = new UserSchemaCompiler().compile({
      type: 'object',
      properties: { a: { type: 'string', pattern: '^a$' }, b: { type: 'string', pattern: '^b$' } },
    });
    expect(validate({ a: 'a', b: 'b' })).toBe(true);
    expect(validate({ a: 'b', b: 'b' })).toBe(false);
    expect(validate({ a: 'a', b: 'a' })).toBe(false);
  });

  it('the "url" format refuses over-long values instead of backtracking on them', () => {
    const validate = new UserSchemaCompiler().compile({ type: 'string', format: 'url' });
    expect(validate('https://example.com/search?q=1')).toBe(true);
    expect(validate(`http://a.${':@'.repeat(200_000)}`)).toBe(false);
    expect(validate(`https://example.com/${'a'.repeat(MAX_URL_FORMAT_LENGTH)}`)).toBe(false);
  });

  it.each([
    ['(a)\\1', 'backreference'],
    ['(?<n>a)\\k<n>', 'named backreference'],
    ['a(?=b)', 'lookahead'],
    ['a(?!b)', 'lookahead'],
    ['(?<=a)b', 'lookbehind'],
    ['(?<!a)b', 'lookbehind'],
    ['a{1001}', 'not supported by RE2'],
    ['(', 'not a valid regular expression'],
    ['\\p{NoSuchProperty}', 'not a valid regular expression'],
  ])('%s is refused with a reason (%s) and a fix', (pattern, reason) => {
    let thrown: unknown;
    try {
      compileLinearPattern(pattern);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UnsupportedPatternError);
    expect((thrown as UnsupportedPatternError).message).toContain(reason);
    expect((thrown as UnsupportedPatternError).fix.length).toBeGreaterThan(10);
  });

  it.each([
    [
      'a pattern over 4096 characters',
      `(${Array.from({ length: 2000 }, (_, i) => `w${i}`).join('|')})`,
      'characters long',
    ],
    ['repeats that expand past RE2 size (found before compiling)', '.{1000}'.repeat(200), 'repeats expand'],
    ['a compiled program over 5000 instructions', '[\\p{L}\\p{N}]{1000}'.repeat(6), 'instructions; at most 5000'],
    ['nested groups that expand', '((ab){30}c){30}'.repeat(30), 'too large'],
  ])('%s is refused, with a fix', (_, pattern, reason) => {
    let thrown: unknown;
    try {
      compileLinearPattern(pattern);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UnsupportedPatternError);
    expect((thrown as UnsupportedPatternError).message).toContain(reason);
    expect((thrown as UnsupportedPatternError).message.length).toBeLessThan(300);
    expect((thrown as UnsupportedPatternError).fix).toContain('enum');
  });

  it('a value too long for its pattern fails the pattern instead of running for seconds', () => {
    const pattern = '^[a-z]{1000}';
    const regexp = compileLinearPattern(pattern);
    const limit = maxPatternInputLength(regexp);
    expect(limit).toBeGreaterThanOrEqual(10_000);
    const validate = new UserSchemaCompiler().compile({ type: 'string', pattern });
    expect(validate('a'.repeat(limit))).toBe(true);
    expect(validate('a'.repeat(limit + 1))).toBe(false);
    // A small pattern still takes megabytes.
    expect(maxPatternInputLength(compileLinearPattern('^(a+)+$'))).toBeGreaterThan(1_000_000);
  });

  it.each(['\\\\1', '[(?=]x', '\\(\\?=', '(?<name>a)b', '[\\]1]', 'a\\\\k'])(
    '%s is not mistaken for a backreference or lookaround',
    (pattern) => {
      expect(() => compileLinearPattern(pattern)).not.toThrow();
    },
  );
});

describe('catalog patterns RE2 cannot run', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await makeTempDir();
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await removeTempDir(dir);
  });

  const TOOLS = [
    'good:', // 1
    '  kind: builtin', // 2
    '  builtin: echo', // 3
    '  description: Echo', // 4
    '  parameters:', // 5
    '    type: object', // 6
    '    properties:', // 7
    '      text: { type: string, pattern: "^(a+)+$" }', // 8
    'backref:', // 9
    '  kind: builtin', // 10
    '  builtin: echo', // 11
    '  description: Echo', // 12
    '  parameters:', // 13
    '    type: object', // 14
    '    properties:', // 15
    '      pattern:', // 16 (a property named "pattern" is not a pattern)
    '        type: string', // 17
    '        pattern: "(a)\\\\1"', // 18
    'look:', // 19
    '  kind: builtin', // 20
    '  builtin: echo', // 21
    '  description: Echo', // 22
    '  parameters:', // 23
    '    type: object', // 24
    '    patternProperties:', // 25
    '      "(?=x)y": { type: string }', // 26
    '    $defs:', // 27
    '      deep:', // 28
    '        items:', // 29
    '          anyOf:', // 30
    '            - { pattern: "(?<!a)b" }', // 31
    'out:', // 32
    '  kind: builtin', // 33
    '  builtin: echo', // 34
    '  description: Echo', // 35
    '  output:', // 36
    '    type: object', // 37
    '    properties:', // 38
    '      id: { type: string, pattern: "x{2000}" }', // 39
    'fine:', // 40
    '  kind: builtin', // 41
    '  builtin: echo', // 42
    '  description: Echo', // 43
    '  parameters:', // 44
    '    type: object', // 45
    '    properties:', // 46
    '      pattern: { type: string, pattern: "^\\\\\\\\1[(?=]$" }', // 47
    '',
  ].join('\n');

  it('each one is a problem at its file, pointer, line and column, with a fix; only that tool is dropped', async () => {
    await writeFile(`${dir}/tools.yaml`, TOOLS);
    const workspace = await loadWorkspace(dir);
    const errors = workspace.problems.filter((problem) => problem.severity === 'error');
    const summary = errors.map(({ file, pointer, line, column }) => ({ file, pointer, line, column }));
    expect(summary).toEqual([
      { file: 'tools.yaml', pointer: '/backref/parameters/properties/pattern/pattern', line: 18, column: 18 },
      { file: 'tools.yaml', pointer: '/look/parameters/patternProperties/(?=x)y', line: 26, column: 7 },
      { file: 'tools.yaml', pointer: '/look/parameters/$defs/deep/items/anyOf/0/pattern', line: 31, column: 26 },
      { file: 'tools.yaml', pointer: '/out/output/properties/id/pattern', line: 39, column: 36 },
    ]);
    expect(errors[0]?.message).toContain('backreference');
    expect(errors[1]?.message).toContain('lookahead');
    expect(errors[2]?.message).toContain('lookbehind');
    expect(errors[3]?.message).toContain('not supported by RE2');
    for (const problem of errors) expect(problem.fix).toContain('RE2');
    expect(workspace.tools.get('backref')).toBeUndefined();
    expect(workspace.tools.get('look')).toBeUndefined();
    expect(workspace.tools.get('out')).toBeUndefined();
    expect(workspace.tools.get('good')).toBeDefined();
    expect(workspace.tools.get('fine')).toBeDefined();
    expect(workspace.tools.get('echo')).toBeDefined();
  });

  it('a loaded tool validates hostile arguments without backtracking', async () => {
    await writeFile(`${dir}/tools.yaml`, TOOLS);
    const workspace = await loadWorkspace(dir);
    expect(workspace.tools.validateArguments('good', { text: `${'a'.repeat(100_000)}!` })).toContain('pattern');
    expect(workspace.tools.validateArguments('good', { text: 'a'.repeat(100_000) })).toBeUndefined();
    expect(workspace.tools.validateArguments('fine', { pattern: '\\1(' })).toBeUndefined();
  });

  it("the catalog files' own schemas run their patterns on RE2 too", async () => {
    const test = vi.spyOn(RE2JS.prototype, 'test');
    await writeFile(
      `${dir}/tools.yaml`,
      ['cmd:', '  kind: command', '  command: [node, x.js]', `  env: [HOME, "${'A'.repeat(100_000)}-"]`, ''].join('\n'),
    );
    const workspace = await loadWorkspace(dir);
    expect(test).toHaveBeenCalled();
    // Test files share their worker's modules (isolate: false): leave RE2JS as it was.
    test.mockRestore();
    expect(workspace.problems.find((problem) => problem.pointer === '/cmd/env/1')?.message).toContain('must match');
  });
});
