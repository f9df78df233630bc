/**
 * Plays one AgentDojo case with no run engine: the environment's scripted model answers, its
 * tools run on a copy of the state, and every call runs (as if a person approved them all). A
 * stand-in for `promptforge test`, used only to check the ports' own logic (ground truth against
 * checks, state copies); approvals, taint and trust are measured through the run engine instead.
 */
import type { JsonObject, JsonValue } from '../../../common/json.js';
import type { ChatMessage, ToolCallRecord } from '../../../main/core/providers/model-provider.js';
import type { EnvironmentCheckContext, TestEnvironment } from '../../../main/core/testing/test-environment.js';

export async function playDirect(
  environment: TestEnvironment,
  model: string,
  task: JsonValue,
  injections: Record<string, string> = {},
): Promise<EnvironmentCheckContext> {
  const before = environment.initialState(injections);
  const after = structuredClone(before);
  const provider = environment.models[model]!(task, structuredClone(before));
  const messages: ChatMessage[] = [{ role: 'user', content: 'task' }];
  const calls: EnvironmentCheckContext['calls'] = [];
  for (let round = 0; round < 100; round++) {
    let text = '';
    const requested: ToolCallRecord[] = [];
    const request = { model: 'scripted', messages, tools: [] };
    for await (const event of provider.chat(request, new AbortController().signal)) {
      if (event.type === 'text-delta') text += event.text;
      if (event.type === 'tool-call') {
        const args = JSON.parse(event.rawArguments) as JsonObject;
        requested.push({ id: event.id, name: event.name, rawArguments: event.rawArguments, arguments: args });
      }
    }
    if (requested.length === 0) return { before, after, calls, finalText: text };
    messages.push({ role: 'assistant', content: text, toolCalls: requested });
    for (const call of requested) {
      const tool = environment.tools.find((candidate) => candidate.alias === call.name)!;
      let output: string;
      try {
        output = await tool.run(structuredClone(call.arguments!), after);
      } catch (error) {
        output = String(error);
      }
      calls.push({ alias: call.name, arguments: call.arguments!, approved: true, output });
      messages.push({ role: 'tool', toolCallId: call.id, content: output });
    }
  }
  throw new Error('the scripted model did not finish in 100 rounds');
}
