import { describe, expect, it } from 'vitest';
import { fragmentLength, REDACTED, redactDeep, redactSecrets } from '../../../main/core/secrets/redact.js';
import { BENIGN, HEADER_SECRET, LEAKS, PROVIDER_KEY } from '../../fixtures/secret-leaks.js';

const BOTH = [PROVIDER_KEY, HEADER_SECRET];

describe('redactSecrets against the leak corpus', () => {
  it.each(LEAKS.map((leak) => [leak.name, leak] as const))('%s', (_name, leak) => {
    expect(leak.text).not.toBe(leak.redacted);
    const expected = typeof leak.redacted === 'string' ? leak.redacted : expect.stringMatching(leak.redacted);
    expect(redactSecrets(leak.text, BOTH)).toEqual(expected);
    // Only the secret it carries is needed.
    expect(redactSecrets(leak.text, [leak.secret])).toEqual(expected);
  });

  it.each(BENIGN.map((text) => [text]))('leaves %j alone', (text) => {
    expect(redactSecrets(text, BOTH)).toBe(text);
  });

  it('leaves no window of fragmentLength characters of a secret anywhere in a long mixed text', () => {
    const text = LEAKS.map((leak) => leak.text).join(' | ');
    const clean = redactSecrets(text, BOTH);
    const folded = clean.toLowerCase();
    for (const secret of BOTH) {
      const n = fragmentLength(secret.length);
      for (let i = 0; i + n <= secret.length; i += 1)
        expect(folded).not.toContain(secret.slice(i, i + n).toLowerCase());
    }
  });

  it('fragment lengths: 8 from 16 characters, half from 12 to 15, whole below 12; under 4 ignored', () => {
    expect([4, 11, 12, 15, 16, 40].map(fragmentLength)).toEqual([4, 11, 6, 7, 8, 8]);
    const short = 'pw-12345'; // 8 characters: whole occurrences only
    expect(redactSecrets(`a ${short} b pw-123`, [short])).toBe(`a ${REDACTED} b pw-123`);
    expect(redactSecrets('abc abc', ['abc', '', undefined])).toBe('abc abc');
    const mid = 'abcd-efgh-ijk'; // 13 characters: fragments of 6
    expect(redactSecrets('x efgh-i y abcd-e z', [mid])).toBe(`x ${REDACTED} y ${REDACTED} z`);
    expect(redactSecrets('x efgh- y', [mid])).toBe('x efgh- y');
  });

  it('is linear enough for a 4 MiB body full of near-misses', () => {
    // Every 7-character window is a piece of the key, never 8: the scanner must not go quadratic.
    const body = Array.from(
      { length: (4 * 1024 * 1024) / 8 },
      (_, i) => `${PROVIDER_KEY.slice(i % 30, (i % 30) + 7)}.`,
    ).join('');
    const clean = redactSecrets(body, BOTH);
    expect(clean).toBe(body);
  });
});

describe('redactDeep', () => {
  it('redacts strings at any depth, object keys too, and returns the same object when nothing changed', () => {
    const value = { a: [1, { b: `x ${PROVIDER_KEY}` }], [HEADER_SECRET]: true, n: null };
    expect(redactDeep(value, BOTH)).toEqual({ a: [1, { b: `x ${REDACTED}` }], [REDACTED]: true, n: null });
    const clean = { a: [1, { b: 'fine' }] };
    expect(redactDeep(clean, BOTH)).toBe(clean);
    expect(redactDeep(clean, [])).toBe(clean);
  });

  it('a "__proto__" key stays a plain key when its object is rebuilt', () => {
    const value = JSON.parse(`{"__proto__":{"polluted":true},"k":"${PROVIDER_KEY}"}`) as Record<string, unknown>;
    const clean = redactDeep(value, BOTH);
    expect(Object.getPrototypeOf(clean)).toBe(Object.prototype);
    expect(Object.keys(clean)).toEqual(['__proto__', 'k']);
    expect(clean['k']).toBe(REDACTED);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('a leak split across two fields is cut in both', () => {
    const value = { first: PROVIDER_KEY.slice(0, 20), second: PROVIDER_KEY.slice(20) };
    expect(redactDeep(value, BOTH)).toEqual({ first: REDACTED, second: REDACTED });
  });
});
