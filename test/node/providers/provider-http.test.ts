import { describe, expect, it } from 'vitest';
import { SseParser, type SseItem, parseRetryAfter } from '../../../main/core/providers/provider-http.js';

function parseAll(text: string, splitAt: number[] = []): SseItem[] {
  const bytes = new TextEncoder().encode(text);
  const parser = new SseParser();
  const items: SseItem[] = [];
  let start = 0;
  for (const end of [...splitAt, bytes.length]) {
    items.push(...parser.push(bytes.slice(start, end)));
    start = end;
  }
  items.push(...parser.end());
  return items;
}

describe('SseParser', () => {
  const stream = 'event: a\ndata: {"x":"é"}\n\n: comment\ndata: one\ndata: two\n\nretry: 10\nid: 7\ndata:no-space\n\n';
  const expected: SseItem[] = [
    { kind: 'event', event: 'a', data: '{"x":"é"}' },
    { kind: 'event', event: undefined, data: 'one\ntwo' },
    { kind: 'event', event: undefined, data: 'no-space' },
  ];

  it('parses events, multi-line data and comments', () => {
    expect(parseAll(stream)).toEqual(expected);
  });

  it('gives the same events however the bytes are split (including inside a UTF-8 character)', () => {
    const length = new TextEncoder().encode(stream).length;
    for (let split = 1; split < length; split += 1) expect(parseAll(stream, [split])).toEqual(expected);
  });

  it('accepts CRLF and lone CR line endings, also when a CRLF straddles two chunks', () => {
    const crlf = 'data: a\r\n\r\ndata: b\r\r';
    expect(parseAll(crlf)).toEqual([
      { kind: 'event', event: undefined, data: 'a' },
      { kind: 'event', event: undefined, data: 'b' },
    ]);
    for (let split = 1; split < crlf.length; split += 1) {
      expect(parseAll(crlf, [split])).toEqual([
        { kind: 'event', event: undefined, data: 'a' },
        { kind: 'event', event: undefined, data: 'b' },
      ]);
    }
  });

  it('reports a line that is not an SSE field as malformed, verbatim, and keeps going', () => {
    expect(parseAll('garbage here\ndata: ok\n\n')).toEqual([
      { kind: 'malformed', line: 'garbage here' },
      { kind: 'event', event: undefined, data: 'ok' },
    ]);
  });

  it('dispatches a last event that lacks the final blank line', () => {
    expect(parseAll('data: [DONE]')).toEqual([{ kind: 'event', event: undefined, data: '[DONE]' }]);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');
  it('reads seconds, fractional seconds, retry-after-ms and HTTP dates', () => {
    expect(parseRetryAfter(new Headers({ 'retry-after': '7' }), now)).toBe(7000);
    expect(parseRetryAfter(new Headers({ 'retry-after': '1.5' }), now)).toBe(1500);
    expect(parseRetryAfter(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }), now)).toBe(250);
    expect(parseRetryAfter(new Headers({ 'retry-after': 'Wed, 01 Jan 2025 00:00:30 GMT' }), now)).toBe(30_000);
  });
  it('treats a date in the past as no wait and nonsense as absent', () => {
    expect(parseRetryAfter(new Headers({ 'retry-after': 'Tue, 31 Dec 2024 23:00:00 GMT' }), now)).toBe(0);
    expect(parseRetryAfter(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(parseRetryAfter(new Headers(), now)).toBeUndefined();
  });
});
