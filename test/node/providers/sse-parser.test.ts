import { describe, expect, it } from 'vitest';
import {
  MAX_SSE_EVENT_CHARS,
  SseParser,
  type SseItem,
  SseTooLongError,
} from '../../../main/core/providers/sse-parser.js';

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

  it('ignores lines of spaces and tabs (keep-alive padding): not malformed, and they end no event', () => {
    expect(parseAll('  \n\t\ndata: a\n \t \ndata: b\n\n   ')).toEqual([
      { kind: 'event', event: undefined, data: 'a\nb' },
    ]);
  });

  it('dispatches a last event that lacks the final blank line', () => {
    expect(parseAll('data: [DONE]')).toEqual([{ kind: 'event', event: undefined, data: '[DONE]' }]);
  });
});

describe('SseParser limits', () => {
  const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

  it('refuses a line longer than the limit even when it never ends, however it is split', () => {
    const parser = new SseParser({ maxEventChars: 100 });
    parser.push(bytes('data: '));
    for (let i = 0; i < 9; i += 1) parser.push(bytes('x'.repeat(10)));
    expect(() => parser.push(bytes('x'.repeat(10)))).toThrow(SseTooLongError);
    expect(() => new SseParser({ maxEventChars: 100 }).push(bytes(`data: ${'x'.repeat(100)}\n`))).toThrow(
      'an SSE line longer than 100 characters',
    );
  });

  it('accepts a line of exactly the limit, split across chunks', () => {
    const parser = new SseParser({ maxEventChars: 100 });
    const line = `data: ${'y'.repeat(94)}`;
    expect(parser.push(bytes(line.slice(0, 50)))).toEqual([]);
    expect(parser.push(bytes(`${line.slice(50)}\n\n`))).toEqual([
      { kind: 'event', event: undefined, data: 'y'.repeat(94) },
    ]);
  });

  it('refuses an event whose data lines together exceed the limit', () => {
    const parser = new SseParser({ maxEventChars: 100 });
    const line = `data: ${'z'.repeat(40)}\n`;
    expect(parser.push(bytes(line + line))).toEqual([]);
    expect(() => parser.push(bytes(line))).toThrow('an SSE event longer than 100 characters');
  });

  it('names the default limit in MiB and characters', () => {
    expect(new SseTooLongError('line', MAX_SSE_EVENT_CHARS).message).toBe(
      'an SSE line longer than 32 MiB (33,554,432 characters)',
    );
  });

  it('decodes invalid UTF-8 as U+FFFD instead of throwing', () => {
    const parser = new SseParser();
    const items = [
      ...parser.push(Uint8Array.from([...bytes('data: a'), 0xff, 0xe2, 0x82, ...bytes('b\n\n')])),
      ...parser.push(Uint8Array.from([...bytes('data: c'), 0xf0, 0x9f])),
      ...parser.end(),
    ];
    expect(items).toEqual([
      { kind: 'event', event: undefined, data: 'a\uFFFD\uFFFDb' },
      { kind: 'event', event: undefined, data: 'c\uFFFD' },
    ]);
  });
});
