import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { AnthropicProvider } from '../../../main/core/providers/anthropic-provider.js';
import { GeminiProvider } from '../../../main/core/providers/gemini-provider.js';
import type { ModelProvider } from '../../../main/core/providers/model-provider.js';
import { OpenAIChatProvider } from '../../../main/core/providers/openai-chat-provider.js';
import {
  MAX_TOOL_CALLS_PER_ROUND,
  MAX_TOOL_CALL_CHARS_PER_ROUND,
} from '../../../main/core/providers/adapter-support.js';
import { CANARY_KEY, type LoopbackServer, type Responder, collect, startLoopbackServer } from './loopback-server.js';
import { plainRequest } from './requests.js';

/**
 * Bounds on what a hostile or broken endpoint can make an adapter accumulate in one round, checked
 * for every adapter: the number of tool calls, the characters of their arguments, reused ids, and
 * invalid UTF-8 in the stream.
 */

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const MiB = 1024 * 1024;

/** Answers with `status` and the given parts (strings or raw bytes), written with back-pressure. */
function respond(status: number, parts: Iterable<string | Buffer>, end: 'end' | 'destroy' = 'end'): Responder {
  return async (_request, response: ServerResponse) => {
    response.writeHead(status, { 'content-type': status === 200 ? 'text/event-stream' : 'text/plain' });
    // Set by the close listener (TypeScript cannot see it run, so the type is kept wide).
    let closed = false as boolean;
    response.on('close', () => (closed = true));
    for (const part of parts) {
      if (closed) return;
      if (!response.write(part)) await new Promise((resolve) => response.once('drain', resolve).once('close', resolve));
    }
    if (closed) return;
    // Destroying the socket drops writes still queued, so wait until they are flushed.
    if (end === 'destroy') await new Promise((resolve) => response.write('', resolve));
    if (end === 'destroy') response.socket?.destroy();
    else response.end();
  };
}

/** How one adapter's wire format says each thing a test needs. */
interface Wire {
  name: string;
  make(url: string): ModelProvider;
  /** An SSE body whose text is `before`, then raw `bytes`, then `after`. */
  textWithBytes(before: string, bytes: Buffer, after: string): (string | Buffer)[];
  /** A complete round asking for `count` calls with the given ids, each with `{}` arguments. */
  calls(ids: string[]): Iterable<string>;
  /** A complete round with one call whose arguments arrive as `pieces` fragments of `size` characters. */
  bigArguments(pieces: number, size: number): Iterable<string>;
}

const data = (value: unknown, event?: string): string =>
  `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(value)}\n\n`;

/** `data: {...,"<key>":"` + bytes + `"...}` with the raw bytes inside a JSON string. */
function split(value: unknown, marker: string, bytes: Buffer, event?: string): (string | Buffer)[] {
  const [head, tail] = data(value, event).split(marker) as [string, string];
  return [head, bytes, tail];
}

const openai: Wire = {
  name: 'OpenAIChatProvider',
  make: (url) =>
    new OpenAIChatProvider({
      baseUrl: `${url}/v1`,
      apiKey: CANARY_KEY,
      providerId: 'openai',
      label: 'OpenAI',
      retry: { maxRetries: 0 },
    }),
  textWithBytes: (before, bytes, after) => [
    ...split({ choices: [{ index: 0, delta: { content: `${before}@@${after}` } }] }, '@@', bytes),
    data({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
    'data: [DONE]\n\n',
  ],
  *calls(ids) {
    for (const [index, id] of ids.entries())
      yield data({
        choices: [
          {
            index: 0,
            delta: { tool_calls: [{ index, id, type: 'function', function: { name: 'echo', arguments: '{}' } }] },
          },
        ],
      });
    yield data({ choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] });
    yield 'data: [DONE]\n\n';
  },
  *bigArguments(pieces, size) {
    const piece = 'a'.repeat(size);
    yield data({
      choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_big', function: { name: 'echo' } }] } }],
    });
    for (let i = 0; i < pieces; i += 1)
      yield data({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: piece } }] } }] });
    yield data({ choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] });
    yield 'data: [DONE]\n\n';
  },
};

const anthropicStart = data(
  { type: 'message_start', message: { usage: { input_tokens: 1, output_tokens: 1 } } },
  'message_start',
);
const anthropicEnd = (reason: string): string =>
  data({ type: 'message_delta', delta: { stop_reason: reason }, usage: { output_tokens: 2 } }, 'message_delta') +
  data({ type: 'message_stop' }, 'message_stop');

