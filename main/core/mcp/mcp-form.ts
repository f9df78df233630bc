/** An elicitation form's answer, checked field by field against the form, with each left-out field's default. */
import { isPlainObject } from '../../../common/json.js';
import type { ElicitationAnswer, ElicitationField, PendingElicitation } from '../../../common/mcp-person.js';

/** Longest string the person may answer in one field. */
const MAX_ELICITATION_ANSWER_CHARS = 64 * 1024;
/** Longest field name accepted. */
export const MAX_FIELD_NAME_CHARS = 64;

/** Whether `value` is a date (YYYY-MM-DD) or a date-time (RFC 3339) that exists. */
function validDate(value: string, withTime: boolean): boolean {
  const pattern = withTime ? /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/ : /^\d{4}-\d{2}-\d{2}$/;
  if (!pattern.test(value)) return false;
  // The calendar day must exist: Date would roll 2025-02-30 over into March.
  const day = value.slice(0, 10);
  const parsed = new Date(`${day}T00:00:00Z`);
  return (
    !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === day && !Number.isNaN(Date.parse(value))
  );
}

/** One problem of an answer: the field it is about (none for the answer as a whole) and what is wrong. */
export interface FormProblem {
  field?: string;
  message: string;
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
  const checked = checkForm(fields, content);
  return checked.problems.length > 0
    ? { ok: false, problems: checked.problems.map((problem) => problem.message) }
    : { ok: true, content: checked.content };
}

/** The problems of an answer to a form, each with the field it is about (the studio places them at the field). */
export function formProblems(
  fields: readonly ElicitationField[],
  content: Record<string, unknown> | undefined,
): FormProblem[] {
  return checkForm(fields, content).problems;
}

/** The answer's values with the defaults filled in, and its problems. */
function checkForm(
  fields: readonly ElicitationField[],
  content: Record<string, unknown> | undefined,
): { content: Record<string, string | number | boolean | string[]>; problems: FormProblem[] } {
  const given = isPlainObject(content) ? content : {};
  const found: FormProblem[] = [];
  const out: Record<string, string | number | boolean | string[]> = {};
  const known = new Set(fields.map((field) => field.name));
  for (const name of Object.keys(given))
    if (!known.has(name))
      found.push({ message: `"${name.slice(0, MAX_FIELD_NAME_CHARS)}" is not a field of this form` });
  for (const field of fields) {
    const value = Object.hasOwn(given, field.name) ? given[field.name] : undefined;
    const at = `field "${field.name}"`;
    const problem = (message: string) => found.push({ field: field.name, message });
    if (value === undefined || value === '') {
      if (field.default !== undefined) out[field.name] = field.default;
      else if (field.required) problem(`${at} is required`);
      continue;
    }
    switch (field.kind) {
      case 'string': {
        if (typeof value !== 'string') {
          problem(`${at} must be text`);
          break;
        }
        if (value.length > MAX_ELICITATION_ANSWER_CHARS)
          problem(`${at} is longer than ${MAX_ELICITATION_ANSWER_CHARS} characters`);
        else if (field.minLength !== undefined && value.length < field.minLength)
          problem(`${at} needs at least ${field.minLength} characters`);
        else if (field.maxLength !== undefined && value.length > field.maxLength)
          problem(`${at} takes at most ${field.maxLength} characters`);
        else if (field.format === 'email' && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value))
          problem(`${at} must be an email address`);
        else if (field.format === 'uri' && !URL.canParse(value)) problem(`${at} must be a URI`);
        else if (field.format === 'date' && !validDate(value, false)) problem(`${at} must be a date (YYYY-MM-DD)`);
        else if (field.format === 'date-time' && !validDate(value, true))
          problem(`${at} must be a date and time (e.g. 2025-01-31T12:00:00Z)`);
        else out[field.name] = value;
        break;
      }
      case 'number': {
        if (typeof value !== 'number' || !Number.isFinite(value)) problem(`${at} must be a number`);
        else if (field.integer && !Number.isInteger(value)) problem(`${at} must be a whole number`);
        else if (field.minimum !== undefined && value < field.minimum)
          problem(`${at} must be at least ${field.minimum}`);
        else if (field.maximum !== undefined && value > field.maximum)
          problem(`${at} must be at most ${field.maximum}`);
        else out[field.name] = value;
        break;
      }
      case 'boolean':
        if (typeof value !== 'boolean') problem(`${at} must be true or false`);
        else out[field.name] = value;
        break;
      case 'choice':
        if (typeof value !== 'string' || !field.options.some((option) => option.value === value))
          problem(`${at} must be one of the offered options`);
        else out[field.name] = value;
        break;
      case 'choices': {
        if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
          problem(`${at} must be a list of options`);
          break;
        }
        const list = value as string[];
        if (list.some((item) => !field.options.some((option) => option.value === item)))
          problem(`${at} holds an option that is not offered`);
        else if (new Set(list).size !== list.length) problem(`${at} holds an option twice`);
        else if (field.minItems !== undefined && list.length < field.minItems)
          problem(`${at} needs at least ${field.minItems} options`);
        else if (field.maxItems !== undefined && list.length > field.maxItems)
          problem(`${at} takes at most ${field.maxItems} options`);
        else out[field.name] = list;
        break;
      }
    }
  }
  return { content: out, problems: found };
}

/** The problems of the person's answer to `pending`, or undefined when it can be sent. */
export function answerProblem(pending: PendingElicitation, answer: ElicitationAnswer): string | undefined {
  if (answer.action !== 'accept' || pending.mode === 'url') return undefined;
  const checked = formContent(pending.fields ?? [], answer.content);
  return checked.ok ? undefined : checked.problems.join('; ');
}
