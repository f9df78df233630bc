import type { JsonSchema, JsonValue } from '../../../common/json.js';
import { escapePointerSegment } from '../../../common/json-pointer.js';
import { cleanServerText, hasUnsafeCharacter } from './mcp-text.js';

/** Longest description or title kept inside a tool's schema, in characters (before its label). */
export const MAX_MCP_SCHEMA_TEXT_CHARS = 1024;
/** Longest string kept inside a `default` or `examples` value of a tool's schema, in characters. */
const MAX_MCP_SCHEMA_VALUE_CHARS = 1024;
/** Largest schema handed on, as JSON text of the cleaned and labelled schema, in characters. */
export const MAX_MCP_SCHEMA_CHARS = 64 * 1024;

/** Keywords whose value is one subschema (`items` may also be an array of them: draft-07). */
const ONE_SUBSCHEMA = new Set([
  'not',
  'if',
  'then',
  'else',
  'contains',
  'items',
  'additionalItems',
  'additionalProperties',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
]);
/** Keywords whose value is an array of subschemas. */
const SUBSCHEMA_LIST = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items']);
/** Keywords whose value maps names to subschemas (`dependencies` may map a name to a list of names). */
const SUBSCHEMA_MAP = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
  'dependencies',
]);
/** Annotations of text: cleaned, redacted, cut and labelled. */
const TEXT_ANNOTATIONS = new Set(['title', 'description', '$comment']);
/** Annotations holding instance values: every string and key in them cleaned and cut, never labelled. */
const VALUE_ANNOTATIONS = new Set(['default', 'examples']);

export interface SchemaCleaning {
  /** Put before each description and title, e.g. `[from MCP server "x", untrusted]`. */
  label: string;
  /** Put before the root's description (added when there is none): says the whole schema is the server's. */
  rootLabel: string;
  /** Replaces the secrets the host knows in a text with `[redacted]`. */
  redact: (text: string) => string;
}

/** Why a string of the schema cannot be handed on. */
class Refused extends Error {}

/**
 * A server's JSON Schema as the model (and the validator) will see it, or why it is refused.
 *
 * Only annotations are rewritten: each `description`, `title` and `$comment` loses its control,
 * invisible and direction characters ({@link hasUnsafeCharacter}), has the host's secrets
 * redacted, is cut to {@link MAX_MCP_SCHEMA_TEXT_CHARS} and starts with `label`;
 * every string and key inside `default` and `examples` is cleaned, redacted and cut likewise. The
 * root's description starts with `rootLabel`, so the enum values, names and examples the model
 * reads are marked as the server's too. Ajv reads none of these keywords (no `useDefaults`), so
 * what the tool accepts is unchanged.
 *
 * Every other string (`enum`, `const`, `pattern`, `format`, `required`, `$ref`, unknown keywords)
 * and every name (properties, `$defs`, any key) decides what the tool accepts: cleaning it would
 * make the model send, and the validator accept, a value the server does not expect. Such a
 * string that holds one of those characters, or a secret the host knows, refuses the whole
 * schema. So does a cleaned schema over {@link MAX_MCP_SCHEMA_CHARS} characters of JSON.
 *
 * The schema must already be within the depth and size bounds (see jsonBoundsProblem): this walk
 * recurses once per level.
 */
export function cleanServerSchema(
  schema: JsonSchema,
  cleaning: SchemaCleaning,
): { schema: JsonSchema; problem?: undefined } | { problem: string; schema?: undefined } {
  let cleaned: JsonSchema;
  try {
    cleaned = cleanSchemaNode(schema, '', cleaning, true) as JsonSchema;
  } catch (error) {
    if (error instanceof Refused) return { problem: error.message };
    throw error;
  }
  if (cleaned['description'] === undefined) cleaned = { description: cleaning.rootLabel, ...cleaned };
  const size = JSON.stringify(cleaned).length;
  if (size > MAX_MCP_SCHEMA_CHARS)
    return { problem: `is ${size} characters of JSON, more than the ${MAX_MCP_SCHEMA_CHARS} handed to a model` };
  return { schema: cleaned };
}

