/** An MCP server's `sampling/createMessage`: checked, shown to the person, and turned into the model round that answers it. */
import { CreateMessageRequestParamsSchema } from '@modelcontextprotocol/sdk/types.js';
import type { SamplingDecision, SamplingMessageView } from '../../../common/mcp-person.js';
import { jsonBoundsProblem } from './mcp-bounds.js';
import { cleanServerText } from './mcp-text.js';

import { MAX_SAMPLING_TOKENS } from './mcp-session.js';
/** Most messages one request may carry, and the longest text of one, in characters. */
const MAX_SAMPLING_MESSAGES = 64;
const MAX_SAMPLING_MESSAGE_CHARS = 256 * 1024;
const MAX_REQUEST_DEPTH = 16;
const MAX_REQUEST_VALUES = 20_000;

/** A checked request: the messages as text and the limits that would apply. */
export interface SamplingRequest {
  messages: SamplingMessageView[];
  systemPrompt?: string;
  maxTokens: number;
  /** Set when the server asked for more than {@link MAX_SAMPLING_TOKENS}. */
  requestedMaxTokens?: number;
  temperature?: number;
  stopSequences?: string[];
}

export type CheckedSampling = { ok: true; request: SamplingRequest } | { ok: false; problem: string };

/** Bytes that a base64 text decodes to. */
function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

/** One content block of a sampling message as text; images and audio are described, never passed on. */
function blockText(block: unknown): string | { problem: string } {
  const b = block as { type?: unknown; text?: unknown; mimeType?: unknown; data?: unknown };
  switch (b.type) {
    case 'text':
      return typeof b.text === 'string' ? b.text : '';
    case 'image':
    case 'audio':
      return `[${b.type}: ${String(b.mimeType).slice(0, 100)}, ${typeof b.data === 'string' ? base64Bytes(b.data) : 0} bytes, not passed on]`;
    case 'tool_use':
    case 'tool_result':
      return {
        problem: 'it carries tool calls or tool results, and the host never lets a server run tools through sampling',
      };
    default:
      return `[content of type "${String(b.type).slice(0, 40)}"]`;
  }
}

/**
 * Checks the server's request. Refused: a request for tools (`tools`, `toolChoice`, or tool use
 * in its messages), one that is too large, or with no text. A `maxTokens` above
 * {@link MAX_SAMPLING_TOKENS} is clamped, and the request says so. `includeContext` is ignored:
 * the host shares no context with a server.
 */
export function checkSampling(params: unknown): CheckedSampling {
  const refuse = (problem: string): CheckedSampling => ({ ok: false, problem });
  const tooBig = jsonBoundsProblem(params, MAX_REQUEST_DEPTH, MAX_REQUEST_VALUES);
  if (tooBig) return refuse(`the request is refused: ${tooBig}`);
  const raw = params as { tools?: unknown; toolChoice?: unknown } | null;
  if (raw && (raw.tools !== undefined || raw.toolChoice !== undefined))
    return refuse('the request asks for tools, and the host never lets a server run tools through sampling');
  const parsed = CreateMessageRequestParamsSchema.safeParse(params);
  if (!parsed.success) return refuse('the request is not a valid sampling request');
  const request = parsed.data;
  if (request.messages.length === 0) return refuse('the request has no messages');
  if (request.messages.length > MAX_SAMPLING_MESSAGES)
    return refuse(
      `the request has ${request.messages.length} messages, more than the ${MAX_SAMPLING_MESSAGES} accepted`,
    );
  const messages: SamplingMessageView[] = [];
  for (const message of request.messages) {
    const blocks = Array.isArray(message.content) ? message.content : [message.content];
    const parts: string[] = [];
    for (const block of blocks) {
      const part = blockText(block);
      if (typeof part !== 'string') return refuse(`the request is refused: ${part.problem}`);
      parts.push(part);
    }
    const text = parts.join('\n');
    if (text.length > MAX_SAMPLING_MESSAGE_CHARS)
      return refuse(`a message has ${text.length} characters, more than the ${MAX_SAMPLING_MESSAGE_CHARS} accepted`);
    messages.push({ role: message.role, text: cleanServerText(text, MAX_SAMPLING_MESSAGE_CHARS) });
  }
  const requested = Math.floor(request.maxTokens);
  if (!(requested > 0)) return refuse('the request asks for no tokens (maxTokens must be positive)');
  const system =
    request.systemPrompt === undefined ? undefined : cleanServerText(request.systemPrompt, MAX_SAMPLING_MESSAGE_CHARS);
  return {
    ok: true,
    request: {
      messages,
      ...(system && { systemPrompt: system }),
      maxTokens: Math.min(requested, MAX_SAMPLING_TOKENS),
      ...(requested > MAX_SAMPLING_TOKENS && { requestedMaxTokens: requested }),
      ...(typeof request.temperature === 'number' &&
        Number.isFinite(request.temperature) && { temperature: request.temperature }),
      ...(request.stopSequences && { stopSequences: request.stopSequences.slice(0, 8).map((s) => s.slice(0, 100)) }),
    },
  };
}

/**
 * Why the person's decision cannot go as it is: a denial without a reason, or an edit beyond what
 * the host sends (more than {@link MAX_SAMPLING_TOKENS} tokens, more messages or longer ones than
 * a server may send). Undefined when it can.
 */
export function samplingDecisionProblem(decision: SamplingDecision): string | undefined {
  if (decision.kind === 'deny')
    return typeof decision.reason === 'string' && decision.reason.trim() !== '' ? undefined : 'a denial needs a reason';
  if (decision.kind !== 'approve-edited') return undefined;
  if (decision.maxTokens !== undefined && decision.maxTokens > MAX_SAMPLING_TOKENS)
    return `the token limit is at most ${MAX_SAMPLING_TOKENS}`;
  const messages = decision.messages ?? [];
  if (messages.length > MAX_SAMPLING_MESSAGES) return `at most ${MAX_SAMPLING_MESSAGES} messages are sent`;
  const texts = [...messages.map((message) => message.text), decision.systemPrompt ?? ''];
  if (texts.some((text) => text.length > MAX_SAMPLING_MESSAGE_CHARS))
    return `a message is longer than the ${MAX_SAMPLING_MESSAGE_CHARS} characters sent`;
  if (messages.length > 0 && messages.every((message) => message.text.trim() === ''))
    return 'the edited messages are empty';
  return undefined;
}
