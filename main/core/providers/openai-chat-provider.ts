import { isPlainObject, type JsonObject, type JsonValue } from '../../../common/json.js';
import type { Usage } from '../../../common/run-events.js';
import type { ChatMessage, ModelEvent, ModelProvider, ModelRequest } from './model-provider.js';
import { ToolCallBudget, joinUrl, malformedEvent, mergeProviderOptions, tokenCount } from './adapter-support.js';
import { type ProviderHttpOptions, StreamProgress, streamSse } from './provider-http.js';
import {
  type ProviderEndpoint,
  abortedError,
  describeProviderText,
  providerError,
  streamCutOffError,
} from './provider-errors.js';
import { parseJsonData } from './sse-parser.js';

/** Settings for {@link OpenAIChatProvider}. */
export interface OpenAIChatProviderOptions extends ProviderHttpOptions {
  /** e.g. `https://api.openai.com/v1` or `http://localhost:11434/v1`; `/chat/completions` is appended. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer`; omitted when undefined (local servers). */
  apiKey?: string;
  /** `openai`, `ollama`, `groq`, ...: used in error hints and as {@link ModelProvider.id}. */
  providerId: string;
  /** Name in messages (default: the provider id). */
  label?: string;
  /** Sentence added to connection errors, e.g. how to start the local server. */
  connectionHint?: string;
  /** Extra request headers (e.g. OpenRouter's `HTTP-Referer`). Never logged. */
  headers?: Record<string, string>;
  /**
   * Where `maxTokens` goes. OpenAI's own API wants `max_completion_tokens` (its reasoning models
   * reject `max_tokens`); most compatible servers only know `max_tokens`. Default: by provider id.
   */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
}

interface PendingToolCall {
  index: number;
  id: string;
  name: string;
  rawArguments: string;
}

/**
 * OpenAI Chat Completions adapter (`POST {baseUrl}/chat/completions`, streamed), also used for
 * every OpenAI-compatible endpoint (Ollama, LM Studio, OpenRouter, Groq, vLLM).
 */
export class OpenAIChatProvider implements ModelProvider {
  readonly id: string;
  private readonly endpoint: ProviderEndpoint;
  /** The key without surrounding whitespace (a pasted or piped key often ends in a newline). */
  private readonly apiKey: string | undefined;

  constructor(private readonly options: OpenAIChatProviderOptions) {
    this.apiKey = options.apiKey?.trim() || undefined;
    this.id = options.providerId;
    this.endpoint = {
      providerId: options.providerId,
      label: options.label ?? options.providerId,
      hasKey: this.apiKey !== undefined,
      secrets: [options.apiKey, this.apiKey],
      surface: options.surface,
      ...(options.connectionHint ? { connectionHint: options.connectionHint } : {}),
    };
  }

  /** The exact JSON body this adapter sends for `request` (exported for tests and the bench). */
  buildBody(request: ModelRequest): JsonObject {
    const body: JsonObject = { model: request.model, messages: request.messages.map(toOpenAIMessage) };
    // No tools advertised means no `tools` (and no `tool_choice`) field at all: some servers
    // treat an empty list as an error, and the spec forbids advertising anything by default.
    if (request.tools.length > 0) {
      body.tools = request.tools.map((tool) => ({
        type: 'function',
        function: { name: tool.name, description: tool.description, parameters: tool.parameters },
      }));
    }
    if (request.temperature !== undefined) body.temperature = request.temperature;
    if (request.maxTokens !== undefined) {
      const field =
        this.options.maxTokensField ?? (this.options.providerId === 'openai' ? 'max_completion_tokens' : 'max_tokens');
      body[field] = request.maxTokens;
    }
    body.stream = true;
    body.stream_options = { include_usage: true };
    return mergeProviderOptions(body, request.providerOptions);
  }

  async *chat(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
    const url = joinUrl(this.options.baseUrl, 'chat/completions');
    const body = this.buildBody(request);
    yield { type: 'request', url, body };

    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      ...this.options.headers,
    };
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;

