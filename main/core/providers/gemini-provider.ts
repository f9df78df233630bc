import { isPlainObject, type JsonObject, type JsonValue } from '../../../common/json.js';
import type {
  ChatMessage,
  ModelEvent,
  ModelProvider,
  ModelRequest,
  ProviderErrorKind,
  ToolCallRecord,
} from './model-provider.js';
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

/** Settings for {@link GeminiProvider}. */
export interface GeminiProviderOptions extends ProviderHttpOptions {
  /** Default `https://generativelanguage.googleapis.com/v1beta`. */
  baseUrl?: string;
  /** Sent as `x-goog-api-key` (never in the URL, which ends up in transcripts). */
  apiKey?: string;
  /** Default `gemini`. */
  providerId?: string;
  /** Default `Google Gemini`. */
  label?: string;
  /** Extra request headers. Never logged. */
  headers?: Record<string, string>;
}

/** Finish reasons that mean Gemini withheld or cut the answer for policy reasons. */
const FILTERED_REASONS = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'IMAGE_RECITATION',
]);

/**
 * Google Gemini adapter (`POST {baseUrl}/models/{model}:streamGenerateContent?alt=sse`).
 *
 * Gemini usually issues no call ids, so this adapter names calls `gemini-call-<n>`, counting per
 * adapter instance so ids never repeat within a run. A call's `thoughtSignature` (Gemini 3
 * rejects replayed calls without it) travels in the tool-call event's `providerMetadata`.
 */
export class GeminiProvider implements ModelProvider {
  readonly id: string;
  private readonly endpoint: ProviderEndpoint;
  /** The key without surrounding whitespace (a pasted or piped key often ends in a newline). */
  private readonly apiKey: string | undefined;
  private readonly baseUrl: string;
  private callCounter = 0;

  constructor(private readonly options: GeminiProviderOptions = {}) {
    this.apiKey = options.apiKey?.trim() || undefined;
    this.id = options.providerId ?? 'gemini';
    this.baseUrl = options.baseUrl ?? 'https://generativelanguage.googleapis.com/v1beta';
    this.endpoint = {
      providerId: this.id,
      label: options.label ?? 'Google Gemini',
      hasKey: this.apiKey !== undefined,
      secrets: [options.apiKey, this.apiKey],
      surface: options.surface,
    };
  }

  /** The request URL for `model`. */
  urlFor(model: string): string {
    const path = model.includes('/') ? model : `models/${model}`;
    return joinUrl(this.baseUrl, `${path}:streamGenerateContent?alt=sse`);
  }

  /** The exact JSON body this adapter sends for `request`. */
  buildBody(request: ModelRequest): JsonObject {
    const body: JsonObject = { contents: toGeminiContents(request.messages) };
    const system = request.messages.filter((m) => m.role === 'system').map((m) => m.content);
    if (system.length > 0) body.systemInstruction = { parts: [{ text: system.join('\n\n') }] };
    if (request.tools.length > 0) {
      body.tools = [
        {
          // parametersJsonSchema takes full JSON Schema; `parameters` only an OpenAPI subset that
          // rejects common keywords such as additionalProperties.
          functionDeclarations: request.tools.map((tool) => ({
            name: tool.name,
            description: tool.description,
            parametersJsonSchema: tool.parameters,
          })),
        },
      ];
    }
    const generationConfig: JsonObject = {};
    if (request.temperature !== undefined) generationConfig.temperature = request.temperature;
    if (request.maxTokens !== undefined) generationConfig.maxOutputTokens = request.maxTokens;
    if (Object.keys(generationConfig).length > 0) body.generationConfig = generationConfig;
    return mergeProviderOptions(body, request.providerOptions);
  }

  async *chat(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
    const url = this.urlFor(request.model);
    const body = this.buildBody(request);
    yield { type: 'request', url, body };

    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      ...this.options.headers,
    };
    if (this.apiKey) headers['x-goog-api-key'] = this.apiKey;

    const secrets = this.endpoint.secrets;
    const progress = new StreamProgress();
    let finishReason: string | undefined;
    let blockReason: string | undefined;
    let sawCalls = false;
    const budget = new ToolCallBudget(this.endpoint);
    let inputTokens = 0;
    let outputTokens = 0;

