/** An MCP server's `elicitation/create`: checked, turned into a form or a URL for the person, and the answer checked. */
import { ElicitRequestParamsSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ElicitationField } from '../../../common/mcp-person.js';
import { isLoopbackUrl } from '../net/loopback.js';
import { jsonBoundsProblem } from './mcp-bounds.js';
import { cleanServerText, hasUnsafeCharacter } from './mcp-text.js';
import { MAX_FIELD_NAME_CHARS } from './mcp-form.js';

/** Most fields one form may have. */
const MAX_ELICITATION_FIELDS = 32;
/** Most options one choice field may have. */
const MAX_ELICITATION_OPTIONS = 200;
/** Deepest and largest request accepted (a form is flat: four levels are enough). */
const MAX_REQUEST_DEPTH = 8;
const MAX_REQUEST_VALUES = 8_000;
/** Longest message, title and description kept, in characters. */
const MAX_MESSAGE_CHARS = 4000;
const MAX_TITLE_CHARS = 200;
const MAX_DESCRIPTION_CHARS = 1000;
/** Longest field name and URL accepted. */
const MAX_NAME_CHARS = MAX_FIELD_NAME_CHARS;
const MAX_URL_CHARS = 4096;

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
