/**
 * A new agent's name must not look like another name, or like nothing: characters that draw
 * nothing although Unicode counts them as letters or marks (variation selectors, the combining
 * grapheme joiner, the Hangul fillers), names of combining marks only, and two spellings of one
 * name (NFC / NFD: two files on Linux, one on macOS; fullwidth letters) are refused.
 */
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { contractStudio } from '../studio/contract-studio.js';

async function studio() {
  const s = contractStudio();
  const root = mkdtempSync(path.join(tmpdir(), 'pf-names-'));
  await s.openFolder(root);
  return { s, root };
}

describe('agent names that look like another name, or like nothing', () => {
  it.each([
    ['variation selector U+FE0F after a letter', 'deploy\uFE0F'],
    ['combining grapheme joiner U+034F', 'deplo\u034Fy'],
    ['Mongolian free variation selector U+180B', 'deploy\u180B'],
    ['variation selector supplement U+E0100', 'deploy\u{E0100}'],
    ['Hangul filler U+3164 alone (draws as a blank)', '\u3164'],
    ['halfwidth Hangul filler U+FFA0 alone', '\uFFA0'],
    ['combining marks only', '\u0301\u0301'],
  ])('refuses %s', async (_what, name) => {
    const { s } = await studio();
    const error = await s.fail('file:create', { name });
    expect(error.code).toBe('invalid-name');
  });

  it('refuses an NFD spelling of an existing NFC name (one name on macOS, two look-alike files on Linux)', async () => {
    const { s, root } = await studio();
    await s.call('file:create', { name: 'caf\u00e9' });
    const error = await s.fail('file:create', { name: 'cafe\u0301' }).catch((e: unknown) => e as { code: string });
    expect(readdirSync(path.join(root, 'agents'))).toHaveLength(1);
    expect(error.code).toBe('name-taken');
  });

  it('refuses a fullwidth spelling of an existing name (NFKC-equal: ａｇｅｎｔ vs agent)', async () => {
    const { s, root } = await studio();
    await s.call('file:create', { name: 'agent' });
    const error = await s
      .fail('file:create', { name: '\uFF41\uFF47\uFF45\uFF4E\uFF54' })
      .catch((e: unknown) => e as { code: string });
    expect(readdirSync(path.join(root, 'agents'))).toHaveLength(1);
    expect(error.code).toBe('name-taken');
  });
});
