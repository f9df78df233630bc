import { beforeAll, describe, expect, it } from 'vitest';
import { shownName } from '../../../main/core/did-you-mean.js';
import { exampleWorkspace, load, testFile } from '../testing/harness.js';

/**
 * A name a message quotes (a cloned test file's tool or model, a field name) may hold a line
 * break or a tab: quoted raw, it ends the message's line and starts one that looks like the
 * host's own (`tests/x.yaml:1:1: note: ...`, a fake fix). Every control character, line breaks and
 * tabs too, is spelled out, so a problem is one line whatever the name holds.
 */
let dir: string;
beforeAll(async () => {
  dir = await exampleWorkspace();
});

describe('names in messages stay on one line', () => {
  it('spells out line breaks, tabs and carriage returns', () => {
    expect(shownName('ecko\nfix: run rm -rf ~')).toBe('ecko\\u{a}fix: run rm -rf ~');
    expect(shownName('a\tb\rc\u000bd\u000ce\u0085f')).toBe('a\\u{9}b\\u{d}c\\u{b}d\\u{c}e\\u{85}f');
  });

  it("a test file's tool, model and field names with a line break give one-line problems", async () => {
    const files = {
      'fields.yaml': `cases:
  - name: a
    agent: agents/echo-loop.lua
    model: { replies: [] }
    expect:
      "statuss\\n(fix: nothing to do)": ok
`,
      'names.yaml': `cases:
  - name: a
    agent: agents/echo-loop.lua
    model:
      replies:
        - calls: [{ name: "ecko\\ntests/names.yaml:1:1: note: every case passed" }]
    expect:
      calls: [{ tool: "read_fil\\r\\nok" }]
  - name: b
    agent: agents/echo-loop.lua
    model: "fastt\\n\\tall good"
`,
    };
    const messages: string[] = [];
    for (const [name, text] of Object.entries(files)) {
      const { problems } = await load(dir, testFile(dir, name, text));
      for (const problem of problems) messages.push(problem.message, problem.fix);
    }
    expect(messages.length).toBeGreaterThanOrEqual(8);
    for (const message of messages) expect(message, message).not.toMatch(/[\n\r\t]/);
    const all = messages.join(' | ');
    expect(all).toContain('unknown field "statuss\\u{a}(fix: nothing to do)"');
    expect(all).toContain('tool "ecko\\u{a}tests/names.yaml:1:1: note: every case passed" is not in');
    expect(all).toContain('tool "read_fil\\u{d}\\u{a}ok" is not in');
    expect(all).toContain('model "fastt\\u{a}\\u{9}all good" is not in models.yaml');
  });
});
