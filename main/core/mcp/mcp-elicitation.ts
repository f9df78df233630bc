/** An MCP server's `elicitation/create`: checked, turned into a form or a URL for the person, and the answer checked. */
import { ElicitRequestParamsSchema } from '@modelcontextprotocol/sdk/types.js';
import { isPlainObject } from '../../../common/json.js';
import type { ElicitationAnswer, ElicitationField, PendingElicitation } from '../../../common/mcp-person.js';
import { isLoopbackUrl } from '../net/loopback.js';
import { jsonBoundsProblem } from './mcp-bounds.js';
import { cleanServerText, hasUnsafeCharacter } from './mcp-text.js';

/** Most fields one form may have. */
export const MAX_ELICITATION_FIELDS = 32;
/** Most options one choice field may have. */
export const MAX_ELICITATION_OPTIONS = 200;
/** Deepest and largest request accepted (a form is flat: four levels are enough). */
const MAX_REQUEST_DEPTH = 8;
const MAX_REQUEST_VALUES = 8_000;
/** Longest message, title and description kept, in characters. */
const MAX_MESSAGE_CHARS = 4000;
const MAX_TITLE_CHARS = 200;
const MAX_DESCRIPTION_CHARS = 1000;
/** Longest field name and URL accepted. */
const MAX_NAME_CHARS = 64;
const MAX_URL_CHARS = 4096;
/** Longest string the person may answer in one field. */
export const MAX_ELICITATION_ANSWER_CHARS = 64 * 1024;

/** A checked request: what the person is shown (without the ids the host adds). */
export type ElicitationRequest =
  | { mode: 'form'; message: string; fields: ElicitationField[] }
  | { mode: 'url'; message: string; url: string; urlHost: string; elicitationId: string };

/** The request, or why the host refuses it (a sentence starting with "the ..."). */
export type CheckedElicitation = { ok: true; request: ElicitationRequest } | { ok: false; problem: string };

const text = (value: string | undefined, max: number) =>
  value === undefined ? undefined : cleanServerText(value, max) || undefined;

/**
 * Why `url` may not be shown as a place to go: only https, or http to this machine, with no
 * credentials in it and no control characters. `javascript:`, `file:`, `data:` and every other
 * scheme are refused.
 */
export function elicitationUrlProblem(url: string): string | undefined {
  if (url.length > MAX_URL_CHARS) return `the URL is longer than ${MAX_URL_CHARS} characters`;
  if (hasUnsafeCharacter(url) || /\s/.test(url)) return 'the URL holds spaces or control characters';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'the URL cannot be parsed';
  }
  if (parsed.protocol === 'http:' && !isLoopbackUrl(url))
    return 'the URL is plain http to another machine (only https, or http on this machine)';
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    return `the URL's scheme "${parsed.protocol.slice(0, 20)}" is not https (javascript:, file:, data: and the rest are refused)`;
  if (parsed.username !== '' || parsed.password !== '') return 'the URL carries a user name or password';
  return undefined;
}

