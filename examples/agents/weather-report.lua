-- A structured-output tool: weather declares an output schema, so tools.call returns a table.
local messages = { { role = 'user', content = 'What should I wear in Oslo today?' } }

local result = models.chat(messages, { tools = { 'weather' } })
if result.tool_calls then
  local call = result.tool_calls[1]
  local report = tools.call(call.name, call.arguments)   -- a Lua table, not text
  log(('%s: %d°C, %s'):format(report.city, report.tempC, report.conditions))
  if report.tempC < 0 then log('below freezing: the script can branch on fields') end

  messages[#messages + 1] = { role = 'assistant', content = '', tool_calls = { { id = call.id } } }
  -- A table as tool content is sent to the model as JSON text.
  messages[#messages + 1] = { role = 'tool', tool_call_id = call.id, content = report }
  result = models.chat(messages, { tools = { 'weather' } })
end
log('model: ' .. result.content)
