/**
 * The Lua side of the host API. It runs once per run, before the script, in a VM that has only the
 * base, coroutine, table, string, math and utf8 libraries open (SPEC §3.1). Everything it needs is
 * captured in locals first, so the script can neither reach nor replace it.
 *
 * The worker sets these globals before running it, and the prelude removes them at once:
 * - `__pf_host(method, json)` → `ok, value_or_message`: a blocking call answered by the main thread;
 * - `__pf_log(text)`: posts a log line (does not block);
 * - `__pf_untrusted(text)`: the shared envelope function (common/envelope.ts);
 * - `__pf_done(status, message)`: reports how the script ended;
 * - `__pf_src`, `__pf_chunk`: the script text and the name used in error positions.
 *
 * Values travel from Lua to the host as JSON made here (strict: cycles, functions and NaN are
 * errors that name the path), and back as JS values pushed by wasmoon.
 */
export const LUA_PRELUDE = String.raw`
local host_call, host_log, host_untrusted, host_done = __pf_host, __pf_log, __pf_untrusted, __pf_done
local src, chunkname = __pf_src, __pf_chunk
__pf_host, __pf_log, __pf_untrusted, __pf_done, __pf_src, __pf_chunk = nil, nil, nil, nil, nil, nil

local type, tostring, error, pcall, xpcall, select, next = type, tostring, error, pcall, xpcall, select, next
local rawset, setmetatable, getmetatable, load, _G = rawset, setmetatable, getmetatable, load, _G
local math_type, huge = math.type, math.huge
local sformat, sgsub, sbyte, tonumber = string.format, string.gsub, string.byte, tonumber
local tconcat, tsort = table.concat, table.sort
-- Kept only here, for error positions; the debug library itself is removed below.
local getinfo = debug.getinfo

-- The sandbox: nothing that loads code, reaches files or the process, or inspects the VM.
-- (Through _G: several of these names are locals from here on.)
for _, name in next, { 'load', 'loadstring', 'dofile', 'loadfile', 'require', 'collectgarbage', 'module',
    'setfenv', 'getfenv', 'newproxy', 'gcinfo', 'io', 'os', 'package', 'debug', 'js' } do
  _G[name] = nil
end
string.dump = nil
-- wasmoon's loadLibrary leaves the string metatable's __index on a second copy of the library,
-- which still holds dump: point it at the cleaned global table, then hide the metatable.
local string_mt = getmetatable('')
string_mt.__index = string
string_mt.__metatable = false

---------------------------------------------------------------------------------------------
-- JSON encoding of Lua values (Lua -> host)
---------------------------------------------------------------------------------------------
local escapes = { ['"'] = '\\"', ['\\'] = '\\\\', ['\b'] = '\\b', ['\f'] = '\\f', ['\n'] = '\\n', ['\r'] = '\\r', ['\t'] = '\\t' }
local function escape_char(c)
  return escapes[c] or sformat('\\u%04x', sbyte(c))
end
local function encode_string(s)
  return '"' .. sgsub(s, '[%c"\\]', escape_char) .. '"'
end

local encode_into
local function key_text(k, path)
  if type(k) == 'string' then return k end
  if math_type(k) == 'integer' then return tostring(k) end
  error(path .. ': a table key of type ' .. type(k) .. ' cannot be sent to the host (use string keys)', 0)
end

function encode_into(buf, v, path, seen)
  local t = type(v)
  if t == 'nil' then
    buf[#buf + 1] = 'null'
  elseif t == 'boolean' then
    buf[#buf + 1] = v and 'true' or 'false'
  elseif t == 'number' then
    if math_type(v) == 'integer' then
      buf[#buf + 1] = sformat('%d', v)
    elseif v ~= v or v == huge or v == -huge then
      error(path .. ': ' .. tostring(v) .. ' cannot be sent to the host (not a JSON number)', 0)
    else
      local s = sformat('%.14g', v)
      if tonumber(s) ~= v then s = sformat('%.17g', v) end
      buf[#buf + 1] = s
    end
  elseif t == 'string' then
    buf[#buf + 1] = encode_string(v)
  elseif t == 'table' then
    if seen[v] then error(path .. ': the table contains itself and cannot be sent to the host', 0) end
    seen[v] = true
    local count, max_int, all_int = 0, 0, true
    for k in next, v do
      count = count + 1
      if math_type(k) == 'integer' and k > 0 then
        if k > max_int then max_int = k end
      else
        all_int = false
      end
    end
    if count > 0 and all_int and max_int == count then
      buf[#buf + 1] = '['
      for i = 1, count do
        if i > 1 then buf[#buf + 1] = ',' end
        encode_into(buf, v[i], path .. '[' .. i .. ']', seen)
      end
      buf[#buf + 1] = ']'
    else
      local keys = {}
      for k in next, v do keys[#keys + 1] = key_text(k, path) end
      tsort(keys)
      buf[#buf + 1] = '{'
      for i = 1, #keys do
        local k = keys[i]
        local value = v[k]
        if value == nil then value = v[tonumber(k)] end
        if i > 1 then buf[#buf + 1] = ',' end
        buf[#buf + 1] = encode_string(k)
        buf[#buf + 1] = ':'
        encode_into(buf, value, path .. '.' .. k, seen)
      end
      buf[#buf + 1] = '}'
    end
    seen[v] = nil
  else
    error(path .. ': a ' .. t .. ' cannot be sent to the host', 0)
  end
end

local function encode(v, path)
  local buf = {}
  encode_into(buf, v, path, {})
  return tconcat(buf)
end

---------------------------------------------------------------------------------------------
-- Host calls
---------------------------------------------------------------------------------------------
local script_source = '=' .. chunkname

-- Raises msg at the innermost line of the script on the stack, whatever lies between (pcall,
-- tail calls, sort comparators, metamethods), so host errors always carry the script's file:line.
local function raise(msg)
  for level = 2, 250 do
    local info = getinfo(level, 'Sl')
    if not info then break end
    if info.source == script_source and info.currentline and info.currentline > 0 then
      error(chunkname .. ':' .. info.currentline .. ': ' .. msg, 0)
    end
  end
  error(msg, 0)
end

local function call_host(method, payload)
  local ok, value = host_call(method, payload)
  if ok then return value end
  raise(value)
end

local function to_text(...)
  local n = select('#', ...)
  local parts = {}
  for i = 1, n do parts[i] = tostring((select(i, ...))) end
  return tconcat(parts, '\t')
end

local function log(...)
  host_log(to_text(...))
end

local function untrusted(s)
  local t = type(s)
  if t == 'number' then s = tostring(s) elseif t ~= 'string' then
    raise('untrusted: expected a string, got ' .. t)
  end
  return host_untrusted(s)
end

local function chat(messages, opts)
  if type(messages) ~= 'table' then
    raise('models.chat: messages must be a list of message tables, got ' .. type(messages))
  end
  if opts ~= nil and type(opts) ~= 'table' then
    raise('models.chat: opts must be a table or nil, got ' .. type(opts))
  end
  local ok, payload = pcall(function()
    return '{"messages":' .. encode(messages, 'messages') .. ',"opts":' .. encode(opts or {}, 'opts') .. '}'
  end)
  if not ok then raise('models.chat: ' .. tostring(payload)) end
  return call_host('models.chat', payload)
end

local counts = {}
local function call_tool(alias, args)
  if type(alias) ~= 'string' then
    raise('tools.call: the tool alias must be a string, got ' .. type(alias))
  end
  counts[alias] = (counts[alias] or 0) + 1
  local payload
  if args ~= nil and type(args) ~= 'table' then
    payload = '{"alias":' .. encode_string(alias) .. ',"argsError":' ..
      encode_string('args must be a table or nil, got ' .. type(args)) .. '}'
  else
    local ok, json = pcall(encode, args == nil and {} or args, 'args')
    if ok then
      payload = '{"alias":' .. encode_string(alias) .. ',"args":' .. json .. '}'
    else
      payload = '{"alias":' .. encode_string(alias) .. ',"argsError":' .. encode_string(tostring(json)) .. '}'
    end
  end
  return call_host('tools.call', payload)
end

local function read_only(name)
  return function() raise(name .. ' is read-only') end
end

local calls = setmetatable({}, {
  __index = function(_, alias) return counts[alias] or 0 end,
  __newindex = read_only('tools.calls'),
  __pairs = function()
    local copy = {}
    for k, v in next, counts do copy[k] = v end
    return next, copy, nil
  end,
  __metatable = 'tools.calls is read-only',
})
local tools = setmetatable({}, {
  __index = { call = call_tool, calls = calls },
  __newindex = read_only('tools'),
  __metatable = 'tools is read-only',
})
local models = setmetatable({}, {
  __index = { chat = chat },
  __newindex = read_only('models'),
  __metatable = 'models is read-only',
})
-- rawset would bypass __newindex, so it refuses the host tables.
local protected = { [calls] = 'tools.calls', [tools] = 'tools', [models] = 'models' }
local raw_rawset = rawset
_G.rawset = function(t, k, v)
  local name = protected[t]
  if name then raise(name .. ' is read-only') end
  return raw_rawset(t, k, v)
end

_G.models, _G.tools, _G.untrusted, _G.log, _G.print = models, tools, untrusted, log, log

---------------------------------------------------------------------------------------------
-- Run the script: text only (mode 't' refuses bytecode), errors as "file:line: message".
---------------------------------------------------------------------------------------------
local chunk, syntax_error = load(src, '=' .. chunkname, 't')
src = nil
if not chunk then
  host_done('syntax', tostring(syntax_error))
  return
end

local function message_of(e)
  if type(e) == 'string' then return e end
  local ok, text = pcall(tostring, e)
  if ok and type(text) == 'string' then return text end
  return '(error object of type ' .. type(e) .. ')'
end

local ok, err = xpcall(chunk, message_of)
if ok then
  host_done('ok', '')
else
  host_done('runtime', message_of(err))
end
`;
