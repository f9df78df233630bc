import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runScript } from './run-harness.js';

// The chapter's code samples, cut out of the chapter itself and run as written (with a
// `messages` list in scope, which the samples assume).
const chapter = readFileSync(
  fileURLToPath(new URL('../../../docs/user-guide/tool-calls.txt', import.meta.url)),
  'utf8',
);

/** The sample whose first line is `firstLine`, up to the next blank line. */
function sample(firstLine: string): string {
  const lines = chapter.split('\n');
  const start = lines.findIndex((line) => line === firstLine);
  if (start < 0) throw new Error(`the chapter has no sample starting ${firstLine}`);
  const end = lines.findIndex((line, i) => i > start && line.trim() === '');
  return lines.slice(start, end < 0 ? undefined : end).join('\n');
}

const PRELUDE = `local messages = { { role = 'user', content = 'say hello' } }\n`;
const ECHO_CALL = { id: 'call_1', name: 'echo', rawArguments: '{"text":"hello"}' };

describe("the chapter's samples run as written", () => {
  it('"Read the requested calls" sample logs each requested call\'s name', async () => {
    const lines = chapter.split('\n');
    const start = lines.findIndex(
      (line, i) =>
        line.startsWith('local result = models.chat(') && lines[i + 2] === '  for i = 1, #result.tool_calls do',
    );
    const code = lines.slice(start, start + 7).join('\n');
    expect(code).toContain('log(call.name)');
    const h = await runScript(PRELUDE + code, { rounds: [{ calls: [ECHO_CALL, { ...ECHO_CALL, id: 'call_2' }] }] });
    expect(h.result.status).toBe('ok');
    expect(h.logs).toEqual(['echo', 'echo']);
  });

  it('"Dispatch a call" sample', async () => {
    const h = await runScript(`${sample("local output = tools.call('echo')")}\nlog(output == '')`);
    expect(h.result.status).toBe('ok');
    expect(h.logs).toEqual(['true']);
  });

  it('"Answer a tool call" sample: "Append two messages to your list."', async () => {
    const lines = chapter.split('\n');
    const start = lines.findIndex(
      (line, i) =>
        line === "local result = models.chat(messages, { tools = { 'echo' } })" &&
        lines[i + 2] === '  local call = result.tool_calls[1]',
    );
    const code = lines.slice(start, start + 8).join('\n');
    expect(code.split('\n').at(-1)).toBe('end');
    const h = await runScript(`${PRELUDE}${code}\nlog(#messages, messages[2].role, messages[3].role, result.content)`, {
      rounds: [{ calls: [ECHO_CALL] }, { content: 'done' }],
    });
    expect(h.result.status).toBe('ok');
    // One user message, plus the two appended: the assistant replay and the tool answer.
    expect(h.logs).toEqual(['3\tassistant\ttool\tdone']);
    expect(h.model.requests[1]!.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
  });

  it('"Count the dispatches" sample', async () => {
    const h = await runScript(sample("tools.call('echo')"));
    expect(h.result.status).toBe('ok');
    expect(h.logs).toEqual(['echo ran twice']);
  });

  it('"Trust and the envelope" sample', async () => {
    const h = await runScript(`${sample("local wrapped = untrusted('a < b')")}\nlog(wrapped)`);
    expect(h.result.status).toBe('ok');
    expect(h.logs[0]).toMatch(/^<untrusted_input_[0-9a-f]{32}>\n.+\na &lt; b\n<\/untrusted_input_[0-9a-f]{32}>$/);
  });
});

describe("the chapter's first sample", () => {
  it('"Advertise tools to the model" sample sends echo as the only tool', async () => {
    const code = chapter.split('\n').find((line) => line.startsWith('local result = models.chat('))!;
    const h = await runScript(PRELUDE + code);
    expect(h.result.status).toBe('ok');
    expect(h.model.requests[0]!.tools.map((t) => t.name)).toEqual(['echo']);
  });
});