const anthropic: Wire = {
  name: 'AnthropicProvider',
  make: (url) => new AnthropicProvider({ baseUrl: url, apiKey: CANARY_KEY, retry: { maxRetries: 0 } }),
  textWithBytes: (before, bytes, after) => [
    anthropicStart,
    data({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }, 'content_block_start'),
    ...split(
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: `${before}@@${after}` } },
      '@@',
      bytes,
      'content_block_delta',
    ),
    data({ type: 'content_block_stop', index: 0 }, 'content_block_stop'),
    anthropicEnd('end_turn'),
  ],
  *calls(ids) {
    yield anthropicStart;
    for (const [index, id] of ids.entries()) {
      yield data(
        { type: 'content_block_start', index, content_block: { type: 'tool_use', id, name: 'echo', input: {} } },
        'content_block_start',
      );
      yield data({ type: 'content_block_stop', index }, 'content_block_stop');
    }
    yield anthropicEnd('tool_use');
  },
  *bigArguments(pieces, size) {
    const piece = 'a'.repeat(size);
    yield anthropicStart;
    yield data(
      {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id: 'toolu_big', name: 'echo', input: {} },
      },
      'content_block_start',
    );
    for (let i = 0; i < pieces; i += 1)
      yield data(
        { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: piece } },
        'content_block_delta',
      );
    yield data({ type: 'content_block_stop', index: 0 }, 'content_block_stop');
    yield anthropicEnd('tool_use');
  },
};

const geminiPart = (parts: unknown[], finishReason?: string): string =>
  data({ candidates: [{ content: { parts, role: 'model' }, index: 0, ...(finishReason && { finishReason }) }] });

const gemini: Wire = {
  name: 'GeminiProvider',
  make: (url) => new GeminiProvider({ baseUrl: url, apiKey: CANARY_KEY, retry: { maxRetries: 0 } }),
  textWithBytes: (before, bytes, after) => [
    ...split(
      { candidates: [{ content: { parts: [{ text: `${before}@@${after}` }], role: 'model' }, index: 0 }] },
      '@@',
      bytes,
    ),
    geminiPart([{ text: '.' }], 'STOP'),
  ],
  *calls(ids) {
    for (const id of ids) yield geminiPart([{ functionCall: { id, name: 'echo', args: {} } }]);
    yield geminiPart([{ text: '.' }], 'STOP');
  },
  *bigArguments(pieces, size) {
    // Gemini sends each call's arguments whole, so the characters add up over several calls.
    const piece = 'a'.repeat(size);
    for (let i = 0; i < pieces; i += 1) yield geminiPart([{ functionCall: { name: 'echo', args: { text: piece } } }]);
    yield geminiPart([{ text: '.' }], 'STOP');
  },
};

const ids = (count: number, prefix = 'call_'): string[] => Array.from({ length: count }, (_, i) => `${prefix}${i}`);

describe.each([openai, anthropic, gemini])('$name bounds', (wire) => {
  it('decodes invalid UTF-8 in the stream as U+FFFD and finishes the round', async () => {
    server = await startLoopbackServer(
      respond(200, wire.textWithBytes('ok ', Buffer.from([0xff, 0xc3, 0x28]), ' end')),
    );
    const { events, error } = await collect(wire.make(server.url), plainRequest('m'));
    expect(error).toBeUndefined();
    const text = events.flatMap((e) => (e.type === 'text-delta' ? [e.text] : [])).join('');
    expect(text).toContain('ok \uFFFD\uFFFD( end');
    expect(events.at(-1)?.type).toBe('finish');
  });

  it(`accepts ${MAX_TOOL_CALLS_PER_ROUND} tool calls in one round and refuses one more`, async () => {
    server = await startLoopbackServer(
      respond(200, wire.calls(ids(MAX_TOOL_CALLS_PER_ROUND))),
      respond(200, wire.calls(ids(MAX_TOOL_CALLS_PER_ROUND + 1))),
    );
    const accepted = await collect(wire.make(server.url), plainRequest('m'));
    expect(accepted.error).toBeUndefined();
    expect(accepted.events.filter((e) => e.type === 'tool-call')).toHaveLength(MAX_TOOL_CALLS_PER_ROUND);

    const refused = await collect(wire.make(server.url), plainRequest('m'));
    expect(refused.error?.kind).toBe('stream');
    expect(refused.error?.message).toContain('more than 1,000 tool calls in one round');
    expect(refused.events.some((e) => e.type === 'finish')).toBe(false);
  });

  it('refuses a round that gives two tool calls the same id', async () => {
    server = await startLoopbackServer(respond(200, wire.calls(['dup_1', 'other', 'dup_1'])));
    const { events, error } = await collect(wire.make(server.url), plainRequest('m'));
    expect(error?.kind).toBe('stream');
    expect(error?.message).toContain('the same id ("dup_1")');
    expect(events.some((e) => e.type === 'finish')).toBe(false);
  });

  it('refuses tool-call arguments beyond the per-round limit, naming the limit', async () => {
    const size = 12 * MiB;
    const pieces = Math.floor(MAX_TOOL_CALL_CHARS_PER_ROUND / size) + 1;
    server = await startLoopbackServer(respond(200, wire.bigArguments(pieces, size)));
    const { events, error } = await collect(wire.make(server.url), plainRequest('m'));
    expect(error?.kind).toBe('stream');
    expect(error?.message).toContain('more than 32 MiB (33,554,432 characters) of tool-call names and arguments');
    expect(events.some((e) => e.type === 'finish')).toBe(false);
  });
});

