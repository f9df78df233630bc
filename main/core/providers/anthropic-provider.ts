import { isPlainObject, type JsonObject, type JsonValue } from '../../../common/json.js';
import type { ChatMessage, ModelEvent, ModelProvider, ModelRequest, ProviderErrorKind } from './model-provider.js';
import {
  ToolCallBudget,
  argumentsObject,
  carriesSomething,
  joinUrl,
  malformedEvent,
  mergeProviderOptions,
  tokenCount,
  alternatingHistory,
  type HistoryTurn,
} from './adapter-support.js';
import { type ProviderHttpOptions, StreamProgress, streamSse } from './provider-http.js';
import {
  type ProviderEndpoint,
  abortedError,
  describeProviderText,
  providerError,
  streamCutOffError,
} from './provider-errors.js';
import { parseJsonData } from './sse-parser.js';

/** Settings for {@link AnthropicProvider}. */
export interface AnthropicProviderOptions extends ProviderHttpOptions {
  /** Default `https://api.anthropic.com`; `/v1/messages` is appended. */
  baseUrl?: string;
  /** Sent as `x-api-key`. */
  apiKey?: string;
  /** Default `anthropic`. */
  providerId?: string;
  /** Default `Anthropic`. */
  label?: string;
  /** Default `2023-06-01`. */
  anthropicVersion?: string;
  /** `max_tokens` when the request sets none (the Messages API requires it). Default 4096. */
  defaultMaxTokens?: number;
  /** Extra request headers (e.g. `anthropic-beta`). Never logged. */
  headers?: Record<string, string>;
}

interface ToolUseBlock {
  id: string;
  name: string;
  partialJson: string;
  /** The `input` of content_block_start as JSON text, used when no input_json_delta arrives. */
  initialJson: string;
}

/** Anthropic Messages API adapter (`POST {baseUrl}/v1/messages`, streamed). */
export class AnthropicProvider implements ModelProvider {
  readonly id: string;
  private readonly endpoint: ProviderEndpoint;
  /** The key without surrounding whitespace (a pasted or piped key often ends in a newline). */
  private readonly apiKey: string | undefined;
  private readonly baseUrl: string;

  constructor(private readonly options: AnthropicProviderOptions = {}) {
    this.apiKey = options.apiKey?.trim() || undefined;
    this.id = options.providerId ?? 'anthropic';
    this.baseUrl = options.baseUrl ?? 'https://api.anthropic.com';
    this.endpoint = {
      providerId: this.id,
      label: options.label ?? 'Anthropic',
      hasKey: this.apiKey !== undefined,
      secrets: [options.apiKey, this.apiKey],
      surface: options.surface,
    };
  }

  /** The exact JSON body this adapter sends for `request`. */
  buildBody(request: ModelRequest): JsonObject {
    const system = request.messages.filter((m) => m.role === 'system').map((m) => m.content);
    const body: JsonObject = {
      model: request.model,
      max_tokens: request.maxTokens ?? this.options.defaultMaxTokens ?? 4096,
    };
    // The Messages API has no system role: system text goes to the top-level `system`.
    if (system.length > 0) body.system = system.join('\n\n');
    body.messages = toAnthropicMessages(request.messages);
    if (request.tools.length > 0) {
      body.tools = request.tools.map((tool) => ({
        name: tool.name,
        description: tool.description,
        input_schema: tool.parameters,
      }));
    }
    if (request.temperature !== undefined) body.temperature = request.temperature;
    body.stream = true;
    return mergeProviderOptions(body, request.providerOptions);
  }

  async *chat(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
    const url = joinUrl(this.baseUrl, 'v1/messages');
    const body = this.buildBody(request);
    yield { type: 'request', url, body };

    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      'anthropic-version': this.options.anthropicVersion ?? '2023-06-01',
      ...this.options.headers,
    };
    if (this.apiKey) headers['x-api-key'] = this.apiKey;