    const secrets = this.endpoint.secrets;
    const progress = new StreamProgress();
    const budget = new ToolCallBudget(this.endpoint);
    const toolCalls = new ToolCallAssembler(budget);
    let sawToolCalls = false;
    let refused = false;
    let providerReason: string | undefined;
    let usage: Usage = { inputTokens: 0, outputTokens: 0 };
    let done = false;

    const flushToolCalls = function* (): Generator<ModelEvent> {
      for (const call of toolCalls.flush()) {
        budget.claimId(call.id);
        yield { type: 'tool-call', id: call.id, name: call.name, rawArguments: call.rawArguments };
      }
    };

    stream: for await (const batch of streamSse(
      this.endpoint,
      { url, headers, body: JSON.stringify(body), keyHeaders: this.apiKey ? ['authorization'] : [] },
      this.options,
      signal,
      progress,
    )) {
      // Text of consecutive deltas in one network read goes out as one event: fewer async hops,
      // same text, same order (it is flushed before any other event and at the end of the read).
      let text = '';
      const flushText = function* (): Generator<ModelEvent> {
        if (text === '') return;
        const piece = text;
        text = '';
        yield { type: 'text-delta', text: piece };
      };
      for (const item of batch) {
        // A batch can hold the rest of the round; a stop must not let it run to the end.
        if (signal.aborted) throw abortedError(this.endpoint);
        if (item.kind === 'malformed') {
          yield* flushText();
          yield malformedEvent(item.line, secrets);
          continue;
        }
        // An empty event is a keep-alive: not content, and not malformed either.
        if (item.data.trim() === '') continue;
        if (item.data.trim() === '[DONE]') {
          yield* flushText();
          done = true;
          break stream;
        }
        const chunk = parseJsonData(item.data);
        if (!isPlainObject(chunk)) {
          yield* flushText();
          yield malformedEvent(item.data, secrets);
          continue;
        }
        if (chunk.error !== undefined) {
          // OpenRouter and some proxies report failures mid-stream as an `error` chunk.
          throw providerError(
            this.endpoint,
            'server',
            `${this.endpoint.label} reported an error mid-stream: ${describeProviderText(JSON.stringify(chunk.error), secrets)}`,
          );
        }
        const chunkUsage = isPlainObject(chunk.usage)
          ? chunk.usage
          : isPlainObject(chunk.x_groq) && isPlainObject(chunk.x_groq.usage)
            ? chunk.x_groq.usage
            : undefined;
        if (chunkUsage)
          usage = {
            inputTokens: tokenCount(chunkUsage.prompt_tokens),
            outputTokens: tokenCount(chunkUsage.completion_tokens),
          };

        const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
        for (const choice of choices) {
          if (!isPlainObject(choice) || (choice.index !== undefined && choice.index !== 0)) continue;
          const delta = isPlainObject(choice.delta) ? choice.delta : {};
          if (typeof delta.content === 'string' && delta.content !== '') {
            text += delta.content;
            progress.content();
          }
          if (typeof delta.refusal === 'string' && delta.refusal !== '') {
            // A refusal is the model's answer: the script sees it as content, and the finish says why.
            refused = true;
            text += delta.refusal;
            progress.content();
          }
          // Reasoning servers (vLLM, Ollama, OpenRouter, DeepSeek) stream the thinking in a field
          // of its own before any content: it is not passed on, but it is the model at work.
          if (
            (typeof delta.reasoning_content === 'string' && delta.reasoning_content !== '') ||
            (typeof delta.reasoning === 'string' && delta.reasoning !== '')
          )
            progress.content();
          if (Array.isArray(delta.tool_calls)) {
            for (const part of delta.tool_calls) {
              if (!isPlainObject(part)) continue;
              sawToolCalls = true;
              if (toolCalls.add(part)) progress.content();
            }
          }
          if (typeof choice.finish_reason === 'string') {
            progress.content();
            providerReason = choice.finish_reason;
            yield* flushText();
            yield* flushToolCalls();
          }
        }
      }
      yield* flushText();
    }
    if (!done) throw streamCutOffError(this.endpoint, 'the connection closed before `data: [DONE]`');
    yield* flushToolCalls();
    yield {
      type: 'finish',
      finishReason: normaliseOpenAIFinish(providerReason, sawToolCalls, refused),
      usage,
      ...(providerReason !== undefined ? { providerFinishReason: providerReason } : {}),
    };
  }
}

