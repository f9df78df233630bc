import type { ErrorObject } from 'ajv';
import type { JsonSchema, JsonValue } from '../../../common/json.js';
import { isPlainObject } from '../../../common/json.js';
import { pointerSegments } from '../../../common/json-pointer.js';
import type { CatalogProblem, LocatedYaml } from './catalog-problem.js';

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
  const list = relevant.length > 0 ? relevant : errors;
  const problems: CatalogProblem[] = [];
  const seen = new Set<string>();
  for (const error of list) {
    const instance = pointerSegments(error.instancePath);
    const params = error.params as Record<string, unknown>;
    let segments: (string | number)[] = [...base, ...instance];
    let message: string;
    let fix: string;
    let preferKey = false;
    const field = instance.length > 0 ? `"${instance.join('/')}"` : '';
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
        const suggestion = instance.length === 0 ? closest(extra, knownFields) : undefined;
        message = `${subject} has unknown field "${extra}"`;
        fix = suggestion ? `Rename "${extra}" to "${suggestion}", or remove it.` : `Remove "${extra}".`;
        break;
      }
      case 'type':
        message = `${subject}: ${field || 'the entry'} must be ${String(params['type']).replaceAll(',', ' or ')}`;
        fix = `Change ${field || 'the entry'} to ${String(params['type']).replaceAll(',', ' or ')}.`;
        break;
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

/** The known name nearest to `name` (a few edits away at most), for "did you mean" fixes. */
export function closest(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = name.length >= 6 ? 4 : 3;
  for (const candidate of known) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    let previous = row[0] ?? 0;
    row[0] = i;
    for (let j = 1; j <= b.length; j += 1) {
      const current = row[j] ?? 0;
      row[j] = Math.min(current + 1, (row[j - 1] ?? 0) + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length] ?? 0;
}