/** Checks the server's request (as it came over the wire) and builds what the person is shown. */
export function checkElicitation(params: unknown): CheckedElicitation {
  const refuse = (problem: string): CheckedElicitation => ({ ok: false, problem });
  const tooBig = jsonBoundsProblem(params, MAX_REQUEST_DEPTH, MAX_REQUEST_VALUES);
  if (tooBig) return refuse(`the request is refused: ${tooBig}`);
  const parsed = ElicitRequestParamsSchema.safeParse(params);
  if (!parsed.success) return refuse('the request is not a valid elicitation');
  const request = parsed.data;
  const message = cleanServerText(request.message, MAX_MESSAGE_CHARS);
  if (request.mode === 'url') {
    const problem = elicitationUrlProblem(request.url);
    if (problem) return refuse(problem);
    const url = new URL(request.url);
    return {
      ok: true,
      request: {
        mode: 'url',
        message,
        url: url.href,
        urlHost: url.host,
        elicitationId: request.elicitationId.slice(0, 200),
      },
    };
  }
  const schema = request.requestedSchema;
  const entries = Object.entries(schema.properties);
  if (entries.length > MAX_ELICITATION_FIELDS)
    return refuse(`the form has ${entries.length} fields, more than the ${MAX_ELICITATION_FIELDS} accepted`);
  const required = new Set(schema.required ?? []);
  const fields: ElicitationField[] = [];
  for (const [name, property] of entries) {
    if (name.length === 0 || name.length > MAX_NAME_CHARS || hasUnsafeCharacter(name))
      return refuse(`a field name is empty, longer than ${MAX_NAME_CHARS} characters, or holds control characters`);
    const common = {
      name,
      required: required.has(name),
      ...(property.title !== undefined && { title: text(property.title, MAX_TITLE_CHARS) }),
      ...(property.description !== undefined && { description: text(property.description, MAX_DESCRIPTION_CHARS) }),
    };
    const p = property as Record<string, unknown>;
    const options = (list: { value: string; title: string }[]) =>
      list.map((option) => ({
        value: option.value,
        title: text(option.title, MAX_TITLE_CHARS) ?? option.value,
      }));
    if (p['type'] === 'array') {
      const items = p['items'] as { enum?: string[]; anyOf?: { const: string; title: string }[] };
      const list =
        items.enum?.map((value) => ({ value, title: value })) ??
        items.anyOf?.map((o) => ({ value: o.const, title: o.title })) ??
        [];
      if (list.length === 0 || list.length > MAX_ELICITATION_OPTIONS)
        return refuse(`field "${name}" offers ${list.length} options (1 to ${MAX_ELICITATION_OPTIONS} accepted)`);
      fields.push({
        kind: 'choices',
        ...common,
        options: options(list),
        ...(typeof p['minItems'] === 'number' && { minItems: p['minItems'] }),
        ...(typeof p['maxItems'] === 'number' && { maxItems: p['maxItems'] }),
        ...(Array.isArray(p['default']) && { default: p['default'] as string[] }),
      });
    } else if (Array.isArray(p['enum']) || Array.isArray(p['oneOf'])) {
      const names = Array.isArray(p['enumNames']) ? (p['enumNames'] as string[]) : undefined;
      const list = Array.isArray(p['enum'])
        ? (p['enum'] as string[]).map((value, index) => ({ value, title: names?.[index] ?? value }))
        : (p['oneOf'] as { const: string; title: string }[]).map((o) => ({ value: o.const, title: o.title }));
      if (list.length === 0 || list.length > MAX_ELICITATION_OPTIONS)
        return refuse(`field "${name}" offers ${list.length} options (1 to ${MAX_ELICITATION_OPTIONS} accepted)`);
      fields.push({
        kind: 'choice',
        ...common,
        options: options(list),
        ...(typeof p['default'] === 'string' && { default: p['default'] }),
      });
    } else if (p['type'] === 'boolean') {
      fields.push({ kind: 'boolean', ...common, ...(typeof p['default'] === 'boolean' && { default: p['default'] }) });
    } else if (p['type'] === 'number' || p['type'] === 'integer') {
      fields.push({
        kind: 'number',
        ...common,
        integer: p['type'] === 'integer',
        ...(typeof p['minimum'] === 'number' && { minimum: p['minimum'] }),
        ...(typeof p['maximum'] === 'number' && { maximum: p['maximum'] }),
        ...(typeof p['default'] === 'number' && { default: p['default'] }),
      });
    } else {
      const whole = (value: unknown) =>
        typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
      fields.push({
        kind: 'string',
        ...common,
        ...(whole(p['minLength']) !== undefined && { minLength: whole(p['minLength']) }),
        ...(whole(p['maxLength']) !== undefined && { maxLength: whole(p['maxLength']) }),
        ...(typeof p['format'] === 'string' && { format: p['format'] as 'email' | 'uri' | 'date' | 'date-time' }),
        ...(typeof p['default'] === 'string' && { default: p['default'] }),
      });
    }
  }
  for (const name of required)
    if (!Object.hasOwn(schema.properties, name))
      return refuse(`the form requires "${name.slice(0, MAX_NAME_CHARS)}", which it does not define`);
  return { ok: true, request: { mode: 'form', message, fields } };
}

/** Whether `value` is a date (YYYY-MM-DD) or a date-time (RFC 3339) that exists. */
function validDate(value: string, withTime: boolean): boolean {
  const pattern = withTime ? /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/ : /^\d{4}-\d{2}-\d{2}$/;
  return pattern.test(value) && !Number.isNaN(Date.parse(value));
}

