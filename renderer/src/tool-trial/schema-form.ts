/**
 * What the trial form can generate from a tool's JSON Schema, and the values it starts from.
 * Validation is never done here: the core's ajv answers through `args:check`.
 *
 * @module
 */

import { escapePointerSegment } from '../../../common/json-pointer.js';

/** A JSON Schema node as the form reads it. */
export interface FormSchema {
  type?: unknown;
  properties?: Record<string, FormSchema>;
  required?: unknown;
  items?: unknown;
  enum?: unknown;
  const?: unknown;
  description?: unknown;
  title?: unknown;
  default?: unknown;
  [keyword: string]: unknown;
}

/** Keywords that combine or reference schemas: the form cannot lay them out as fields. */
const COMBINING = [
  '$ref',
  '$dynamicRef',
  'anyOf',
  'oneOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  'patternProperties',
  'prefixItems',
  'dependentSchemas',
];

/** The kind of control a schema node gets. */
export type FieldKind = 'string' | 'number' | 'integer' | 'boolean' | 'enum' | 'object' | 'array';

function isSchema(value: unknown): value is FormSchema {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The control for `schema`, or a reason the form cannot show it. */
export function fieldKind(schema: unknown): FieldKind | { unsupported: string } {
  if (!isSchema(schema)) return { unsupported: 'it is not a schema object' };
  const combining = COMBINING.find((keyword) => keyword in schema);
  if (combining) return { unsupported: `it uses "${combining}"` };
  if (Array.isArray(schema.enum) || 'const' in schema) {
    const values = Array.isArray(schema.enum) ? schema.enum : [schema.const];
    if (values.every((value) => value === null || ['string', 'number', 'boolean'].includes(typeof value)))
      return 'enum';
    return { unsupported: 'its enum holds objects or arrays' };
  }
  const type = schema.type ?? (schema.properties ? 'object' : schema.items ? 'array' : undefined);
  if (Array.isArray(type)) return { unsupported: `its type is a list (${type.map(String).join(', ')})` };
  switch (type) {
    case 'string':
    case 'number':
    case 'integer':
    case 'boolean':
      return type as FieldKind;
    case 'object':
      if (isSchema(schema['additionalProperties']) && Object.keys(schema.properties ?? {}).length === 0)
        return { unsupported: 'it is a map of free-form keys' };
      return 'object';
    case 'array':
      if (!isSchema(schema.items)) return { unsupported: 'its items have no single schema' };
      return 'array';
    case undefined:
      return { unsupported: 'it has no type' };
    default:
      return { unsupported: `its type "${String(type)}" has no control` };
  }
}

/**
 * The first part of `schema` (the tool's parameters) the form cannot render, as a sentence
 * naming where it is; `null` when the whole schema has a form.
 */
export function unsupportedPart(schema: unknown, pointer = ''): string | null {
  const kind = fieldKind(schema);
  const where = pointer === '' ? 'The arguments schema' : `The schema at ${pointer}`;
  if (typeof kind === 'object') return `${where} cannot be shown as a form: ${kind.unsupported}.`;
  if (pointer === '' && kind !== 'object') return `${where} is not an object schema.`;
  const node = schema as FormSchema;
  if (kind === 'object')
    for (const [name, child] of Object.entries(node.properties ?? {})) {
      const reason = unsupportedPart(child, `${pointer}/${name}`);
      if (reason) return reason;
    }
  if (kind === 'array') return unsupportedPart(node.items, `${pointer}/0`);
  return null;
}

/** The names the schema requires. */
export function requiredNames(schema: FormSchema): string[] {
  return Array.isArray(schema.required)
    ? schema.required.filter((name): name is string => typeof name === 'string')
    : [];
}

/** The enum choices of a schema (or its one `const`). */
export function enumValues(schema: FormSchema): unknown[] {
  return Array.isArray(schema.enum) ? schema.enum : 'const' in schema ? [schema.const] : [];
}

/** What a new array item starts as. */
export function emptyValue(schema: unknown): unknown {
  const kind = fieldKind(schema);
  if (isSchema(schema) && 'default' in schema) return schema.default;
  switch (kind) {
    case 'string':
      return '';
    case 'number':
    case 'integer':
      return 0;
    case 'boolean':
      return false;
    case 'object':
      return {};
    case 'array':
      return [];
    case 'enum':
      return enumValues(schema as FormSchema)[0] ?? null;
    default:
      return null;
  }
}

/** The arguments a trial starts with: the schema's defaults, where it gives them. */
export function initialArguments(schema: unknown): Record<string, unknown> {
  if (!isSchema(schema)) return {};
  const result: Record<string, unknown> = {};
  for (const [name, child] of Object.entries(schema.properties ?? {}))
    if (isSchema(child) && 'default' in child) result[name] = child.default;
  return result;
}

/**
 * The JSON pointers of the fields the form shows for `value` under `schema` (as SchemaForm lays
 * them out: every property of an object, every item an array holds), so that each of the core's
 * problems is placed by its pointer alone. The arguments themselves (``) are not a field.
 */
export function fieldPointers(schema: unknown, value: unknown, pointer = ''): Set<string> {
  const pointers = new Set<string>();
  const visit = (node: unknown, at: unknown, where: string): void => {
    if (where !== '') pointers.add(where);
    const kind = fieldKind(node);
    if (kind === 'object') {
      const values = at !== null && typeof at === 'object' && !Array.isArray(at) ? (at as Record<string, unknown>) : {};
      for (const [name, child] of Object.entries((node as FormSchema).properties ?? {}))
        visit(child, values[name], `${where}/${escapePointerSegment(name)}`);
    } else if (kind === 'array' && Array.isArray(at)) {
      at.forEach((item, index) => visit((node as FormSchema).items, item, `${where}/${index}`));
    }
  };
  visit(schema, value, pointer);
  return pointers;
}