    for await (const batch of streamSse(
      this.endpoint,
      { url, headers, body: JSON.stringify(body), keyHeaders: this.apiKey ? ['x-goog-api-key'] : [] },
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
        const chunk = parseJsonData(item.data);
        if (!isPlainObject(chunk)) {
          yield malformedEvent(item.data, secrets);
          continue;
        }
        if (isPlainObject(chunk.error)) {
          const error = chunk.error;
          const status = typeof error.status === 'string' ? error.status : 'error';
          throw providerError(
            this.endpoint,
            errorKind(status),
            `Google Gemini reported ${status} mid-stream: ${describeProviderText(typeof error.message === 'string' ? error.message : JSON.stringify(error), secrets)}`,
          );
        }
        if (isPlainObject(chunk.usageMetadata)) {
          const usage = chunk.usageMetadata;
          inputTokens = tokenCount(usage.promptTokenCount) + tokenCount(usage.toolUsePromptTokenCount);
          // Thinking tokens are billed as output.
          outputTokens = tokenCount(usage.candidatesTokenCount) + tokenCount(usage.thoughtsTokenCount);
        }
        if (isPlainObject(chunk.promptFeedback) && typeof chunk.promptFeedback.blockReason === 'string') {
          blockReason = chunk.promptFeedback.blockReason;
          progress.content();
        }
        const candidate = Array.isArray(chunk.candidates) ? chunk.candidates[0] : undefined;
        if (!isPlainObject(candidate)) continue;
        const content = isPlainObject(candidate.content) ? candidate.content : {};
        const parts = Array.isArray(content.parts) ? content.parts : [];
        for (const part of parts) {
          if (!isPlainObject(part)) continue;
          // Text, thoughts, calls, signatures: anything in a part is the model at work.
          if (Object.values(part).some(carriesSomething)) progress.content();
          if (isPlainObject(part.functionCall)) {
            sawCalls = true;
            yield this.toolCallEvent(part.functionCall, part.thoughtSignature, budget);
          } else if (typeof part.text === 'string' && part.text !== '' && part.thought !== true) {
            yield { type: 'text-delta', text: part.text };
          }
        }
        if (typeof candidate.finishReason === 'string' && candidate.finishReason !== 'FINISH_REASON_UNSPECIFIED') {
          finishReason = candidate.finishReason;
          progress.content();
        }
      }
    }
    // Gemini's stream has no terminal event: a finishReason (or a blocked prompt) is how it ends.
    if (finishReason === undefined && blockReason === undefined) {
      throw streamCutOffError(this.endpoint, 'the connection closed before a chunk with a finishReason');
    }
    const providerFinishReason = finishReason ?? `PROMPT_BLOCKED:${blockReason}`;
    yield {
      type: 'finish',
      finishReason:
        blockReason !== undefined && finishReason === undefined
          ? 'content_filter'
          : normaliseGeminiFinish(finishReason, sawCalls),
      usage: { inputTokens, outputTokens },
      providerFinishReason,
    };
  }

  private toolCallEvent(
    functionCall: JsonObject,
    thoughtSignature: JsonValue | undefined,
    budget: ToolCallBudget,
  ): ModelEvent {
    budget.addCall();
    const issuedId = typeof functionCall.id === 'string' && functionCall.id !== '' ? functionCall.id : undefined;
    this.callCounter += 1;
    const id = issuedId ?? `gemini-call-${this.callCounter}`;
    const name = typeof functionCall.name === 'string' ? functionCall.name : '';
    // Gemini sends args as an object, never as text, so they are always valid JSON here.
    const rawArguments = JSON.stringify(functionCall.args ?? {});
    budget.addChars(name.length + rawArguments.length);
    budget.claimId(id);
    const metadata: JsonObject = {};
    if (issuedId) metadata.functionCallId = issuedId;
    if (typeof thoughtSignature === 'string') metadata.thoughtSignature = thoughtSignature;
    return {
      type: 'tool-call',
      id,
      name,
      rawArguments,
      ...(Object.keys(metadata).length > 0 ? { providerMetadata: metadata } : {}),
    };
  }
}

function errorKind(status: string): ProviderErrorKind {
  switch (status) {
    case 'RESOURCE_EXHAUSTED':
      return 'rate-limit';
    case 'UNAUTHENTICATED':
    case 'PERMISSION_DENIED':
      return 'auth';
    case 'INVALID_ARGUMENT':
    case 'NOT_FOUND':
    case 'FAILED_PRECONDITION':
      return 'bad-request';
    default:
      return 'server';
  }
}

function toGeminiContents(messages: ChatMessage[]): JsonValue[] {
  const calls = new Map<string, ToolCallRecord>();
  for (const message of messages) {
    if (message.role === 'assistant') for (const call of message.toolCalls ?? []) calls.set(call.id, call);
  }
  const turns: HistoryTurn[] = [];
  for (const message of messages) {
    if (message.role === 'system') continue;
    if (message.role === 'tool') {
      const call = calls.get(message.toolCallId);
      const functionCallId = stringMetadata(call, 'functionCallId');
      const functionResponse: JsonObject = {
        // Gemini matches responses to calls by name (and order); the name comes from the call.
        name: call?.name ?? message.toolCallId,
        // The API reference: use the "output" key for the function's output.
        response: { output: message.content },
      };
      if (functionCallId) functionResponse.id = functionCallId;
      // All responses to one model turn go back in one content, as the API expects (joined below).
      turns.push({ role: 'user', blocks: [{ functionResponse }] });
      continue;
    }
    // The API rejects a part with empty text ("400 INVALID_ARGUMENT"): none is sent.
    const text = message.content === '' ? [] : [{ text: message.content }];
    if (message.role === 'user') {
      turns.push({ role: 'user', blocks: text });
      continue;
    }
    const parts: JsonObject[] = [...text];
    for (const call of message.toolCalls ?? []) {
      const functionCall: JsonObject = { name: call.name, args: argumentsObject(call) };
      const functionCallId = stringMetadata(call, 'functionCallId');
      if (functionCallId) functionCall.id = functionCallId;
      const part: JsonObject = { functionCall };
      const signature = stringMetadata(call, 'thoughtSignature');
      if (signature) part.thoughtSignature = signature;
      parts.push(part);
    }
    turns.push({ role: 'model', blocks: parts });
  }
  return alternatingHistory(turns).map((turn) => ({ role: turn.role, parts: turn.blocks }));
}

function stringMetadata(call: ToolCallRecord | undefined, key: string): string | undefined {
  const value = call?.providerMetadata?.[key];
  return typeof value === 'string' ? value : undefined;
}

function normaliseGeminiFinish(reason: string | undefined, sawCalls: boolean): string {
  if (reason === 'STOP') return sawCalls ? 'tool_calls' : 'stop';
  if (reason === 'MAX_TOKENS') return 'length';
  if (reason !== undefined && FILTERED_REASONS.has(reason)) return 'content_filter';
  return 'other';
}
