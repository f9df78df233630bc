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

/**
 * How deeply `value` nests objects and arrays (a scalar is 0). Iterative, and it stops counting as
 * soon as the depth passes `limit`, so any input is safe to measure.
 */
export function nestingDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, above] = stack.pop()!;
    if (item === null || typeof item !== 'object') continue;
    const depth = above + 1;
    if (depth > deepest) {
      deepest = depth;
      if (deepest > limit) return deepest;
    }
    for (const child of Array.isArray(item) ? item : Object.values(item))
      if (child !== null && typeof child === 'object') stack.push([child, depth]);
  }
  return deepest;
}

/**
 * How many strings `value` holds, object keys included, counting no further than `limit + 1`.
 * Iterative; call it on values whose depth is already bounded.
 */
export function countStrings(value: unknown, limit: number): number {
  let count = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && count <= limit) {
    const item = stack.pop();
    if (typeof item === 'string') count += 1;
    if (item === null || typeof item !== 'object') continue;
    if (!Array.isArray(item)) count += Object.keys(item).length;
    for (const child of Array.isArray(item) ? item : Object.values(item))
      if (typeof child === 'string' || (child !== null && typeof child === 'object')) stack.push(child);
  }
  return count;
}

/**
 * Whether `value` has an own key `__proto__` at any depth (JSON.parse makes one from `"__proto__"`).
 * A schema parser copying such a value drops that key, so it is refused before parsing instead of
 * lost. Iterative; call it on values whose depth is already bounded.
 */
export function hasProtoKey(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (item === null || typeof item !== 'object') continue;
    if (!Array.isArray(item) && Object.hasOwn(item, '__proto__')) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item))
      if (child !== null && typeof child === 'object') stack.push(child);
  }
  return false;
}
