/** A JSON value as it crosses process and VM boundaries. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object, for tool arguments and structured outputs. */
export type JsonObject = { [key: string]: JsonValue };

/** A JSON Schema document (draft 2020-12 or draft-07), kept opaque outside the validators. */
export type JsonSchema = { [key: string]: JsonValue };

/**
 * True for an object that is not an array or null. A JSON value (or parsed JSON) narrows to a
 * JSON object; anything else to a record whose values are still to be checked.
 */
export function isPlainObject(value: JsonValue | undefined): value is JsonObject;
export function isPlainObject(value: unknown): value is Record<string, unknown>;
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
