/**
 * A tiny JSON Schema (draft 2020-12 subset) check for the edit-then-approve editor: type,
 * properties, required, additionalProperties, enum, const, string length and pattern, number
 * range, array items. The core validates the edited arguments again with the full validator
 * (ajv, a Node-side dependency kept out of the renderer bundle); this only gives live feedback.
 */
import { linearRegExp } from '../../../common/linear-regexp.js';

/** One problem: where (a JSON pointer) and what. */
export interface SchemaProblem {
  path: string;
  message: string;
}

type Schema = Record<string, unknown>;

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function matchesType(value: unknown, type: string): boolean {
  const actual = typeOf(value);
  if (type === 'number') return actual === 'number' || actual === 'integer';
  return actual === type;
}

function check(value: unknown, schema: unknown, path: string, problems: SchemaProblem[]): void {
  if (schema === false) {
    problems.push({ path, message: 'no value is allowed here' });
    return;
  }
  if (schema === undefined || schema === null || typeof schema !== 'object') return;
  const s = schema as Schema;
  const where = path === '' ? 'the arguments' : path;
  const types = typeof s['type'] === 'string' ? [s['type']] : Array.isArray(s['type']) ? (s['type'] as string[]) : [];
  if (types.length > 0 && !types.some((type) => matchesType(value, type))) {
    problems.push({ path, message: `${where} must be ${types.join(' or ')}, not ${typeOf(value)}` });
    return;
  }
  if (Array.isArray(s['enum']) && !s['enum'].some((option) => JSON.stringify(option) === JSON.stringify(value))) {
    problems.push({ path, message: `${where} must be one of ${s['enum'].map((o) => JSON.stringify(o)).join(', ')}` });
  }
  if ('const' in s && JSON.stringify(s['const']) !== JSON.stringify(value)) {
    problems.push({ path, message: `${where} must be ${JSON.stringify(s['const'])}` });
  }
  if (typeof value === 'string') {
    const length = [...value].length;
    if (typeof s['minLength'] === 'number' && length < s['minLength'])
      problems.push({ path, message: `${where} must have at least ${s['minLength']} character(s)` });
    if (typeof s['maxLength'] === 'number' && length > s['maxLength'])
      problems.push({ path, message: `${where} must have at most ${s['maxLength']} character(s)` });
    if (typeof s['pattern'] === 'string') {
      // RE2 (linear time), as in the core: a model-chosen value can never freeze the page.
      try {
        if (!linearRegExp(s['pattern']).test(value))
          problems.push({ path, message: `${where} must match the pattern ${s['pattern']}` });
      } catch {
        // A pattern RE2 cannot run is reported by the core's catalog loader.
      }
    }
  }
  if (typeof value === 'number') {
    if (typeof s['minimum'] === 'number' && value < s['minimum'])
      problems.push({ path, message: `${where} must be ≥ ${s['minimum']}` });
    if (typeof s['maximum'] === 'number' && value > s['maximum'])
      problems.push({ path, message: `${where} must be ≤ ${s['maximum']}` });
  }
  if (Array.isArray(value) && s['items'] !== undefined) {
    value.forEach((item, index) => check(item, s['items'], `${path}/${index}`, problems));
  }
  if (typeOf(value) === 'object') {
    const record = value as Record<string, unknown>;
    const properties = (s['properties'] ?? {}) as Record<string, unknown>;
    for (const name of Array.isArray(s['required']) ? (s['required'] as string[]) : []) {
      if (!Object.hasOwn(record, name)) problems.push({ path, message: `${where} must have the field "${name}"` });
    }
    for (const [name, item] of Object.entries(record)) {
      const child = `${path}/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`;
      if (Object.hasOwn(properties, name)) check(item, properties[name], child, problems);
      else if (s['additionalProperties'] === false) problems.push({ path: child, message: `unknown field "${name}"` });
      else if (typeof s['additionalProperties'] === 'object') check(item, s['additionalProperties'], child, problems);
    }
  }
}

/** Every problem of `value` against `schema` (empty when it fits). */
export function checkAgainstSchema(value: unknown, schema: unknown): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  check(value, schema, '', problems);
  return problems;
}

/** Parses the editor's text as the arguments object: a problem list, or the value. */
export function parseArguments(
  text: string,
  schema: unknown,
): { ok: true; value: Record<string, unknown> } | { ok: false; problems: string[] } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, problems: [`not JSON: ${(error as Error).message}`] };
  }
  if (typeOf(value) !== 'object') return { ok: false, problems: ['the arguments must be a JSON object'] };
  const problems = checkAgainstSchema(value, schema);
  if (problems.length > 0) return { ok: false, problems: problems.map((p) => p.message) };
  return { ok: true, value: value as Record<string, unknown> };
}
