// The renderer's Lua syntax check, run in Node: it ships in the studio bundle and is compared with
// the real Lua parser.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { LuaFactory, type LuaEngine } from 'wasmoon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLuaSyntax } from '../../../../renderer/src/editor/lua-syntax-check.js';
import { repositoryRoot } from '../../setup/project-copy.js';

const validSnippets = [
  'local x = [==[ a ]] ]==] if x then print(x) elseif y then else end',
  'for i = 1, 2 do end while true do break end repeat local a = 1 until a',
  'function f() return { a = 1, [2] = 3, [[k]], } end',
  'local s = \'a\\\'b\' .. "c\\"" --[[ comment\nend ]] x = 0x1Fp+2 y = 1e-3 z = .5',
  'goto done ::done::',
  'local t <const> = 5 print(t // 2, #t, ~t, 1 ~= 2, 1 << 2)',
  "local s = 'line\\\ncontinued' local u = '\\z\n   skipped'",
  "local f = function(...) local a, b = ... return select('#', ...) end",
  'for k, v in pairs({ a = { b = { c = 1 } } }) do print(k, v) end',
  'do local x = 1 end -- trailing comment with end and function',
  'local obj = {} function obj:method() return self end function obj.field.x() end',
  'if a then elseif b then elseif c then else if d then end end',
  'local s = [[\nmulti\nline ]] .. [=[ with ]] inside ]=]',
  'return',
];

const invalidSnippets: Array<[source: string, line: number, message: RegExp]> = [
  ['if x then\n  print(1)\n', 1, /'end' expected \(to close 'if' at line 1\)/],
  ["local s = 'abc\nprint(s)", 1, /unfinished string/],
  ['f(function() end', 1, /'\)' expected/],
  ['x = 1\nend', 2, /unexpected 'end'/],
  ['for i = 1, 3\n  print(i)\nend', 3, /unexpected 'end'.*'do' expected/],
  ['repeat\n  x = 1\nend', 3, /unexpected 'end'/],
  ['local t = { 1, 2 )', 1, /unexpected '\)'/],
  ['--[[ never closed\nprint(1)', 1, /unfinished long comment/],
  ['local s = [==[ never ]] closed', 1, /unfinished long string/],
  ['while true do\n  if x then\n  end\n', 1, /'end' expected \(to close 'while' at line 1\)/],
  ['x = 1 @ 2', 1, /unexpected symbol '@'/],
];

describe('the renderer Lua syntax checker agrees with the Lua parser', () => {
  let lua: LuaEngine;
  const parses = async (source: string): Promise<boolean> => {
    lua.global.set('__source', source);
    return (await lua.doString('return load(__source) ~= nil')) as boolean;
  };

  beforeAll(async () => {
    lua = await new LuaFactory().createEngine();
  });
  afterAll(() => {
    lua.global.close();
  });

  it('finds nothing in the example agents and fixtures (no false positives)', async () => {
    const files = [
      'examples/agents/echo-loop.lua',
      'examples/agents/summarize-page.lua',
      'examples/agents/weather-report.lua',
      'test/fixtures/catalogs/valid/agents/hello.lua',
    ];
    for (const file of files) {
      const source = await readFile(path.join(repositoryRoot, file), 'utf8');
      expect(await parses(source), file).toBe(true);
      expect(checkLuaSyntax(source), file).toEqual([]);
    }
  });

  it('finds nothing in tricky valid Lua', async () => {
    for (const source of validSnippets) {
      expect(await parses(source), source).toBe(true);
      expect(checkLuaSyntax(source), source).toEqual([]);
    }
  });

  it('finds nothing in generated valid programs (nested blocks, strings, long brackets, comments)', async () => {
    const { block } = fc.letrec((tie) => ({
      expression: fc.oneof(
        fc.constantFrom('1', '0x1F', '2.5e-3', 'x', 'nil', 'true', '#t', '(x + 1) * 2', 'a.b:c(1)'),
        fc.constantFrom("'it\\'s'", '"say \\"hi\\""', "'end'", '"function do"', "'\\z\n  z'"),
        fc
          .tuple(fc.integer({ min: 1, max: 3 }), fc.constantFrom('end', ']]', ' if ', '\n'))
          .map(([level, body]) => `[${'='.repeat(level)}[${body}]${'='.repeat(level)}]`),
      ),
      statement: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        tie('expression').map((e) => `local v = ${String(e)}`),
        tie('expression').map((e) => `print(${String(e)}) -- end ) }\n`),
        fc
          .tuple(tie('expression'), tie('block'), tie('block'))
          .map(([e, a, b]) => `if ${e} then ${a} elseif x then else ${b} end`),
        tie('block').map((b) => `for i = 1, 3 do ${String(b)} end`),
        tie('block').map((b) => `for k, v in pairs(t) do ${String(b)} end`),
        fc.tuple(tie('expression'), tie('block')).map(([e, b]) => `while ${e} do ${b} end`),
        fc.tuple(tie('block'), tie('expression')).map(([b, e]) => `repeat ${b} until ${e}`),
        tie('block').map((b) => `do ${String(b)} end`),
        tie('block').map((b) => `f(function(a, ...) ${String(b)} end)`),
        fc.tuple(tie('expression'), tie('expression')).map(([a, b]) => `local t = { ${a}, k = ${b}, [ ${a} ] = { } }`),
        tie('expression').map((e) => `--[====[ ${String(e)} end ) function ]====]`),
      ),
      block: fc.array(tie('statement'), { maxLength: 3 }).map((list) => list.join('\n')),
    }));
    const programs = fc.sample(block, { numRuns: 120, seed: 42 }) as string[];
    for (const program of programs) {
      // A fresh VM per program: one shared engine hit "memory access out of bounds" in wasmoon here.
      const fresh = await new LuaFactory().createEngine();
      fresh.global.set('__source', program);
      expect(await fresh.doString('return load(__source) ~= nil'), program).toBe(true);
      fresh.global.close();
      expect(checkLuaSyntax(program), program).toEqual([]);
    }
  });

  it('reports unbalanced blocks, brackets, strings and comments with their line', async () => {
    for (const [source, line, message] of invalidSnippets) {
      expect(await parses(source), source).toBe(false);
      const problems = checkLuaSyntax(source);
      expect(problems, source).toHaveLength(1);
      expect(problems[0]!.line, source).toBe(line);
      expect(problems[0]!.message, source).toMatch(message);
    }
  });
});
