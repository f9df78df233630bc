import { describe, expect, it } from 'vitest';
import { runScript } from './run-harness.js';

// The sandbox escape corpus (docs/host-api.md#sandbox): each script tries to reach the host and must fail cleanly,
// with the exact error (or logged value) stated here.

type Case = [name: string, script: string, expected: { error: RegExp } | { logs: string[] }];

const nilGlobal = (name: string) => ({
  error: new RegExp(`attempt to (index|call) a nil value \\(global '${name}'\\)`),
});

const CASES: Case[] = [
  ['io.open', `io.open('/etc/passwd')`, nilGlobal('io')],
  ['io.popen', `io.popen('id')`, nilGlobal('io')],
  ['os.execute', `os.execute('touch /tmp/pwned')`, nilGlobal('os')],
  ['os.exit', `os.exit(7)`, nilGlobal('os')],
  ['os.getenv', `return os.getenv('HOME')`, nilGlobal('os')],
  ['os.remove', `os.remove('/tmp/x')`, nilGlobal('os')],
  ['require', `require('os')`, nilGlobal('require')],
  ['package.loadlib', `package.loadlib('libc.so.6', 'system')`, nilGlobal('package')],
  ['package.preload', `package.preload.x = function() end`, nilGlobal('package')],
  ['load of text', `load('return 1')()`, nilGlobal('load')],
  ['load of bytecode', `load('\\27Lua', 'x', 'b')`, nilGlobal('load')],
  ['loadstring', `loadstring('return 1')`, nilGlobal('loadstring')],
  ['dofile', `dofile('/etc/passwd')`, nilGlobal('dofile')],
  ['loadfile', `loadfile('/etc/passwd')`, nilGlobal('loadfile')],
  ['collectgarbage', `collectgarbage('count')`, nilGlobal('collectgarbage')],
  ['string.dump', `string.dump(function() end)`, { error: /attempt to call a nil value \(field 'dump'\)/ }],
  [
    'string method dump',
    `local f = function() end; ('x'):dump(f)`,
    { error: /attempt to call a nil value \(method 'dump'\)/ },
  ],
  ['debug.getinfo', `debug.getinfo(1)`, nilGlobal('debug')],
  ['debug.sethook', `debug.sethook(function() end, 'l')`, nilGlobal('debug')],
  ['debug.getregistry', `debug.getregistry()`, nilGlobal('debug')],
  ['debug.setmetatable', `debug.setmetatable('', {})`, nilGlobal('debug')],
  ['module', `module('x')`, nilGlobal('module')],
  ['setfenv', `setfenv(1, {})`, nilGlobal('setfenv')],
  ['getfenv', `getfenv(1)`, nilGlobal('getfenv')],
  ['wasmoon js global', `js.global.process.exit(1)`, nilGlobal('js')],
  ['rawget of _G', `log(rawget(_G, 'io'), rawget(_G, 'load'), rawget(_G, 'debug'))`, { logs: ['nil\tnil\tnil'] }],
  ['built names', `log(_G['lo' .. 'ad'], _G['o' .. 's'], _G['req' .. 'uire'])`, { logs: ['nil\tnil\tnil'] }],
  ['_ENV lookups', `log(_ENV.os, _ENV.io, _ENV.package)`, { logs: ['nil\tnil\tnil'] }],
  [
    '_ENV replaced by the script',
    `local log = log; local _ENV = setmetatable({}, { __index = function(_, k) return k end }); log(io, os)`,
    { logs: ['io\tos'] },
  ],
  ['_ENV set to nil', `local _ENV = nil; print('x')`, { error: /^agent\.lua:1: attempt to index a nil value/ }],
  ['string metatable is hidden', `log(getmetatable(''), getmetatable('abc'))`, { logs: ['false\tfalse'] }],
  ['string metatable write', `getmetatable('').__index = {}`, { error: /attempt to index a boolean value/ }],
  [
    'string metatable replace',
    `setmetatable('', {})`,
    { error: /bad argument #1 to 'setmetatable' \(table expected, got string\)/ },
  ],
  [
    'string table changes stay local',
    `string.upper = function() return 'hacked' end; log(('a'):upper(), untrusted('a'):find('untrusted_input_') ~= nil)`,
    { logs: ['hacked\ttrue'] },
  ],
  [
    'host functions are gone',
    `log(__pf_host, __pf_log, __pf_done, __pf_untrusted, __pf_src, __pf_chunk)`,
    { logs: ['nil\tnil\tnil\tnil\tnil\tnil'] },
  ],
  [
    'a fake __pf_done cannot hide an error',
    `__pf_done = function() end; error('real error')`,
    { error: /^agent\.lua:1: real error$/ },
  ],
  ['tools.calls write', `tools.calls.echo = 99`, { error: /tools\.calls is read-only/ }],
  ['tools.calls rawset', `rawset(tools.calls, 'echo', 99)`, { error: /tools\.calls is read-only/ }],
  ['tools.call replaced', `tools.call = function() return 'fake' end`, { error: /tools is read-only/ }],
  ['models.chat replaced', `models.chat = function() end`, { error: /models is read-only/ }],
  ['tools metatable', `setmetatable(tools, {})`, { error: /cannot change a protected metatable/ }],
  [
    'tools.calls metatable read',
    `log(getmetatable(tools.calls), getmetatable(tools))`,
    { logs: ['tools.calls is read-only\ttools is read-only'] },
  ],
  [
    'pairs copy does not write through',
    `tools.call('echo'); for k, v in pairs(tools.calls) do end; local copy = {}; for k, v in pairs(tools.calls) do copy[k] = v + 10 end; log(tools.calls.echo)`,
    { logs: ['1'] },
  ],
  [
    'no userdata reachable from the globals',
    `local seen, found = {}, {}
     local function walk(v, path)
       local t = type(v)
       if t == 'userdata' or t == 'thread' then found[#found + 1] = path end
       if t == 'table' and not seen[v] then
         seen[v] = true
         for k, x in next, v do walk(x, path .. '.' .. tostring(k)) end
         local mt = getmetatable(v)
         if type(mt) == 'table' then walk(mt, path .. '<mt>') end
       end
     end
     walk(_G, '_G')
     log(#found)`,
    { logs: ['0'] },
  ],
  [
    // Refused: the approval card's copy of the arguments would drop the key the tool receives.
    'Object.prototype through a __proto__ key (refused before approval)',
    `local ok, err = pcall(tools.call, 'args_json', { __proto__ = { polluted = true } })
     log(tostring(ok) .. ' ' .. tostring(tostring(err):match('a key named "__proto__"')))
     log(tools.call('args_json', { constructor = { prototype = { polluted = true } } }))`,
    { logs: ['false a key named "__proto__"', '{"constructor":{"prototype":{"polluted":true}}}'] },
  ],
  [
    // Each string is checked for taint on the host's thread: a flood of keys is refused up front.
    'tool arguments with more strings than the taint check takes',
    `local t = {}
     for i = 1, 10001 do t['k' .. i] = true end
     local ok, err = pcall(tools.call, 'args_json', t)
     log(tostring(ok) .. ' ' .. tostring(tostring(err):match('more than 10000 strings')))`,
    { logs: ['false more than 10000 strings'] },
  ],
  ['binary chunk as the script', `\x1bLua\x54\x00`, { error: /attempt to load a binary chunk \(mode is 't'\)/ }],
  [
    'error object whose __tostring fails',
    `error(setmetatable({}, { __tostring = function() error('nope') end }))`,
    { error: /^\(error object of type table\)$/ },
  ],
  [
    'coroutine cannot smuggle load',
    `local co = coroutine.wrap(function() return load end); log(co())`,
    { logs: ['nil'] },
  ],
];

describe('sandbox escape corpus', () => {
  it('has at least 40 scripts', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(40);
  });

  it.each(CASES)('%s fails cleanly', async (_name, script, expected) => {
    const h = await runScript(script);
    if ('logs' in expected) {
      expect(h.result.error).toBeUndefined();
      expect(h.logs).toEqual(expected.logs);
    } else {
      expect(h.result.status).toBe('error');
      expect(h.result.error?.message).toMatch(expected.error);
    }
    // Nothing leaked into this process either.
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});