describe('OpenAIChatProvider tool calls without an index', () => {
  const part = (id: string | undefined, args: string, name?: string): string =>
    data({
      choices: [
        {
          index: 0,
          delta: { tool_calls: [{ ...(id && { id }), function: { ...(name && { name }), arguments: args } }] },
        },
      ],
    });
  const end = [data({ choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] }), 'data: [DONE]\n\n'];

  it('continues the call whose id a fragment repeats, and the last call for a fragment without an id', async () => {
    server = await startLoopbackServer(
      respond(200, [
        part('a', '{"x":', 'echo'),
        part('b', '{"y":', 'echo'),
        part('a', '1}'),
        part(undefined, '2}'),
        ...end,
      ]),
    );
    const { events, error } = await collect(openai.make(server.url), plainRequest('m'));
    expect(error).toBeUndefined();
    expect(events.filter((e) => e.type === 'tool-call')).toEqual([
      { type: 'tool-call', id: 'a', name: 'echo', rawArguments: '{"x":1}' },
      { type: 'tool-call', id: 'b', name: 'echo', rawArguments: '{"y":2}' },
    ]);
  });

  it(`refuses more than ${MAX_TOOL_CALLS_PER_ROUND} of them in one round`, async () => {
    server = await startLoopbackServer(
      respond(200, [...ids(MAX_TOOL_CALLS_PER_ROUND + 1).map((id) => part(id, '{}', 'echo')), ...end]),
    );
    const { error } = await collect(openai.make(server.url), plainRequest('m'));
    expect(error?.kind).toBe('stream');
    expect(error?.message).toContain('more than 1,000 tool calls in one round');
  });
});

describe('HTTP error bodies', () => {
  it('shows the start of a long error body, marked as cut, with the HTTP error kind', async () => {
    server = await startLoopbackServer(respond(400, ['bad field: model', ' '.repeat(64 * 1024), 'x'.repeat(MiB)]));
    const { error } = await collect(openai.make(server.url), plainRequest('m'));
    expect(error?.kind).toBe('bad-request');
    expect(error?.status).toBe(400);
    expect(error?.message).toContain('Provider said: bad field: model …');
  });

  it('drops a character cut in half by the read limit, and shows invalid UTF-8 as U+FFFD', async () => {
    // 8191 bytes, then "é" (2 bytes), so the 8 KiB read limit falls inside it.
    const head = Buffer.concat([Buffer.from('bad '), Buffer.from([0xff]), Buffer.from(' '.repeat(8191 - 5))]);
    server = await startLoopbackServer(respond(400, [head, 'é and more']));
    const { error } = await collect(openai.make(server.url), plainRequest('m'));
    expect(error?.kind).toBe('bad-request');
    expect(error?.message).toContain('Provider said: bad \uFFFD …');
  });

  it('a 5xx whose body breaks off is still reported as a server error, with the text that arrived', async () => {
    server = await startLoopbackServer(respond(503, ['upstream down; details follow: '], 'destroy'));
    const { error } = await collect(openai.make(server.url), plainRequest('m'));
    expect(error?.kind).toBe('server');
    expect(error?.status).toBe(503);
    expect(error?.message).toContain('upstream down; details follow:');
  });
});
