-- The Lua side of the host API (see lua-prelude.ts, which loads this file at build time).
local host_call, host_log, host_untrusted, host_done = __pf_host, __pf_log, __pf_untrusted, __pf_done
local src_json, chunk_json, untrusted_max, line_max = __pf_src, __pf_chunk, __pf_untrusted_max, __pf_line_max
__pf_host, __pf_log, __pf_untrusted, __pf_done, __pf_src, __pf_chunk = nil, nil, nil, nil, nil, nil
__pf_untrusted_max, __pf_line_max = nil, nil
local input_json = __pf_input
__pf_input = nil
local MAX_DEPTH, MAX_PAYLOAD = @MAX_LUA_DEPTH@, @MAX_LUA_VALUE_CHARS@

local type, tostring, error, pcall, xpcall, select, next = type, tostring, error, pcall, xpcall, select, next
local rawset, setmetatable, getmetatable, load, _G = rawset, setmetatable, getmetatable, load, _G
local math_type, huge = math.type, math.huge
local sformat, sgsub, sbyte, tonumber = string.format, string.gsub, string.byte, tonumber
local sfind, ssub, uchar = string.find, string.sub, utf8.char
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
-- The worker opens utf8 itself (wasmoon's loadLibrary would make it a copy of string), so the
-- metatable's __index already is the cleaned global table; set it anyway, then hide the metatable.
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
-- Every string crosses to the host as valid UTF-8: each byte that does not start a valid UTF-8
-- sequence (a cut multibyte character, bytes 0xF8-0xFF, a stray continuation byte) becomes U+FFFD.
-- Without this, the host's UTF-8 decoder swallows the bytes after a broken lead byte, closing quote
-- included, and the JSON text no longer parses.
local ulen = utf8.len
local function valid_utf8(s)
  if ulen(s) then return s end
  local parts, n, i, size = {}, 0, 1, #s
  while i <= size do
    local ok, bad = ulen(s, i)
    if ok then
      n = n + 1; parts[n] = ssub(s, i)
      break
    end
    if bad > i then n = n + 1; parts[n] = ssub(s, i, bad - 1) end
    n = n + 1; parts[n] = '\239\191\189'
    i = bad + 1
  end
  return tconcat(parts)
end
local function encode_string(s)
  return '"' .. sgsub(valid_utf8(s), '[%c"\\]', escape_char) .. '"'
end

local encode_into
local function key_text(k, path)
  if type(k) == 'string' then return k end
  if math_type(k) == 'integer' then return tostring(k) end
  error(path .. ': a table key of type ' .. type(k) .. ' cannot be sent to the host (use string keys)', 0)
end

function encode_into(buf, v, path, seen, depth)
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
    if depth > MAX_DEPTH then
      error(path .. ': nested deeper than ' .. MAX_DEPTH .. ' levels, more than the host accepts (flatten the table)', 0)
    end
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
        encode_into(buf, v[i], path .. '[' .. i .. ']', seen, depth + 1)
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
        encode_into(buf, value, path .. '.' .. k, seen, depth + 1)
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
  encode_into(buf, v, path, {}, 1)
  return tconcat(buf)
end

---------------------------------------------------------------------------------------------
-- JSON decoding (host -> Lua). The text comes from the host's JSON.stringify; the decoder keeps
-- its own stack of open tables (no recursion), refuses nesting deeper than MAX_DEPTH, and turns
-- \u escapes (NUL included) into UTF-8 bytes.
---------------------------------------------------------------------------------------------
local unescapes = { [34] = '"', [92] = '\\', [47] = '/', [98] = '\b', [102] = '\f', [110] = '\n', [114] = '\r', [116] = '\t' }

local function decode_error(pos)
  error('the host sent invalid JSON at byte ' .. pos, 0)
end

-- text:sub(pos, pos) is the opening quote; returns the string and the position after its closing quote.
local function decode_string(text, pos)
  local i, parts, n = pos + 1, nil, 0
  while true do
    local j = sfind(text, '["\\]', i)
    if not j then decode_error(pos) end
    if sbyte(text, j) == 34 then
      if not parts then return ssub(text, i, j - 1), j + 1 end
      parts[n + 1] = ssub(text, i, j - 1)
      return tconcat(parts), j + 1
    end
    parts = parts or {}
    n = n + 1
    parts[n] = ssub(text, i, j - 1)
    local e = sbyte(text, j + 1)
    if e == 117 then
      local cp = tonumber(ssub(text, j + 2, j + 5), 16)
      if not cp then decode_error(j) end
      i = j + 6
      if cp >= 0xD800 and cp <= 0xDBFF then
        local lo = ssub(text, i, i + 1) == '\\u' and tonumber(ssub(text, i + 2, i + 5), 16)
        if lo and lo >= 0xDC00 and lo <= 0xDFFF then
          cp = 0x10000 + (cp - 0xD800) * 0x400 + (lo - 0xDC00)
          i = i + 6
        else
          cp = 0xFFFD
        end
      elseif cp >= 0xDC00 and cp <= 0xDFFF then
        cp = 0xFFFD
      end
      n = n + 1
      parts[n] = uchar(cp)
    else
      local c = unescapes[e]
      if not c then decode_error(j) end
      n = n + 1
      parts[n] = c
      i = j + 2
    end
  end
end

local function decode(text)
  local pos, depth = 1, 0
  local open, is_array, counts, keys = {}, {}, {}, {}
  while true do
    -- A value starts at pos.
    local c = sbyte(text, pos)
    local value, complete = nil, true
    if c == 123 or c == 91 then
      depth = depth + 1
      if depth > MAX_DEPTH then error('the host sent a value nested deeper than ' .. MAX_DEPTH .. ' levels', 0) end
      local t = {}
      open[depth], is_array[depth], counts[depth] = t, c == 91, 0
      pos = pos + 1
      local close = sbyte(text, pos)
      if close == 93 or close == 125 then
        depth = depth - 1
        value = t
        pos = pos + 1
      else
        complete = false
        if c == 123 then
          if close ~= 34 then decode_error(pos) end
          keys[depth], pos = decode_string(text, pos)
          if sbyte(text, pos) ~= 58 then decode_error(pos) end
          pos = pos + 1
        end
      end
    elseif c == 34 then
      value, pos = decode_string(text, pos)
    elseif c == 116 and ssub(text, pos, pos + 3) == 'true' then
      value, pos = true, pos + 4
    elseif c == 102 and ssub(text, pos, pos + 4) == 'false' then
      value, pos = false, pos + 5
    elseif c == 110 and ssub(text, pos, pos + 3) == 'null' then
      pos = pos + 4
    else
      local s, e = sfind(text, '^-?%d+%.?%d*[eE]?[-+]?%d*', pos)
      value = s and tonumber(ssub(text, s, e))
      if value == nil then decode_error(pos) end
      pos = e + 1
    end
    -- A complete value goes into the table that is open, closing tables as their ends come.
    while complete do
      if depth == 0 then
        if pos <= #text then decode_error(pos) end
        return value
      end
      local t = open[depth]
      if is_array[depth] then
        local n = counts[depth] + 1
        counts[depth] = n
        t[n] = value
      else
        t[keys[depth]] = value
      end
      local sep = sbyte(text, pos)
      pos = pos + 1
      if sep == 44 then
        if not is_array[depth] then
          if sbyte(text, pos) ~= 34 then decode_error(pos) end
          keys[depth], pos = decode_string(text, pos)
          if sbyte(text, pos) ~= 58 then decode_error(pos) end
          pos = pos + 1
        end
        complete = false
      elseif sep == (is_array[depth] and 93 or 125) then
        open[depth] = nil
        depth = depth - 1
        value = t
      else
        decode_error(pos - 1)
      end
    end
  end
end

---------------------------------------------------------------------------------------------
-- Host calls
---------------------------------------------------------------------------------------------
local src, chunkname = decode(src_json), decode(chunk_json)
src_json, chunk_json = nil, nil
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
  if #payload > MAX_PAYLOAD then
    raise(method .. ': the request is ' .. #payload .. ' bytes as JSON, more than the ' .. MAX_PAYLOAD .. '-byte limit')
  end
  local ok, json = host_call(method, payload)
  local value = decode(json)
  if ok then return value end
  raise(value)
end

local function to_text(...)
  local n = select('#', ...)
  local parts = {}
  for i = 1, n do parts[i] = tostring((select(i, ...))) end
  return tconcat(parts, '\t')
end

-- Text for the host, at most line_max bytes (a cut may split a UTF-8 sequence; the host shows U+FFFD).
local function cut(text)
  local n = #text
  if n <= line_max then return text end
  return ssub(text, 1, line_max) .. '… [' .. (n - line_max) .. ' more bytes cut]'
end

local function log(...)
  local text = to_text(...)
  host_log(encode_string(cut(text)), #text)
end

local function untrusted(s)
  local t = type(s)
  if t == 'number' then s = tostring(s) elseif t ~= 'string' then
    raise('untrusted: expected a string, got ' .. t)
  end
  if #s > untrusted_max then
    raise('untrusted: the text is ' .. #s .. ' bytes, more than the ' .. untrusted_max .. '-byte limit (wrap smaller pieces)')
  end
  local ok, json = host_untrusted(encode_string(s))
  if not ok then raise(decode(json)) end
  return decode(json)
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
-- The workspace's MCP servers' resources and prompts (docs/host-api.md#mcp-resources-and-prompts).
local function read_resource(server, uri)
  if type(server) ~= 'string' then
    raise('mcp.read_resource: the server name must be a string, got ' .. type(server))
  end
  if type(uri) ~= 'string' then
    raise('mcp.read_resource: the uri must be a string, got ' .. type(uri))
  end
  return call_host('mcp.read_resource', '{"server":' .. encode_string(server) .. ',"uri":' .. encode_string(uri) .. '}')
end

local function get_prompt(server, name, args)
  if type(server) ~= 'string' then
    raise('mcp.get_prompt: the server name must be a string, got ' .. type(server))
  end
  if type(name) ~= 'string' then
    raise('mcp.get_prompt: the prompt name must be a string, got ' .. type(name))
  end
  if args ~= nil and type(args) ~= 'table' then
    raise('mcp.get_prompt: args must be a table of strings or nil, got ' .. type(args))
  end
  local ok, json = pcall(encode, args == nil and {} or args, 'args')
  if not ok then raise('mcp.get_prompt: ' .. tostring(json)) end
  return call_host('mcp.get_prompt',
    '{"server":' .. encode_string(server) .. ',"name":' .. encode_string(name) .. ',"args":' .. json .. '}')
end

local mcp = setmetatable({}, {
  __index = { read_resource = read_resource, get_prompt = get_prompt },
  __newindex = read_only('mcp'),
  __metatable = 'mcp is read-only',
})
-- rawset would bypass __newindex, so it refuses the host tables.
local protected = { [calls] = 'tools.calls', [tools] = 'tools', [models] = 'models', [mcp] = 'mcp' }
local raw_rawset = rawset
_G.rawset = function(t, k, v)
  local name = protected[t]
  if name then raise(name .. ' is read-only') end
  return raw_rawset(t, k, v)
end

_G.models, _G.tools, _G.mcp, _G.untrusted, _G.log, _G.print = models, tools, mcp, untrusted, log, log

---------------------------------------------------------------------------------------------
-- Run the script: text only (mode 't' refuses bytecode), errors as "file:line: message".
---------------------------------------------------------------------------------------------
local chunk, syntax_error = load(src, '=' .. chunkname, 't')
src = nil
if not chunk then
  host_done('syntax', encode_string(cut(tostring(syntax_error))))
  return
end

local function message_of(e)
  if type(e) == 'string' then return e end
  local ok, text = pcall(tostring, e)
  if ok and type(text) == 'string' then return text end
  return '(error object of type ' .. type(e) .. ')'
end

local ok, err
if input_json == nil then
  ok, err = xpcall(chunk, message_of)
else
  local input = decode(input_json)
  input_json = nil
  ok, err = xpcall(chunk, message_of, input)
end
if ok then
  host_done('ok', '""')
else
  host_done('runtime', encode_string(cut(message_of(err))))
end