    const secrets = this.endpoint.secrets;
    const progress = new StreamProgress();
    const blocks = new Map<number, ToolUseBlock>();
    const budget = new ToolCallBudget(this.endpoint);
    let inputTokens = 0;
    let outputTokens = 0;
    let stopReason: string | undefined;
    let sawToolUse = false;
    let done = false;

    stream: for await (const batch of streamSse(
      this.endpoint,
      { url, headers, body: JSON.stringify(body), keyHeaders: this.apiKey ? ['x-api-key'] : [] },
      this.options,
      signal,
      progress,
    )) {
      for (const item of batch) {
        // A batch can hold the rest of the round; a stop must not let it run to the end.
        if (signal.aborted) throw abortedError(this.endpoint);
        if (item.kind === 'malformed') {
          yield malformedEvent(item.line, secrets);
          continue;
        }
        // An empty event is a keep-alive: not content, and not malformed either.
        if (item.data.trim() === '') continue;
        const event = parseJsonData(item.data);
        if (!isPlainObject(event)) {
          yield malformedEvent(item.data, secrets);
          continue;
        }
        const type = typeof event.type === 'string' ? event.type : item.event;
        if (isContent(type, event)) progress.content();
        switch (type) {
          case 'message_start': {
            const message = isPlainObject(event.message) ? event.message : {};
            const usage = isPlainObject(message.usage) ? message.usage : {};
            inputTokens = totalInputTokens(usage);
            outputTokens = tokenCount(usage.output_tokens);
            break;
          }
          case 'content_block_start': {
            const block = isPlainObject(event.content_block) ? event.content_block : {};
            const index = typeof event.index === 'number' ? event.index : -1;
            if (block.type === 'tool_use') {
              sawToolUse = true;
              budget.addCall();
              const name = typeof block.name === 'string' ? block.name : '';
              const initialJson = JSON.stringify(block.input ?? {});
              budget.addChars(name.length + initialJson.length);
              blocks.set(index, {
                id: typeof block.id === 'string' ? block.id : `toolu-${index}`,
                name,
                partialJson: '',
                initialJson,
              });
            } else if (block.type === 'text' && typeof block.text === 'string' && block.text !== '') {
              yield { type: 'text-delta', text: block.text };
            }
            break;
          }
          case 'content_block_delta': {
            const delta = isPlainObject(event.delta) ? event.delta : {};
            if (delta.type === 'text_delta' && typeof delta.text === 'string') {
              if (delta.text !== '') yield { type: 'text-delta', text: delta.text };
            } else if (delta.type === 'input_json_delta' && typeof delta.partial_json === 'string') {
              const block = blocks.get(typeof event.index === 'number' ? event.index : -1);
              if (block) {
                budget.addChars(delta.partial_json.length);
                block.partialJson += delta.partial_json;
              }
            }
            break;
          }
          case 'content_block_stop': {
            const index = typeof event.index === 'number' ? event.index : -1;
            const block = blocks.get(index);
            if (block) {
              blocks.delete(index);
              // A tool without parameters may stream no input_json_delta at all; its input is then
              // the (empty) object from content_block_start.
              const rawArguments = block.partialJson !== '' ? block.partialJson : block.initialJson;
              budget.claimId(block.id);
              yield { type: 'tool-call', id: block.id, name: block.name, rawArguments };
            }
            break;
          }
          case 'message_delta': {
            const delta = isPlainObject(event.delta) ? event.delta : {};
            if (typeof delta.stop_reason === 'string') stopReason = delta.stop_reason;
            const usage = isPlainObject(event.usage) ? event.usage : {};
            // message_delta usage is cumulative for the message.
            if (usage.output_tokens !== undefined) outputTokens = tokenCount(usage.output_tokens);
            if (usage.input_tokens !== undefined) inputTokens = totalInputTokens(usage);
            break;
          }
          case 'message_stop':
            done = true;
            break;
          case 'error': {
            const error = isPlainObject(event.error) ? event.error : {};
            const errorType = typeof error.type === 'string' ? error.type : 'error';
            throw providerError(
              this.endpoint,
              errorKind(errorType),
              `Anthropic reported ${errorType} mid-stream: ${describeProviderText(typeof error.message === 'string' ? error.message : JSON.stringify(error), secrets)}`,
            );
          }
          default:
            // ping, and event types added later: the API reference asks clients to ignore unknown events.
            break;
        }
        if (done) break stream;
      }
    }
    if (!done) throw streamCutOffError(this.endpoint, 'the connection closed before `message_stop`');
    yield {
      type: 'finish',
      finishReason: normaliseAnthropicStop(stopReason, sawToolUse),
      usage: { inputTokens, outputTokens },
      ...(stopReason !== undefined ? { providerFinishReason: stopReason } : {}),
    };
  }
}

