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

/**
 * Parses JSON that a person typed (edited tool arguments, a fork's edited calls), refusing what
 * `JSON.parse` would silently change, so that what runs is what they wrote: a key given twice in
 * one object (only the last would count), an integer that a JSON number cannot hold exactly
 * (9007199254740993 would become ...992), and a number too large for one (1e400 would become
 * Infinity, sent as null). The problem names the key or number and the fix.
 */
export function parseExactJson(text: string): { ok: true; value: JsonValue } | { ok: false; problem: string } {
  let value: JsonValue;
  try {
    value = JSON.parse(text) as JsonValue;
  } catch (error) {
    return { ok: false, problem: `not JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  const problem = inexactJsonProblem(text);
  return problem === undefined ? { ok: true, value } : { ok: false, problem };
}

/** The first duplicate key or inexact number in `text`, which `JSON.parse` has accepted. */
function inexactJsonProblem(text: string): string | undefined {
  // One entry per open object (its keys so far) or array (null); `key` is true where a string
  // would be an object's key.
  const open: (Set<string> | null)[] = [];
  let key = false;
  for (let i = 0; i < text.length;) {
    const c = text[i]!;
    if (c === '"') {
      let end = i + 1;
      while (text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      const token = text.slice(i, end + 1);
      const keys = open[open.length - 1];
      if (key && keys) {
        const name = JSON.parse(token) as string;
        if (keys.has(name))
          return `the key ${token} appears twice in one object, and only its last value would be used; keep one`;
        keys.add(name);
        key = false;
      }
      i = end + 1;
    } else if (c === '{' || c === '[') {
      open.push(c === '{' ? new Set() : null);
      key = c === '{';
      i += 1;
    } else if (c === '}' || c === ']') {
      open.pop();
      key = false;
      i += 1;
    } else if (c === ',') {
      key = open[open.length - 1] instanceof Set;
      i += 1;
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      let end = i + 1;
      while (end < text.length && /[0-9eE+.-]/.test(text[end]!)) end += 1;
      const token = text.slice(i, end);
      const number = Number(token);
      if (!Number.isFinite(number))
        return `the number ${token} is too large for a JSON number (it would be sent as null); write it as a string`;
      if (/^-?\d+$/.test(token) && BigInt(token) !== BigInt(number))
        return `the number ${token} cannot be held exactly by a JSON number (it would become ${number}); write it as a string`;
      i = end;
    } else {
      i += 1;
    }
  }
  return undefined;
}
