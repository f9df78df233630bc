import { describe, expect, it } from 'vitest';
import { parseExactJson } from '../../../common/json.js';

// Edited tool arguments (the studio's card, the terminal's `e`) and a fork's edited calls are JSON a
// person typed: what runs must be what they wrote.
describe('parseExactJson: JSON a person typed runs as written', () => {
  it('accepts ordinary JSON, strings that look like keys, and exact numbers', () => {
    expect(parseExactJson('{"a": [1, 2.5, -0, 1e3, 9007199254740991], "b": {"a": "a,\\"a\\": 1"}}')).toEqual({
      ok: true,
      value: { a: [1, 2.5, -0, 1000, 9007199254740991], b: { a: 'a,"a": 1' } },
    });
    expect(parseExactJson('[{"k": 1}, {"k": 2}]').ok).toBe(true);
  });

  it('refuses a key given twice in one object, at any depth', () => {
    expect(parseExactJson('{"x": {"name": "draft", "name": "release-notes"}}')).toEqual({
      ok: false,
      problem: 'the key "name" appears twice in one object, and only its last value would be used; keep one',
    });
    expect(parseExactJson('{"a\\u0062": 1, "ab": 2}').ok).toBe(false);
  });

  it('refuses numbers a JSON number cannot hold exactly', () => {
    expect(parseExactJson('{"account": 9007199254740993}')).toEqual({
      ok: false,
      problem:
        'the number 9007199254740993 cannot be held exactly by a JSON number (it would become 9007199254740992); write it as a string',
    });
    expect(parseExactJson('[1e400]')).toEqual({
      ok: false,
      problem: 'the number 1e400 is too large for a JSON number (it would be sent as null); write it as a string',
    });
  });

  it('says what is not JSON', () => {
    expect(parseExactJson('{not json')).toMatchObject({ ok: false, problem: expect.stringMatching(/^not JSON: /) });
  });
});
