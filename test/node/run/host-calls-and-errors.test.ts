import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunEventSchema } from '../../../common/run-events.js';
import { readTranscript } from '../../../main/core/transcript/transcript-reader.js';
import { runScript } from './run-harness.js';

describe('host calls work wherever Lua can call a function (docs/host-api.md#messages-and-rounds)', () => {
  it('inside pcall, coroutines, table.sort comparators, string.gsub callbacks and metamethods', async () => {
    const h = await runScript(
      `local out = {}
       local function echo(s) return tools.call('echo', { text = s }) end
       out[#out + 1] = select(2, pcall(echo, 'pcall'))
       local co = coroutine.wrap(function()
         out[#out + 1] = echo('co1')
         coroutine.yield()
         out[#out + 1] = echo('co2')
       end)
       co(); co()
       local t = { 3, 1, 2 }
       table.sort(t, function(a, b) echo('sort'); return a < b end)
       out[#out + 1] = table.concat(t, '')
       out[#out + 1] = (string.gsub('ab', '%w', function(c) return echo(c:upper()) end))
       local meta = setmetatable({}, {
         __index = function(_, k) return echo('index:' .. k) end,
         __add = function() return echo('add') end,
         __tostring = function() return echo('tostring') end,
       })
       out[#out + 1] = meta.key
       out[#out + 1] = meta + 1
       out[#out + 1] = tostring(meta)
       local r = models.chat({ { role = 'user', content = 'in a coroutine' } })
       out[#out + 1] = coroutine.wrap(function() return models.chat({ { role = 'user', content = 'x' } }).content end)()
       log(table.concat(out, ' '))`,
      { rounds: [{ content: 'one' }, { content: 'two' }] },
    );
    expect(h.result.error).toBeUndefined();
    expect(h.logs).toEqual(['pcall co1 co2 123 AB index:key add tostring two']);
    expect(h.result.toolCalls['echo']).toBeGreaterThan(8);
  });

  it('errors from host calls inside pcall are catchable and keep the run alive', async () => {
    const h = await runScript(`
      local ok, err = pcall(tools.call, 'nope')
      local ok2, err2 = pcall(function() return tools.call('deny_tool') end)
      log(ok, err)
      log(ok2, err2)`);
    expect(h.result.status).toBe('ok');
    expect(h.logs).toEqual([
      'false\tagent.lua:2: tools.call: unknown tool "nope" (not in this agent\'s catalog)',
      "false\tagent.lua:3: tools.call('deny_tool') was denied: the tool is set to deny",
    ]);
  });
});

describe('errors name the file and line', () => {
  it('a syntax error reports file:line: message', async () => {
    const h = await runScript(`log('a')\nlocal x = = 2`, { scriptPath: 'agents/bad.lua' });
    expect(h.result).toMatchObject({ status: 'error' });
    expect(h.result.error).toEqual({ kind: 'syntax', message: "agents/bad.lua:2: unexpected symbol near '='" });
    expect(h.logs).toEqual([]);
  });

  it('a runtime error reports file:line: message', async () => {
    const h = await runScript(`log('a')\nlocal t = nil\nlog(t.x)`, { scriptPath: 'agents/bad.lua' });
    expect(h.result).toMatchObject({ status: 'error' });
    expect(h.result.error).toEqual({
      kind: 'runtime',
      message: "agents/bad.lua:3: attempt to index a nil value (local 't')",
    });
    expect(h.logs).toEqual(['a']);
  });

  it('host errors carry the line of the script call, even inside functions', async () => {
    // (A Lua tail call, `return tools.call(...)`, leaves no frame of its own: the caller's line is used.)
    const h = await runScript(
      `local function go()\n  local out = tools.call('echo', { text = 5 })\n  return out\nend\ngo()`,
    );
    expect(h.result.error?.message).toBe("agent.lua:2: tools.call('echo'): invalid arguments: /text: must be string");
    const sorted = await runScript(`local t = { 2, 1 }\ntable.sort(t, function(a, b)\n  tools.call('nope')\nend)`);
    expect(sorted.result.error?.message).toBe(
      'agent.lua:3: tools.call: unknown tool "nope" (not in this agent\'s catalog)',
    );
  });
});

