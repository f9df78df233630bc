import { describe, expect, it } from 'vitest';
import { checkElicitation } from '../../../main/core/mcp/mcp-elicitation.js';
import { formContent } from '../../../main/core/mcp/mcp-form.js';
import { checkSampling } from '../../../main/core/mcp/mcp-sampling.js';
import { MAX_SAMPLING_TOKENS } from '../../../common/mcp-person.js';

/** The checks of a server's requests, on their own: what is refused, and what the person is shown. */
describe('a server’s elicitation request', () => {
  it('a cyclic schema (a $ref to itself, or an object that contains itself) is refused, never walked forever', () => {
    const ref = checkElicitation({
      message: 'm',
      requestedSchema: {
        type: 'object',
        properties: { loop: { $ref: '#/properties/loop' } },
        $defs: { again: { $ref: '#' } },
      },
    });
    expect(ref).toEqual({ ok: false, problem: 'the request is not a valid elicitation' });
    const cyclic: Record<string, unknown> = { type: 'string' };
    cyclic['self'] = cyclic;
    const looped = checkElicitation({ message: 'm', requestedSchema: { type: 'object', properties: { a: cyclic } } });
    expect(looped.ok).toBe(false);
    if (!looped.ok)
      expect(looped.problem).toMatch(
        /^the request is refused: it (nests deeper than 8 levels|holds more than 8000 values)$/,
      );
  });

  it('field names with control characters and required fields the form does not define are refused', () => {
    expect(
      checkElicitation({
        message: 'm',
        requestedSchema: { type: 'object', properties: { 'a\u001b[2J': { type: 'string' } } },
      }),
    ).toMatchObject({ ok: false, problem: expect.stringMatching(/control characters/) });
    expect(
      checkElicitation({ message: 'm', requestedSchema: { type: 'object', properties: {}, required: ['ghost'] } }),
    ).toEqual({ ok: false, problem: 'the form requires "ghost", which it does not define' });
  });

  it('answers are checked field by field: formats, ranges, multiple choices; left-out fields take their defaults', () => {
    const checked = checkElicitation({
      message: 'm',
      requestedSchema: {
        type: 'object',
        properties: {
          email: { type: 'string', format: 'email' },
          when: { type: 'string', format: 'date' },
          tags: {
            type: 'array',
            items: { type: 'string', enum: ['a', 'b', 'c'] },
            minItems: 1,
            maxItems: 2,
            default: ['a'],
          },
          n: { type: 'number', maximum: 10 },
        },
      },
    });
    if (!checked.ok || checked.request.mode !== 'form') throw new Error('expected a form');
    const fields = checked.request.fields;
    expect(formContent(fields, {})).toEqual({ ok: true, content: { tags: ['a'] } });
    expect(
      formContent(fields, { email: 'not-an-email', when: '2025-02-30', tags: ['a', 'b', 'c'], n: 11, extra: 1 }),
    ).toEqual({
      ok: false,
      problems: [
        '"extra" is not a field of this form',
        'field "email" must be an email address',
        'field "when" must be a date (YYYY-MM-DD)',
        'field "tags" takes at most 2 options',
        'field "n" must be at most 10',
      ],
    });
    expect(formContent(fields, { tags: ['a', 'a'] })).toMatchObject({
      ok: false,
      problems: ['field "tags" holds an option twice'],
    });
  });
});

describe('a server’s sampling request', () => {
  const base = { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 10 };

  it('is shown as text; a huge maxTokens is clamped and the requested one kept for the person', () => {
    expect(checkSampling({ ...base, maxTokens: 2 ** 40 })).toEqual({
      ok: true,
      request: {
        messages: [{ role: 'user', text: 'hi' }],
        maxTokens: MAX_SAMPLING_TOKENS,
        requestedMaxTokens: 2 ** 40,
      },
    });
  });

  it('images are described, not passed on; tools, tool use and no tokens are refused', () => {
    const image = checkSampling({
      ...base,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'see' },
            { type: 'image', mimeType: 'image/png', data: 'AAAA' },
          ],
        },
      ],
    });
    expect(image).toMatchObject({
      ok: true,
      request: { messages: [{ role: 'user', text: 'see\n[image: image/png, 3 bytes, not passed on]' }] },
    });
    expect(checkSampling({ ...base, tools: [] })).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/asks for tools/),
    });
    expect(
      checkSampling({
        ...base,
        messages: [{ role: 'user', content: { type: 'tool_result', toolUseId: 'x', content: [] } }],
      }),
    ).toMatchObject({ ok: false, problem: expect.stringMatching(/carries tool calls or tool results/) });
    expect(checkSampling({ ...base, maxTokens: 0 })).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/asks for no tokens/),
    });
    expect(checkSampling({ ...base, messages: [] })).toEqual({ ok: false, problem: 'the request has no messages' });
  });
});
