import { isPlainObject, type JsonObject, type JsonValue } from '../../../common/json.js';
import type { ModelEvent, ToolCallRecord } from './model-provider.js';
import { redactSecrets } from '../secrets/redact.js';

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

/** Reads a finite non-negative number, or 0. */
export function tokenCount(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;
}