describe('bad input to the host API gives errors that name the thing', () => {
  const cases: [string, string, string][] = [
    [
      'unknown tool alias',
      `tools.call('nope')`,
      `agent.lua:1: tools.call: unknown tool "nope" (not in this agent's catalog)`,
    ],
    [
      'alias of the wrong type',
      `tools.call(42)`,
      'agent.lua:1: tools.call: the tool alias must be a string, got number',
    ],
    [
      'args of the wrong type',
      `tools.call('echo', 'text')`,
      "agent.lua:1: tools.call('echo'): args must be a table or nil, got string",
    ],
    [
      'args with a function',
      `tools.call('echo', { text = print })`,
      "agent.lua:1: tools.call('echo'): args.text: a function cannot be sent to the host",
    ],
    [
      'args that contain themselves',
      `local t = {} t.self = t tools.call('echo', t)`,
      "agent.lua:1: tools.call('echo'): args.self: the table contains itself and cannot be sent to the host",
    ],
    [
      'args as a list',
      `tools.call('echo', { 'a', 'b' })`,
      "agent.lua:1: tools.call('echo'): args must be a table of named arguments, not a list",
    ],
    [
      'NaN in args',
      `tools.call('echo', { n = 0/0 })`,
      "agent.lua:1: tools.call('echo'): args.n: -nan cannot be sent to the host (not a JSON number)",
    ],
    [
      'failing tool',
      `tools.call('fail')`,
      "agent.lua:1: tools.call('fail') failed: exited with code 3: something broke",
    ],
    [
      'messages not a table',
      `models.chat('hi')`,
      'agent.lua:1: models.chat: messages must be a list of message tables, got string',
    ],
    [
      'empty messages',
      `models.chat({})`,
      'agent.lua:1: models.chat: messages is empty; add at least one { role = "user", content = "..." }',
    ],
    [
      'bad role',
      `models.chat({ { role = 'robot', content = 'x' } })`,
      'agent.lua:1: models.chat: messages[1].role must be one of system, user, assistant, tool (got "robot")',
    ],
    [
      'missing content',
      `models.chat({ { role = 'user' } })`,
      'agent.lua:1: models.chat: messages[1].content is missing',
    ],
    [
      'unknown advertised tool',
      `models.chat({ { role = 'user', content = 'x' } }, { tools = { 'echo', 'ghost' } })`,
      'agent.lua:1: models.chat: opts.tools[2]: unknown tool "ghost" (not in this agent\'s catalog)',
    ],
    [
      'tools not a list',
      `models.chat({ { role = 'user', content = 'x' } }, { tools = 'echo' })`,
      'agent.lua:1: models.chat: opts.tools must be a list of tool aliases, got string',
    ],
    [
      'unknown model alias',
      `models.chat({ { role = 'user', content = 'x' } }, { model = 'gpt-9' })`,
      'agent.lua:1: models.chat: unknown model "gpt-9" (not in the model catalog)',
    ],
    [
      'opts not a table',
      `models.chat({ { role = 'user', content = 'x' } }, 'fast')`,
      'agent.lua:1: models.chat: opts must be a table or nil, got string',
    ],
    ['untrusted of a table', `untrusted({})`, 'agent.lua:1: untrusted: expected a string, got table'],
  ];
  it.each(cases)('%s', async (_name, script, message) => {
    const h = await runScript(script);
    expect(h.result.status).toBe('error');
    expect(h.result.error?.message).toBe(message);
  });
});

describe("invalid JSON in a model's tool-call arguments", () => {
  it('is kept raw in the transcript and reaches the script as an error field on that call', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pf-run-'));
    const transcriptPath = join(dir, 'run.jsonl');
    const h = await runScript(
      `local r = models.chat({ { role = 'user', content = 'x' } }, { tools = { 'echo' } })
       local bad, good = r.tool_calls[1], r.tool_calls[2]
       log(bad.arguments, bad.error, bad.raw_arguments)
       log(good.arguments.text, good.error)`,
      {
        rounds: [
          {
            calls: [
              { id: 'c1', name: 'echo', rawArguments: '{"text": "unterminated' },
              { id: 'c2', name: 'echo', rawArguments: '{"text":"fine"}' },
            ],
          },
        ],
        overrides: { transcriptPath },
      },
    );
    expect(h.result.status).toBe('ok');
    expect(h.logs[0]).toMatch(
      /^nil\tthe model sent arguments that are not valid JSON \(.+\)\t\{"text": "unterminated$/,
    );
    expect(h.logs[1]).toBe('fine\tnil');
    const events = readTranscript(transcriptPath);
    const response = events.find((e) => e.type === 'round-response');
    expect(response).toMatchObject({
      toolCalls: [
        {
          id: 'c1',
          name: 'echo',
          rawArguments: '{"text": "unterminated',
          error: expect.stringContaining('not valid JSON'),
        },
        { id: 'c2', name: 'echo', rawArguments: '{"text":"fine"}' },
      ],
    });
  });
});