/** Assembles streamed tool-call fragments into calls. */
class ToolCallAssembler {
  private pending = new Map<number, PendingToolCall>();
  /** Index of each pending call by id, for fragments without an `index`. */
  private byId = new Map<string, number>();
  private lastIndex = -1;

  constructor(private readonly budget: ToolCallBudget) {}

  /** Adds one fragment; returns whether it carried anything (an id, a name or arguments). */
  add(part: JsonObject): boolean {
    const fn = isPlainObject(part.function) ? part.function : {};
    const id = typeof part.id === 'string' && part.id !== '' ? part.id : undefined;
    let index: number;
    if (typeof part.index === 'number') {
      index = part.index;
    } else {
      // Some compatible servers omit `index`; a new id starts a new call, otherwise the last one continues.
      const known = id === undefined ? undefined : this.byId.get(id);
      index =
        known !== undefined && this.pending.get(known)?.id === id
          ? known
          : id !== undefined
            ? this.lastIndex + 1
            : Math.max(this.lastIndex, 0);
    }
    let call = this.pending.get(index);
    let carried = false;
    if (!call) {
      carried = true;
      this.budget.addCall();
      call = { index, id: '', name: '', rawArguments: '' };
      this.pending.set(index, call);
    }
    if (id !== undefined && id !== call.id) {
      call.id = id;
      this.byId.set(id, index);
      carried = true;
    }
    if (typeof fn.name === 'string') {
      this.budget.addChars(fn.name.length);
      call.name += fn.name;
      if (fn.name !== '') carried = true;
    }
    const args =
      typeof fn.arguments === 'string'
        ? fn.arguments
        : isPlainObject(fn.arguments)
          ? JSON.stringify(fn.arguments)
          : undefined;
    if (args !== undefined) {
      this.budget.addChars(args.length);
      call.rawArguments += args;
      if (args !== '') carried = true;
    }
    if (call.id === '') {
      call.id = `call-${index}`;
      this.byId.set(call.id, index);
    }
    this.lastIndex = Math.max(index, this.lastIndex);
    return carried;
  }

  /** The pending calls in index order; forgets them. */
  flush(): PendingToolCall[] {
    const calls = [...this.pending.values()].sort((a, b) => a.index - b.index);
    this.pending.clear();
    this.byId.clear();
    return calls;
  }
}

function toOpenAIMessage(message: ChatMessage): JsonValue {
  switch (message.role) {
    case 'system':
    case 'user':
      return { role: message.role, content: message.content };
    case 'assistant':
      if (message.toolCalls && message.toolCalls.length > 0) {
        return {
          role: 'assistant',
          // The reference shape: content is null when the turn is only tool calls.
          content: message.content === '' ? null : message.content,
          tool_calls: message.toolCalls.map((call) => ({
            id: call.id,
            type: 'function',
            function: { name: call.name, arguments: call.rawArguments },
          })),
        };
      }
      return { role: 'assistant', content: message.content };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  }
}

function normaliseOpenAIFinish(reason: string | undefined, sawToolCalls: boolean, refused: boolean): string {
  if (refused) return 'refusal';
  switch (reason) {
    case 'tool_calls':
    case 'function_call':
      return 'tool_calls';
    case 'stop':
    case undefined:
      // Older Ollama builds report `stop` for a tool-call turn.
      return sawToolCalls ? 'tool_calls' : reason === 'stop' ? 'stop' : 'other';
    case 'length':
    case 'content_filter':
      return reason;
    default:
      return 'other';
  }
}
