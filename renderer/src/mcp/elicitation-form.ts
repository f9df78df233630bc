/**
 * An elicitation's fields as the studio's schema form (tool-trial/SchemaForm.tsx) reads them, and
 * the pure text of the servers' questions: who asks, during which call. No React, no IPC.
 */
import {
  MAX_SAMPLING_TOKENS,
  type ElicitationField,
  type PendingElicitation,
  type PendingSampling,
} from '../../../common/mcp-person.js';
import type { FormSchema } from '../tool-trial/schema-form.js';

/** A field's help text: its title and description (the server's words), as one line. */
function help(field: ElicitationField): string | undefined {
  const text = [field.title, field.description].filter((part) => part !== undefined && part !== '').join(' — ');
  return text === '' ? undefined : text;
}

/** One field as a schema node: flat kinds only, the options' titles shown beside their values. */
function fieldSchema(field: ElicitationField): FormSchema {
  const common = { ...(help(field) !== undefined && { description: help(field) }) };
  switch (field.kind) {
    case 'string':
      return {
        type: 'string',
        ...common,
        ...(field.format !== undefined && { format: field.format }),
        ...(field.minLength !== undefined && { minLength: field.minLength }),
        ...(field.maxLength !== undefined && { maxLength: field.maxLength }),
        ...(field.default !== undefined && { default: field.default }),
      };
    case 'number':
      return {
        type: field.integer ? 'integer' : 'number',
        ...common,
        ...(field.minimum !== undefined && { minimum: field.minimum }),
        ...(field.maximum !== undefined && { maximum: field.maximum }),
        ...(field.default !== undefined && { default: field.default }),
      };
    case 'boolean':
      return { type: 'boolean', ...common, ...(field.default !== undefined && { default: field.default }) };
    case 'choice':
      return {
        enum: field.options.map((option) => option.value),
        enumNames: field.options.map((option) => option.title),
        ...common,
        ...(field.default !== undefined && { default: field.default }),
      };
    case 'choices':
      return {
        type: 'array',
        items: {
          enum: field.options.map((option) => option.value),
          enumNames: field.options.map((option) => option.title),
        },
        ...common,
        ...(field.minItems !== undefined && { minItems: field.minItems }),
        ...(field.maxItems !== undefined && { maxItems: field.maxItems }),
        ...(field.default !== undefined && { default: field.default }),
      };
  }
}

/** The form of an elicitation as an object schema: one property per field, its required ones required. */
export function elicitationSchema(fields: readonly ElicitationField[]): FormSchema {
  return {
    type: 'object',
    properties: Object.fromEntries(fields.map((field) => [field.name, fieldSchema(field)])),
    required: fields.filter((field) => field.required).map((field) => field.name),
  };
}

/** What a form starts with: each field's default, where the server gave one. */
export function initialAnswer(fields: readonly ElicitationField[]): Record<string, unknown> {
  return Object.fromEntries(
    fields.flatMap((field) => (field.default === undefined ? [] : [[field.name, field.default] as const])),
  );
}

/** "during call-3 (ask.elicit)", or '' when the question came with no call of the run. */
export function duringCall(question: Pick<PendingElicitation | PendingSampling, 'callId' | 'alias'>): string {
  if (question.callId === undefined) return '';
  return `during ${question.callId}${question.alias !== undefined ? ` (${question.alias})` : ''}`;
}

/** What the header says waits, e.g. "1 question from an MCP server", or '' when none does. */
export function questionsText(count: number): string {
  if (count === 0) return '';
  return `${count} question${count === 1 ? '' : 's'} from MCP servers`;
}

/** The edited limit as typed, or why it cannot go. */
export function editedTokens(text: string): { ok: true; value: number } | { ok: false; problem: string } {
  const value = Number(text.trim());
  if (text.trim() === '' || !Number.isInteger(value) || value < 1)
    return { ok: false, problem: 'The token limit is a whole number of at least 1.' };
  if (value > MAX_SAMPLING_TOKENS)
    return { ok: false, problem: `The token limit is at most ${MAX_SAMPLING_TOKENS.toLocaleString('en')}.` };
  return { ok: true, value };
}