/**
 * Whether an event is the model at work, which restarts the stream's inactivity timer: the
 * message and block events, and deltas that carry something (text, tool input, thinking,
 * signatures, citations). `ping`, empty deltas and unknown event types are not.
 */
function isContent(type: string | undefined, event: JsonObject): boolean {
  switch (type) {
    case 'message_start':
    case 'content_block_start':
    case 'content_block_stop':
    case 'message_stop':
      return true;
    case 'message_delta':
      return isPlainObject(event.delta) && typeof event.delta.stop_reason === 'string';
    case 'content_block_delta':
      return (
        isPlainObject(event.delta) &&
        Object.entries(event.delta).some(([key, value]) => key !== 'type' && carriesSomething(value))
      );
    default:
      return false;
  }
}

function totalInputTokens(usage: JsonObject): number {
  // Cached prompt tokens are reported apart from input_tokens but are still input.
  return (
    tokenCount(usage.input_tokens) +
    tokenCount(usage.cache_creation_input_tokens) +
    tokenCount(usage.cache_read_input_tokens)
  );
}

function errorKind(errorType: string): ProviderErrorKind {
  switch (errorType) {
    case 'rate_limit_error':
      return 'rate-limit';
    case 'authentication_error':
    case 'permission_error':
      return 'auth';
    case 'invalid_request_error':
    case 'not_found_error':
    case 'request_too_large':
      return 'bad-request';
    default:
      return 'server';
  }
}

function toAnthropicMessages(messages: ChatMessage[]): JsonValue[] {
  const turns: HistoryTurn[] = [];
  for (const message of messages) {
    if (message.role === 'system') continue;
    if (message.role === 'tool') {
      // Consecutive tool results answer one assistant turn: they go in one user message (joined below).
      turns.push({
        role: 'user',
        blocks: [{ type: 'tool_result', tool_use_id: message.toolCallId, content: message.content }],
      });
      continue;
    }
    // The API rejects empty text blocks, and an assistant turn with empty content: none is sent.
    const text = message.content === '' ? [] : [{ type: 'text', text: message.content }];
    if (message.role === 'user') {
      turns.push({ role: 'user', blocks: text });
      continue;
    }
    const content: JsonObject[] = [...text];
    for (const call of message.toolCalls ?? []) {
      content.push({ type: 'tool_use', id: call.id, name: call.name, input: argumentsObject(call) });
    }
    turns.push({ role: 'assistant', blocks: content });
  }
  return alternatingHistory(turns).map(({ role, blocks }) => ({
    role,
    // A turn of one text block is sent as a plain string, as before.
    content: blocks.length === 1 && blocks[0]!['type'] === 'text' ? blocks[0]!['text']! : blocks,
  }));
}

function normaliseAnthropicStop(reason: string | undefined, sawToolUse: boolean): string {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return sawToolUse ? 'tool_calls' : 'stop';
    case 'tool_use':
      return 'tool_calls';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'refusal':
      return 'refusal';
    default:
      return 'other';
  }
}
