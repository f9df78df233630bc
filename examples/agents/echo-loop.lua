-- A tool loop: advertise echo, dispatch every call the model asks for, answer it, and go
-- around until the model replies with text only.
local messages = {
  { role = 'system', content = 'You are terse. Use the echo tool to repeat what you are asked to repeat.' },
  { role = 'user', content = 'Echo "hello", then echo "world", then tell me what you echoed.' },
}

for round = 1, 5 do
  local result = models.chat(messages, { tools = { 'echo' } })
  if not result.tool_calls then
    log('model: ' .. result.content)
    break
  end
  local answered = {}
  for i = 1, #result.tool_calls do
    answered[i] = { id = result.tool_calls[i].id }
  end
  messages[#messages + 1] = { role = 'assistant', content = result.content, tool_calls = answered }
  for i = 1, #result.tool_calls do
    local call = result.tool_calls[i]
    local output = tools.call(call.name, call.arguments)
    log(('round %d: %s(%s) -> %s'):format(round, call.name, call.arguments.text or '', output))
    messages[#messages + 1] = { role = 'tool', tool_call_id = call.id, content = output }
  end
end

log('echo ran ' .. tools.calls['echo'] .. ' times')
