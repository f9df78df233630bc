// An MCP server's form as the schema form reads it, and the edited token limit
// (renderer/src/mcp/elicitation-form.ts), run in Node.
import { describe, expect, it } from 'vitest';
import type { ElicitationField } from '../../../../common/mcp-person.js';
import {
  duringCall,
  editedTokens,
  elicitationSchema,
  initialAnswer,
  questionsText,
} from '../../../../renderer/src/mcp/elicitation-form.js';
import { fieldPointers, unsupportedPart } from '../../../../renderer/src/tool-trial/schema-form.js';

const FIELDS: ElicitationField[] = [
  { kind: 'string', name: 'name', title: 'Name', description: 'Your name', required: true, maxLength: 40 },
  { kind: 'number', name: 'age', required: false, integer: true, minimum: 0, maximum: 150, default: 30 },
  { kind: 'boolean', name: 'agree', required: false, default: false },
  {
    kind: 'choice',
    name: 'hero',
    required: false,
    options: [
      { value: 'h1', title: 'Superman' },
      { value: 'h2', title: 'Wonder Woman' },
    ],
    default: 'h2',
  },
  {
    kind: 'choices',
    name: 'fish',
    required: false,
    options: [{ value: 'f1', title: 'Tuna' }],
    minItems: 1,
    maxItems: 1,
    default: ['f1'],
  },
  { kind: 'string', name: 'a/b~c', required: false, format: 'date' },
];

describe('an elicitation as the schema form', () => {
  it('is an object schema the form can lay out whole, its required fields required, titles beside values', () => {
    const schema = elicitationSchema(FIELDS);
    expect(unsupportedPart(schema)).toBeNull();
    expect(schema.required).toEqual(['name']);
    expect(schema.properties?.['name']).toEqual({ type: 'string', description: 'Name — Your name', maxLength: 40 });
    expect(schema.properties?.['age']).toEqual({ type: 'integer', minimum: 0, maximum: 150, default: 30 });
    expect(schema.properties?.['hero']).toEqual({
      enum: ['h1', 'h2'],
      enumNames: ['Superman', 'Wonder Woman'],
      default: 'h2',
    });
    expect(schema.properties?.['fish']).toMatchObject({ type: 'array', items: { enum: ['f1'] }, minItems: 1 });
    // Each field is placed by its pointer, a name with / and ~ escaped as the core's problems are.
    expect([...fieldPointers(schema, initialAnswer(FIELDS))]).toContain('/a~1b~0c');
  });

  it('starts from the server’s defaults, and only those', () => {
    expect(initialAnswer(FIELDS)).toEqual({ age: 30, agree: false, hero: 'h2', fish: ['f1'] });
    expect(initialAnswer([])).toEqual({});
  });

  it('names the call a question came with, and how many wait', () => {
    expect(duringCall({ callId: 'call-3', alias: 'ask.elicit' })).toBe('during call-3 (ask.elicit)');
    expect(duringCall({ callId: 'read-1' })).toBe('during read-1');
    expect(duringCall({})).toBe('');
    expect([0, 1, 2].map(questionsText)).toEqual(['', '1 question from MCP servers', '2 questions from MCP servers']);
  });

  it('takes an edited token limit from 1 to the host’s 4,096, a whole number', () => {
    expect(editedTokens('20')).toEqual({ ok: true, value: 20 });
    expect(editedTokens(' 4096 ')).toEqual({ ok: true, value: 4096 });
    for (const text of ['', '0', '-1', '2.5', 'ten', '1e3x'])
      expect(editedTokens(text)).toEqual({ ok: false, problem: 'The token limit is a whole number of at least 1.' });
    expect(editedTokens('4097')).toEqual({ ok: false, problem: 'The token limit is at most 4,096.' });
  });
});