function cleanSchemaNode(node: JsonValue, pointer: string, cleaning: SchemaCleaning, root = false): JsonValue {
  if (node === null || typeof node !== 'object' || Array.isArray(node)) {
    // Not a schema (ajv refuses it, unless a boolean): checked like any value that decides acceptance.
    checkValue(node, pointer, cleaning);
    return node;
  }
  const out: Record<string, JsonValue> = {};
  for (const [key, value] of Object.entries(node)) {
    const at = `${pointer}/${escapePointerSegment(key)}`;
    checkName(key, at, 'a keyword', cleaning);
    let cleaned: JsonValue;
    if (TEXT_ANNOTATIONS.has(key) && typeof value === 'string') {
      const text = cleaning.redact(cleanServerText(value, MAX_MCP_SCHEMA_TEXT_CHARS));
      const label = root && key === 'description' ? cleaning.rootLabel : cleaning.label;
      cleaned = text ? `${label} ${text}` : label;
    } else if (VALUE_ANNOTATIONS.has(key)) cleaned = cleanValue(value, cleaning);
    else if (SUBSCHEMA_LIST.has(key) && Array.isArray(value))
      cleaned = value.map((item, index) => cleanSchemaNode(item, `${at}/${index}`, cleaning));
    else if (ONE_SUBSCHEMA.has(key)) cleaned = cleanSchemaNode(value, at, cleaning);
    else if (SUBSCHEMA_MAP.has(key) && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const map: Record<string, JsonValue> = {};
      for (const [name, sub] of Object.entries(value)) {
        const subAt = `${at}/${escapePointerSegment(name)}`;
        checkName(name, subAt, key === 'properties' ? 'a property name' : 'a name', cleaning);
        define(
          map,
          name,
          key === 'dependencies' && Array.isArray(sub)
            ? checked(sub, subAt, cleaning)
            : cleanSchemaNode(sub, subAt, cleaning),
        );
      }
      cleaned = map;
    } else cleaned = checked(value, at, cleaning);
    define(out, key, cleaned);
  }
  return out;
}

/** An instance value in an annotation: every string and key cleaned, redacted and cut. */
function cleanValue(value: JsonValue, cleaning: SchemaCleaning): JsonValue {
  if (typeof value === 'string') return cleaning.redact(cleanServerText(value, MAX_MCP_SCHEMA_VALUE_CHARS));
  if (Array.isArray(value)) return value.map((item) => cleanValue(item, cleaning));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, JsonValue> = {};
  for (const [key, item] of Object.entries(value))
    define(out, cleaning.redact(cleanServerText(key, MAX_MCP_SCHEMA_VALUE_CHARS)), cleanValue(item, cleaning));
  return out;
}

/** `value`, after {@link checkValue}. */
function checked(value: JsonValue, pointer: string, cleaning: SchemaCleaning): JsonValue {
  checkValue(value, pointer, cleaning);
  return value;
}

/** Refuses a value that decides acceptance when a string or key in it cannot be shown as it is. */
function checkValue(value: JsonValue, pointer: string, cleaning: SchemaCleaning): void {
  if (typeof value === 'string') return checkText(value, pointer, 'a value', cleaning);
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    value.forEach((item, index) => checkValue(item, `${pointer}/${index}`, cleaning));
    return;
  }
  for (const [key, item] of Object.entries(value)) {
    const at = `${pointer}/${escapePointerSegment(key)}`;
    checkName(key, at, 'a name', cleaning);
    checkValue(item, at, cleaning);
  }
}

function checkName(name: string, pointer: string, what: string, cleaning: SchemaCleaning): void {
  checkText(name, pointer, what, cleaning);
}

function checkText(text: string, pointer: string, what: string, cleaning: SchemaCleaning): void {
  const where = pointer.length > 200 ? `${pointer.slice(0, 200)}…` : pointer || '/';
  if (hasUnsafeCharacter(text))
    throw new Refused(
      `has a control, invisible or direction character in ${what} at ${where}; it decides what the tool accepts, so it cannot be cleaned`,
    );
  if (cleaning.redact(text) !== text)
    throw new Refused(`holds a secret of the workspace in ${what} at ${where}; it cannot be shown to the model`);
}

/** Sets `key` as an own property, so a `__proto__` key stays a plain key. */
function define(target: Record<string, JsonValue>, key: string, value: JsonValue): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
