// The renderer's pure helpers (Lua syntax check, JSON Schema subset, conversation builder), run in
// Node. They ship in the studio bundle; the Lua checker is compared with the real Lua parser.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { LuaFactory, type LuaEngine } from 'wasmoon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../common/run-events.js';
import { ConversationBuilder, splitEnvelopeMarkers } from '../../../renderer/src/run/conversation-builder.js';
import { checkLuaSyntax } from '../../../renderer/src/editor/lua-syntax-check.js';
import { repositoryRoot } from '../setup/project-copy.js';

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

describe('the conversation builder', () => {
  it('streams deltas into one assistant item, tracks call states and ignores repeated events', () => {
    const base = { runId: 'r', t: '2026-12-02T10:00:00.000Z' };
    const events: RunEvent[] = [
      { ...base, seq: 1, type: 'message-delta', round: 1, text: 'Hel' },
      { ...base, seq: 2, type: 'message-delta', round: 1, text: 'lo' },
      {
        ...base,
        seq: 3,
        type: 'tool-dispatch',
        callId: 'call-1',
        alias: 'read_page',
        arguments: { name: 'x' },
        count: 1,
      },
      {
        ...base,
        seq: 4,
        type: 'approval-pending',
        callId: 'call-1',
        alias: 'read_page',
        description: '',
        arguments: {},
        taint: [],
      },
    ];
    const builder = new ConversationBuilder('r');
    for (const event of events) builder.apply(event);
    builder.apply(events[1]!);
    let snapshot = builder.snapshot();
    expect(snapshot.items.map((item) => item.kind)).toEqual(['assistant', 'dispatch']);
    expect(snapshot.items[0]).toMatchObject({ text: 'Hello', streaming: true });
    expect(snapshot.items[1]).toMatchObject({ state: 'awaiting approval' });
    expect(snapshot.awaiting).toBe(1);

    builder.apply({
      ...base,
      seq: 5,
      type: 'approval-decision',
      callId: 'call-1',
      alias: 'read_page',
      proposedArguments: { name: 'x' },
      decision: { kind: 'deny', source: 'studio', at: base.t, reason: 'no' },
    });
    builder.apply({
      ...base,
      seq: 6,
      type: 'tool-error',
      callId: 'call-1',
      alias: 'read_page',
      stage: 'denied',
      message: 'denied: no',
    });
    snapshot = builder.snapshot();
    expect(snapshot.items[1]).toMatchObject({ state: 'denied', decision: { reason: 'no' } });
    expect(snapshot.awaiting).toBe(0);
    expect(snapshot.logs).toEqual([{ seq: 6, t: base.t, text: 'read_page (call-1): denied: no', level: 'error' }]);
  });

  it('splits envelope tags out of text, leaving everything else as plain text', () => {
    expect(splitEnvelopeMarkers('a <untrusted_input_ab12>x<b></untrusted_input_ab12> z')).toEqual([
      { text: 'a ', marker: false },
      { text: '<untrusted_input_ab12>', marker: true },
      { text: 'x<b>', marker: false },
      { text: '</untrusted_input_ab12>', marker: true },
      { text: ' z', marker: false },
    ]);
  });
});

describe('ConversationBuilder: messages of each round', () => {
  const base = { runId: 'r', t: '2026-12-02T10:00:00.000Z' };
  const request = (seq: number, round: number, messages: { role: string; content: string }[]): RunEvent => ({
    ...base,
    seq,
    type: 'round-request',
    round,
    model: { alias: 'm', provider: 'p', modelId: 'm' },
    messages,
    tools: [],
    options: {},
  });
  const texts = (builder: ConversationBuilder) =>
    builder
      .snapshot()
      .items.flatMap((item) => (item.kind === 'message' ? [(item as unknown as { text: string }).text] : []));

  it('shows what a round adds to the history, and all of a fresh list the script starts anew', () => {
    const builder = new ConversationBuilder('r');
    builder.apply(request(1, 1, [{ role: 'user', content: 'first task' }]));
    builder.apply(
      request(2, 2, [
        { role: 'user', content: 'first task' },
        { role: 'tool', content: 'an answer' },
      ]),
    );
    builder.apply(request(3, 3, [{ role: 'user', content: 'second task' }]));
    expect(texts(builder)).toEqual(['first task', 'an answer', 'second task']);
  });
});
