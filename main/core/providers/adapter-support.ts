import { isPlainObject, type JsonObject, type JsonValue } from '../../../common/json.js';
import type { ModelEvent, ToolCallRecord } from './model-provider.js';
import { redactSecrets } from '../secrets/redact.js';
import { type ProviderEndpoint, describeProviderText, providerError } from './provider-errors.js';
import { formatChars } from './sse-parser.js';

/**
 * The most tool calls one round may request. Real models ask for a handful (parallel calls rarely
 * exceed a few dozen); a thousand is generous, and bounds the per-call work and memory a hostile
 * endpoint can cause in one round.
 */
export const MAX_TOOL_CALLS_PER_ROUND = 1_000;

/**
 * The most characters of tool-call names and arguments one round may carry, all calls together.
 * The host sends at most 16 MiB to Lua in one reply, so twice that never refuses a round the
 * script could receive, while arguments streamed in endless fragments stop long before they
 * exhaust the host's memory.
 */
export const MAX_TOOL_CALL_CHARS_PER_ROUND = 32 * 1024 * 1024;

/**
 * Counts one round's tool calls against {@link MAX_TOOL_CALLS_PER_ROUND} and
 * {@link MAX_TOOL_CALL_CHARS_PER_ROUND}, and checks that no id is issued twice (the driver and the
 * provider match results to calls by id). Each check throws a `stream` ProviderError.
 */
export class ToolCallBudget {
  private calls = 0;
  private chars = 0;
  private readonly ids = new Set<string>();

  constructor(private readonly endpoint: ProviderEndpoint) {}

  /** Counts one more call (before it is kept). */
  addCall(): void {
    this.calls += 1;
    if (this.calls > MAX_TOOL_CALLS_PER_ROUND)
      throw this.stopped(
        `asked for more than ${MAX_TOOL_CALLS_PER_ROUND.toLocaleString('en-US')} tool calls in one round, the most PromptForge accepts`,
      );
  }

  /** Counts `count` more characters of names or arguments (before they are kept). */
  addChars(count: number): void {
    this.chars += count;
    if (this.chars > MAX_TOOL_CALL_CHARS_PER_ROUND)
      throw this.stopped(
        `sent more than ${formatChars(MAX_TOOL_CALL_CHARS_PER_ROUND)} of tool-call names and arguments in one round, the most PromptForge accepts`,
      );
  }

  /** Records the id of a call about to be yielded; throws when the round already had it. */
  claimId(id: string): void {
    if (this.ids.has(id))
      throw this.stopped(
        `gave two tool calls of one round the same id (${describeProviderText(JSON.stringify(id), this.endpoint.secrets)}), so their results could not be told apart`,
      );
    this.ids.add(id);
  }

  private stopped(what: string) {
    return providerError(
      this.endpoint,
      'stream',
      `${this.endpoint.label} ${what}; the stream was stopped and the round's output is incomplete`,
    );
  }
}

/** Joins a base URL (with or without a trailing slash) and a path. */
export function joinUrl(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

/**
 * Adds `providerOptions` to a request body. Top-level keys win, except that two plain objects
 * under the same key are merged one level deep (so `{ generationConfig: { topK: 3 } }` keeps the
 * adapter's temperature).
 */
export function mergeProviderOptions(body: JsonObject, providerOptions: JsonObject | undefined): JsonObject {
  if (!providerOptions) return body;
  const merged: JsonObject = { ...body };
  for (const [key, value] of Object.entries(providerOptions)) {
    const existing = merged[key];
    merged[key] = isPlainObject(existing) && isPlainObject(value) ? { ...existing, ...value } : value;
  }
  return merged;
}

/**
 * A replayed call's arguments as an object, for providers whose wire format wants an object
 * (Anthropic `input`, Gemini `args`). Invalid JSON replays as `{}`: the driver already reported
 * it to the script, and the raw text is in the transcript.
 */
export function argumentsObject(call: ToolCallRecord): JsonObject {
  if (call.arguments) return call.arguments;
  try {
    const parsed = JSON.parse(call.rawArguments) as JsonValue;
    return isPlainObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/** A `raw` event for an SSE line or payload that could not be parsed, secrets scrubbed. */
export function malformedEvent(data: string, secrets: readonly (string | undefined)[]): ModelEvent {
  return { type: 'raw', note: 'malformed SSE', data: redactSecrets(data, secrets) };
}

/**
 * Whether a wire value carries something: a non-empty string, array or object (numbers and
 * booleans are flags and counts, not content). Adapters use it to tell content-bearing events,
 * which restart the stream's inactivity timer, from keep-alives.
 */
export function carriesSomething(value: JsonValue | undefined): boolean {
  if (typeof value === 'string') return value !== '';
  if (Array.isArray(value)) return value.length > 0;
  return isPlainObject(value) && Object.keys(value).length > 0;
}

/** Reads a finite non-negative number, or 0. */
export function tokenCount(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;
}

/** One turn of a provider's history: its role and its list of blocks (Gemini parts, Anthropic content blocks). */
export interface HistoryTurn {
  role: string;
  blocks: JsonObject[];
}

/**
 * A history the APIs accept: a turn with no blocks is left out (both reject empty text, and an
 * empty turn is what a round leaves behind when it returned no text and no call, e.g. when the
 * whole output budget went to thinking), and turns of the same role in a row, which leaving one
 * out creates, become one turn with their blocks in order (both want the roles to alternate).
 */
export function alternatingHistory(turns: readonly HistoryTurn[]): HistoryTurn[] {
  const out: HistoryTurn[] = [];
  for (const turn of turns) {
    if (turn.blocks.length === 0) continue;
    const last = out.at(-1);
    if (last?.role === turn.role) last.blocks = [...last.blocks, ...turn.blocks];
    else out.push({ role: turn.role, blocks: [...turn.blocks] });
  }
  return out;
}
