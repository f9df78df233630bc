import type { ErrorObject } from 'ajv';
import type { JsonSchema, JsonValue } from '../../../common/json.js';
import { isPlainObject } from '../../../common/json.js';
import { pointerSegments } from '../../../common/json-pointer.js';
import type { CatalogProblem, LocatedYaml } from './catalog-problem.js';
import { guessName, nearestName, shownName } from '../did-you-mean.js';

/** Where an entry's schema is: its file's whole JSON Schema and the pointer to the entry's part. */
export interface EntrySchema {
  root: JsonSchema;
  /** e.g. `/$defs/tool`; `` for the whole file. */
  pointer: string;
}

/**
 * Turns ajv errors about the entry at `base` into located problems with fixes. `schema` is the
 * part of its file's JSON Schema the entry was validated against, `knownFields` the entry's
 * field names (for "did you mean" fixes). Fix hints come from the schema itself: a missing field's
 * allowed values or example, a pattern's `title`.
 */
export function ajvProblems(
  located: LocatedYaml,
  base: (string | number)[],
  errors: readonly ErrorObject[],
  subject: string,
  schema: EntrySchema,
  knownFields: readonly string[],
): CatalogProblem[] {
  const relevant = errors.filter(
    (error) => error.keyword !== 'if' && error.keyword !== 'anyOf' && error.keyword !== 'allOf',
  );
  const list = oneProblemPerUnion(relevant.length > 0 ? relevant : errors);
  const problems: CatalogProblem[] = [];
  const seen = new Set<string>();
  for (const error of list) {
    const instance = pointerSegments(error.instancePath);
    const params = error.params as Record<string, unknown>;
    let segments: (string | number)[] = [...base, ...instance];
    let message: string;
    let fix: string;
    let preferKey = false;
    const field = instance.length > 0 ? itemWords(instance) : '';
    switch (error.keyword) {
      case 'required': {
        const missing = String(params['missingProperty']);
        const hint = valueHint(fieldSchema(schema, [...instance, missing]));
        message = `${subject}${field ? ` ${field}` : ''} is missing required field "${missing}"`;
        fix = `Add "${missing}:"${hint}.`;
        break;
      }
      case 'additionalProperties': {
        const extra = String(params['additionalProperty']);
        segments = [...segments, extra];
        preferKey = true;
        const here =
          isPlainObject(error.parentSchema) && isPlainObject(error.parentSchema['properties'])
            ? Object.keys(error.parentSchema['properties'])
            : [];
        const typo = guessName(
          extra,
          instance.length === 0 ? knownFields : here,
          'key',
          `Remove "${shownName(extra)}".`,
        );
        message = `${subject} has unknown field "${shownName(extra)}"${typo.meant}`;
        fix = typo.fix;
        break;
      }
      case 'type': {
        const wanted = typeWords(String(params['type']));
        message = `${subject}: ${field || 'the entry'} must be ${wanted}`;
        const key = instance.at(-1);
        fix = typeFix(
          field || 'the entry',
          String(params['type']),
          error.data,
          key !== undefined && /^\d+$/.test(key) ? undefined : key,
        );
        break;
      }
      case 'minItems':
        message =
          params['limit'] === 1
            ? `${subject}: ${field} is an empty list`
            : `${subject}: ${field} needs at least ${String(params['limit'])} items`;
        fix = `Add ${params['limit'] === 1 ? 'an item' : 'items'}${valueHint(fieldSchema(schema, instance.map(String))) || ''}.`;
        break;
      case 'minLength':
        message =
          params['limit'] === 1
            ? `${subject}: ${itemWords(instance)} is empty`
            : `${subject}: ${itemWords(instance)} is shorter than ${String(params['limit'])} characters`;
        fix = params['limit'] === 1 ? `Write something there, or remove it.` : `Make it longer.`;
        break;
      case 'minimum':
      case 'exclusiveMinimum':
      case 'maximum':
      case 'exclusiveMaximum': {
        const bound = String(params['limit']);
        const words = {
          minimum: 'at least',
          exclusiveMinimum: 'more than',
          maximum: 'at most',
          exclusiveMaximum: 'less than',
        };
        message = `${subject}: ${field} must be ${words[error.keyword]} ${bound}`;
        fix = `Use a number ${words[error.keyword]} ${bound}, or remove ${field} for the default.`;
        break;
      }
      case 'enum': {
        const allowed = (params['allowedValues'] as unknown[]).map((value) => String(value));
        message = `${subject}: ${field} must be one of ${allowed.join(', ')}`;
        fix = `Use one of ${allowed.map((value) => `"${value}"`).join(', ')}.`;
        break;
      }
      case 'propertyNames':
        message = `${subject}: ${field || 'a key'} has an invalid name`;
        fix = 'Rename the key.';
        break;
      case 'pattern': {
        if (error.propertyName !== undefined) {
          segments = [...segments, error.propertyName];
          preferKey = true;
          message = `${subject}: key "${error.propertyName}" must match ${String(params['pattern'])}`;
        } else {
          message = `${subject}: ${field} must match pattern ${String(params['pattern'])}`;
        }
        // The catalog validator is verbose: parentSchema is the schema that holds the pattern.
        const title = isPlainObject(error.parentSchema) ? error.parentSchema['title'] : undefined;
        fix = typeof title === 'string' ? `Use ${title}.` : 'Change the value to the required form.';
        break;
      }
      default:
        message = `${subject}: ${field || 'the entry'} ${error.message ?? 'is invalid'}`;
        fix = `Correct ${field || 'the entry'} (${error.message ?? 'see the schema in schemas/'}).`;
    }
    const key = `${segments.join('/')}|${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push(located.problem('error', segments, message, fix, { preferKey }));
  }
  return problems;
}

/** JSON Schema types in the words of the catalogs' docs and form. */
const TYPE_WORDS: Readonly<Record<string, string>> = {
  array: 'a list',
  object: 'a mapping (name: value lines)',
  string: 'text',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  null: 'empty',
};

/** `text, a list or a mapping` for `string,array,object`. */
function typeWords(types: string): string {
  const words = types.split(',').map((type) => TYPE_WORDS[type] ?? type);
  return words.length < 2 ? (words[0] ?? types) : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
}

/** `"command" item 2` for `command/1`, the field itself for a field. */
function itemWords(instance: readonly string[]): string {
  const last = instance.at(-1);
  if (last !== undefined && /^\d+$/.test(last) && instance.length > 1)
    return `"${instance.slice(0, -1).join('/')}" item ${Number(last) + 1}`;
  return `"${instance.join('/')}"`;
}

/**
 * The one fix for a value of the wrong type: a text where a list is wanted is shown as that list
 * (`command: node x.mjs` → `command: [node, x.mjs]`), a number written as text without its quotes.
 */
function typeFix(field: string, type: string, data: unknown, key: string | undefined): string {
  const written = (value: string) => (key === undefined ? value : `${key}: ${value}`);
  if (type === 'array' && typeof data === 'string' && data.trim() !== '')
    return `Write it as a list, one item per word: ${written(`[${data.trim().split(/\s+/).join(', ')}]`)}`;
  if (
    (type === 'integer' || type === 'number') &&
    typeof data === 'string' &&
    data.trim() !== '' &&
    Number.isFinite(Number(data))
  )
    return `Write the number without quotes: ${written(String(Number(data)))}`;
  if (type === 'string' && (typeof data === 'number' || typeof data === 'boolean'))
    return `Put it in quotes: ${written(`"${String(data)}"`)}`;
  return `Change ${field} to ${typeWords(type)}.`;
}

/**
 * One problem per value a union (`anyOf`) rejects, not one per branch. The branch whose type the
 * value has is the one the person meant (`command: []` is a list, so "must be text" from the
 * other branch is noise): a `type` error at a value that also has other errors (at it, or inside
 * it) is dropped. A value no branch's type fits gets one "must be X or Y". Told by the data, not
 * by the schema's paths, so branches behind a `$ref` count too.
 */
function oneProblemPerUnion(errors: readonly ErrorObject[]): ErrorObject[] {
  const inside = (path: string, at: string) => path === at || path.startsWith(`${at}/`);
  const typeErrors = new Map<string, ErrorObject[]>();
  for (const error of errors)
    if (error.keyword === 'type')
      typeErrors.set(error.instancePath, [...(typeErrors.get(error.instancePath) ?? []), error]);
  const dropped = new Set<ErrorObject>();
  const merged: ErrorObject[] = [];
  for (const [at, types] of typeErrors) {
    const others = errors.some((error) => error.keyword !== 'type' && inside(error.instancePath, at));
    const deeperTypes = errors.some((error) => error.keyword === 'type' && error.instancePath.startsWith(`${at}/`));
    if (others || deeperTypes) {
      for (const error of types) dropped.add(error);
      continue;
    }
    if (types.length > 1) {
      for (const error of types) dropped.add(error);
      const names = types.flatMap((error) => String((error.params as { type: unknown }).type).split(','));
      merged.push({ ...types[0]!, params: { type: [...new Set(names)].join(',') } });
    }
  }
  // A typo of a field (`secrt`) is said once, as the unknown field, not also as the missing one.
  const typos = new Map<string, Set<string>>();
  for (const error of errors) {
    if (error.keyword !== 'additionalProperties') continue;
    const extra = String((error.params as { additionalProperty: unknown }).additionalProperty);
    const known =
      isPlainObject(error.parentSchema) && isPlainObject(error.parentSchema['properties'])
        ? Object.keys(error.parentSchema['properties'])
        : [];
    const meant = nearestName(extra, known);
    if (meant) typos.set(error.instancePath, new Set([...(typos.get(error.instancePath) ?? []), meant]));
  }
  for (const error of errors)
    if (
      error.keyword === 'required' &&
      typos.get(error.instancePath)?.has(String((error.params as { missingProperty: unknown }).missingProperty))
    )
      dropped.add(error);
  return [...errors.filter((error) => !dropped.has(error)), ...merged];
}

/** ` with one of a, b, c` or `, e.g. X` for a field, from its schema's enum or first example. */
function valueHint(schema: JsonSchema | undefined): string {
  const allowed = schema?.['enum'];
  if (Array.isArray(allowed)) return ` with one of ${allowed.map((value) => String(value)).join(', ')}`;
  const examples = schema?.['examples'];
  if (Array.isArray(examples) && examples[0] !== undefined) return `, e.g. ${flowYaml(examples[0])}`;
  return '';
}

/** A value as it would be written inline in YAML: `[node, tools/search.js]`. */
function flowYaml(value: JsonValue): string {
  return Array.isArray(value) ? `[${value.map(flowYaml).join(', ')}]` : String(value);
}

/**
 * The schema of the field at `segments` inside the entry, following `properties`,
 * `additionalProperties`, `anyOf` branches and local `$ref`s; undefined when there is none.
 */
function fieldSchema(schema: EntrySchema, segments: readonly string[]): JsonSchema | undefined {
  const resolve = (node: JsonValue | undefined): JsonSchema | undefined => {
    if (!isPlainObject(node)) return undefined;
    const ref = node['$ref'];
    if (typeof ref !== 'string' || !ref.startsWith('#')) return node;
    let target: JsonValue | undefined = schema.root;
    for (const part of pointerSegments(ref.slice(1))) target = isPlainObject(target) ? target[part] : undefined;
    const { $ref: _ref, ...annotations } = node;
    const resolved = resolve(target);
    return resolved && { ...resolved, ...annotations };
  };
  const step = (node: JsonSchema, segment: string): JsonSchema | undefined => {
    const properties = node['properties'];
    const direct = isPlainObject(properties) ? resolve(properties[segment]) : undefined;
    if (direct) return direct;
    const additional = resolve(node['additionalProperties']);
    if (additional) return additional;
    const branches = node['anyOf'];
    if (!Array.isArray(branches)) return undefined;
    for (const branch of branches) {
      const resolved = resolve(branch);
      const found = resolved && step(resolved, segment);
      if (found) return found;
    }
    return undefined;
  };
  let node: JsonSchema | undefined = resolve({ $ref: `#${schema.pointer}` });
  for (const segment of segments) node = node && step(node, segment);
  return node;
}
