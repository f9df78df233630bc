import type { JsonObject, JsonSchema, JsonValue } from '../../../common/json.js';
import type { Usage } from '../../../common/run-events.js';

/** A tool call as the driver knows it: what the model asked for, with its raw argument text. */
export interface ToolCallRecord {
  /** Provider-issued id (or a driver-made one for providers that issue none). */
  id: string;
  /** The tool alias (also the wire name the model saw). */
  name: string;
  /** The arguments exactly as the provider sent them (a JSON text, possibly invalid). */
  rawArguments: string;
  /** The parsed arguments, or undefined when rawArguments is not a JSON object. */
  arguments: JsonObject | undefined;
  /**
   * Opaque provider data that must travel back with this call when it is replayed (Gemini's
   * `thoughtSignature`). Copy it from the `tool-call` event; adapters ignore what they don't know.
   */
  providerMetadata?: JsonObject;
}

/** One message of a model request, after the driver resolved any id-only tool_calls. */
export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCallRecord[] }
  | { role: 'tool'; toolCallId: string; content: string };

/** A tool definition advertised to the model: built from the catalog entry. */
export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: JsonSchema;
}

/** One model round as the driver asks a provider for it. */
export interface ModelRequest {
  /** The provider's own model id (not the catalog alias). */
  model: string;
  messages: ChatMessage[];
  /** Advertised tools. Empty means none: the provider must then send no tool definitions at all. */
  tools: ToolDefinition[];
  temperature?: number;
  maxTokens?: number;
  /** Provider-specific extras, passed through untouched. */
  providerOptions?: JsonObject;
}

/**
 * Events a provider yields while a round runs, in order. A round ends with exactly one `finish`
 * (or the iterator throws a {@link ProviderError}).
 */
export type ModelEvent =
  /** The exact wire request body sent (never containing a key), for the transcript. */
  | { type: 'request'; url: string; body: JsonValue }
  /** A piece of assistant text as it streams in. */
  | { type: 'text-delta'; text: string }
  /** One complete requested tool call (arguments assembled from all of its stream chunks). */
  | { type: 'tool-call'; id: string; name: string; rawArguments: string; providerMetadata?: JsonObject }
  /** Provider wire data the transcript keeps verbatim (e.g. an SSE line that could not be parsed). */
  | { type: 'raw'; note: string; data: string }
  /**
   * The round's end. `finishReason` is normalised: 'stop' | 'tool_calls' | 'length' |
   * 'content_filter' | 'refusal' | 'other' (adapters may pass other values through);
   * `providerFinishReason` is the provider's own word for it (e.g. Gemini `SAFETY`).
   */
  | { type: 'finish'; finishReason: string; usage: Usage; providerFinishReason?: string };

/**
 * A model provider adapter (OpenAI, Anthropic, Gemini, OpenAI-compatible, replay).
 * Whoever builds the adapter passes its key in; an adapter never looks a key up itself.
 * An adapter never executes a tool.
 */
export interface ModelProvider {
  /** Stable provider id, e.g. `openai`, `anthropic`, `gemini`, `openai-compatible`, `replay`. */
  readonly id: string;
  /** Runs one round. `signal` aborts the HTTP request when the run is stopped. */
  chat(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent>;
}

/** Why a provider round failed; `message` is user-facing and never contains a key. */
export type ProviderErrorKind =
  | 'auth'
  | 'rate-limit'
  | 'server'
  | 'connection'
  | 'timeout'
  | 'stream'
  | 'bad-request'
  | 'replay-divergence'
  | 'aborted';

/** An error from a provider round. */
export class ProviderError extends Error {
  constructor(
    readonly kind: ProviderErrorKind,
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}