describe('transcripts', () => {
  it('write one valid JSON event per line, flushed as the run goes, ending with run-end', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pf-run-'));
    const transcriptPath = join(dir, 'nested', 'run.jsonl');
    let linesAtFirstLog = -1;
    const h = await runScript(`log('first') tools.call('web') log('second')`, {
      overrides: {
        transcriptPath,
        onEvent: (e) => {
          // Each event is on disk before listeners see the next one.
          if (e.type === 'log' && linesAtFirstLog < 0)
            linesAtFirstLog = readFileSync(transcriptPath, 'utf8').split('\n').length - 1;
        },
      },
    });
    expect(h.result.status).toBe('ok');
    const lines = readFileSync(transcriptPath, 'utf8').trimEnd().split('\n');
    expect(linesAtFirstLog).toBe(2);
    const events = lines.map((line) => RunEventSchema.parse(JSON.parse(line)));
    expect(events.map((e) => e.type)).toEqual([
      'run-start',
      'log',
      'tool-dispatch',
      'approval-decision',
      'tool-output',
      'log',
      'run-end',
    ]);
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(events[0]).toMatchObject({ type: 'run-start', script: { path: 'agent.lua' } });
    expect(events[4]).toMatchObject({ type: 'tool-output', alias: 'web', trust: 'untrusted', structured: false });
    expect(events[6]).toMatchObject({ type: 'run-end', status: 'ok', toolCalls: { web: 1 } });
  });

  it('never contain a secret the run knows about', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pf-run-'));
    const transcriptPath = join(dir, 'run.jsonl');
    const canary = 'sk-canary-0123456789abcdefghij';
    const h = await runScript(`log('${canary}') tools.call('echo', { text = 'key=${canary}' })`, {
      overrides: { transcriptPath, secrets: [canary] },
    });
    expect(h.result.status).toBe('ok');
    const text = readFileSync(transcriptPath, 'utf8');
    expect(text).not.toContain(canary);
    expect(text).toContain('[redacted]');
    expect(JSON.stringify(h.events)).not.toContain(canary);
  });

  it('a crashed run leaves a readable history: every line written so far parses', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pf-run-'));
    const transcriptPath = join(dir, 'run.jsonl');
    const h = await runScript(`log('a') while true do end`, { overrides: { transcriptPath, limits: { cpuMs: 200 } } });
    expect(h.result.status).toBe('limit');
    expect(readTranscript(transcriptPath).map((e) => e.type)).toEqual(['run-start', 'log', 'run-end']);
  });
});

describe('cost', () => {
  it('turns catalog prices into a cost per round and per run', async () => {
    const { ScriptedModel } = await import('./run-harness.js');
    const model = new ScriptedModel([{ content: 'a' }, { content: 'b' }]);
    const h = await runScript(
      `models.chat({ { role = 'user', content = 'x' } }) models.chat({ { role = 'user', content = 'y' } })`,
      {
        overrides: {
          models: {
            resolve: async () => ({
              alias: 'priced',
              providerId: 'scripted',
              modelId: 'm',
              provider: model,
              price: { inputPerMillion: 3, outputPerMillion: 15 },
            }),
          },
        },
      },
    );
    expect(h.result.status).toBe('ok');
    // Each scripted round uses 10 input and 5 output tokens: 10 * 3e-6 + 5 * 15e-6 = 0.000105.
    const rounds = h.events.flatMap((e) => (e.type === 'round-response' ? [e.cost] : []));
    expect(rounds).toEqual([0.000105, 0.000105]);
    const end = h.events.at(-1);
    expect(end?.type === 'run-end' && end.cost).toBeCloseTo(0.00021, 10);
    expect(end?.type === 'run-end' && end.usage).toEqual({ inputTokens: 20, outputTokens: 10 });
  });
});

describe('a transcript that cannot be written', () => {
  it('(a full disk: /dev/full) does not take the host down; the run goes on and says so once', async () => {
    const h = await runScript(`log('a') log('b')`, { overrides: { transcriptPath: '/dev/full' } });
    expect(h.result.status).toBe('ok');
    expect(h.logs).toEqual([
      '[promptforge] the transcript stopped at event 1: ENOSPC: no space left on device, write',
      'a',
      'b',
    ]);
  });
});

describe('linking dispatches to the calls the model requested', () => {
  it('a dispatch with the same alias and arguments as a requested call carries its id; others do not', async () => {
    const h = await runScript(
      `local r = models.chat({ { role = 'user', content = 'x' } }, { tools = { 'echo' } })
       tools.call('echo', { text = 'unrelated' })
       for i = 1, #r.tool_calls do tools.call(r.tool_calls[i].name, r.tool_calls[i].arguments) end`,
      {
        rounds: [
          {
            calls: [
              { id: 'c1', name: 'echo', rawArguments: '{"text":"same"}' },
              { id: 'c2', name: 'echo', rawArguments: '{ "text": "same" }' },
            ],
          },
        ],
      },
    );
    expect(h.result.status).toBe('ok');
    const dispatches = h.events.flatMap((e) => (e.type === 'tool-dispatch' ? [[e.callId, e.requestedCallId]] : []));
    expect(dispatches).toEqual([
      ['call-1', undefined],
      ['call-2', 'c1'],
      ['call-3', 'c2'],
    ]);
  });
});
