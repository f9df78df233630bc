import { describe, expect, it } from 'vitest';
import { runScript } from './run-harness.js';

/**
 * Lua strings are bytes; the host speaks UTF-8 text. A string that is not valid UTF-8 (a multibyte
 * character cut in half, bytes 0xF8-0xFF, a stray continuation byte, an encoded surrogate) must
 * still cross whole: each invalid byte becomes U+FFFD, the rest is kept, and nothing after it is
 * swallowed (before, the host's decoder ate the closing quote and the call failed with a JSON
 * error and no file:line).
 */
const FFFD = '\uFFFD';

const cases: [name: string, lua: string, text: string][] = [
  ['a cut 3-byte character at the end', String.raw`'cut \xE2\x82'`, `cut ${FFFD}${FFFD}`],
  ['a cut 4-byte character before more text', String.raw`'a\xF0\x9F\x98b'`, `a${FFFD}${FFFD}${FFFD}b`],
  ['bytes 0xF8 to 0xFF', String.raw`'x\xF8\xFD\xFEy'`, `x${FFFD}${FFFD}${FFFD}y`],
  ['a stray continuation byte', String.raw`'\x80ok'`, `${FFFD}ok`],
  ['an encoded surrogate', String.raw`'a\xED\xA0\x80b'`, `a${FFFD}${FFFD}${FFFD}b`],
  ['an overlong encoding of a quote', String.raw`'q\xC0\xA2q'`, `q${FFFD}${FFFD}q`],
  ['valid text around invalid bytes', String.raw`'é\xFFè😀'`, `é${FFFD}è😀`],
];

describe('strings that are not valid UTF-8 cross to the host whole', () => {
  it.each(cases)('log(): %s', async (_name, lua, text) => {
    const h = await runScript(`log(${lua}) log('after')`);
    expect(h.result.error).toBeUndefined();
    expect(h.logs).toEqual([text, 'after']);
  });

  it.each(cases)('tools.call() arguments: %s', async (_name, lua, text) => {
    const h = await runScript(`log(tools.call('echo', { text = ${lua} }))`);
    expect(h.result.error).toBeUndefined();
    expect(h.runner.received[0]?.args).toEqual({ text });
    expect(h.logs).toEqual([text]);
  });

  it.each(cases)('untrusted(): %s', async (_name, lua, text) => {
    const h = await runScript(`local e = untrusted(${lua}) log(e:match('\\n([^\\n]*)\\n</untrusted_input_%x+>$'))`);
    expect(h.result.error).toBeUndefined();
    expect(h.logs).toEqual([text.replace('<', '&lt;')]);
  });

  it('a table key that is not valid UTF-8', async () => {
    const h = await runScript(String.raw`log(tools.call('args_json', { ['k\xE2'] = 'v\xFF' }))`);
    expect(h.result.error).toBeUndefined();
    expect(JSON.parse(h.logs[0]!)).toEqual({ [`k${FFFD}`]: `v${FFFD}` });
  });

  it('a long run of invalid bytes is converted in one pass', async () => {
    // 200,000 bad bytes through tools.call (no log-line cut on the way), and back.
    const h = await runScript(String.raw`local s = tools.call('echo', { text = string.rep('\xFF', 200000) }) log(#s)`);
    expect(h.result.error).toBeUndefined();
    expect(h.runner.received[0]?.args).toEqual({ text: FFFD.repeat(200000) });
    expect(h.logs).toEqual([String(200000 * 3)]);
  });

  it('an error message with invalid bytes keeps its file:line', async () => {
    const h = await runScript(String.raw`tools.call('echo', { text = 1, ['\xE2'] = 2 })`);
    expect(h.result.error?.message).toMatch(/^agent\.lua:1: /);
  });
});