/**
 * The content to send back for an accepted form: the person's values, checked field by field,
 * with each field they left out given its default. Undefined content is an empty answer. Returns
 * the problems (each naming the field) instead when a value does not fit.
 */
export function formContent(
  fields: readonly ElicitationField[],
  content: Record<string, unknown> | undefined,
): { ok: true; content: Record<string, string | number | boolean | string[]> } | { ok: false; problems: string[] } {
  const given = isPlainObject(content) ? content : {};
  const problems: string[] = [];
  const out: Record<string, string | number | boolean | string[]> = {};
  const known = new Set(fields.map((field) => field.name));
  for (const name of Object.keys(given))
    if (!known.has(name)) problems.push(`"${name.slice(0, MAX_NAME_CHARS)}" is not a field of this form`);
  for (const field of fields) {
    const value = Object.hasOwn(given, field.name) ? given[field.name] : undefined;
    const at = `field "${field.name}"`;
    if (value === undefined || value === '') {
      if (field.default !== undefined) out[field.name] = field.default;
      else if (field.required) problems.push(`${at} is required`);
      continue;
    }
    switch (field.kind) {
      case 'string': {
        if (typeof value !== 'string') {
          problems.push(`${at} must be text`);
          break;
        }
        if (value.length > MAX_ELICITATION_ANSWER_CHARS)
          problems.push(`${at} is longer than ${MAX_ELICITATION_ANSWER_CHARS} characters`);
        else if (field.minLength !== undefined && value.length < field.minLength)
          problems.push(`${at} needs at least ${field.minLength} characters`);
        else if (field.maxLength !== undefined && value.length > field.maxLength)
          problems.push(`${at} takes at most ${field.maxLength} characters`);
        else if (field.format === 'email' && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value))
          problems.push(`${at} must be an email address`);
        else if (field.format === 'uri' && !URL.canParse(value)) problems.push(`${at} must be a URI`);
        else if (field.format === 'date' && !validDate(value, false))
          problems.push(`${at} must be a date (YYYY-MM-DD)`);
        else if (field.format === 'date-time' && !validDate(value, true))
          problems.push(`${at} must be a date and time (e.g. 2025-01-31T12:00:00Z)`);
        else out[field.name] = value;
        break;
      }
      case 'number': {
        if (typeof value !== 'number' || !Number.isFinite(value)) problems.push(`${at} must be a number`);
        else if (field.integer && !Number.isInteger(value)) problems.push(`${at} must be a whole number`);
        else if (field.minimum !== undefined && value < field.minimum)
          problems.push(`${at} must be at least ${field.minimum}`);
        else if (field.maximum !== undefined && value > field.maximum)
          problems.push(`${at} must be at most ${field.maximum}`);
        else out[field.name] = value;
        break;
      }
      case 'boolean':
        if (typeof value !== 'boolean') problems.push(`${at} must be true or false`);
        else out[field.name] = value;
        break;
      case 'choice':
        if (typeof value !== 'string' || !field.options.some((option) => option.value === value))
          problems.push(`${at} must be one of the offered options`);
        else out[field.name] = value;
        break;
      case 'choices': {
        if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
          problems.push(`${at} must be a list of options`);
          break;
        }
        const list = value as string[];
        if (list.some((item) => !field.options.some((option) => option.value === item)))
          problems.push(`${at} holds an option that is not offered`);
        else if (new Set(list).size !== list.length) problems.push(`${at} holds an option twice`);
        else if (field.minItems !== undefined && list.length < field.minItems)
          problems.push(`${at} needs at least ${field.minItems} options`);
        else if (field.maxItems !== undefined && list.length > field.maxItems)
          problems.push(`${at} takes at most ${field.maxItems} options`);
        else out[field.name] = list;
        break;
      }
    }
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, content: out };
}

/** The problems of the person's answer to `pending`, or undefined when it can be sent. */
export function answerProblem(pending: PendingElicitation, answer: ElicitationAnswer): string | undefined {
  if (answer.action !== 'accept' || pending.mode === 'url') return undefined;
  const checked = formContent(pending.fields ?? [], answer.content);
  return checked.ok ? undefined : checked.problems.join('; ');
}
