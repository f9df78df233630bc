// The pure helpers of the studio's MCP views (renderer/src/mcp), run in Node: a server's form as
// the schema form reads it, the edited token limit, a sign-in in words, sizes, a prompt's arguments.
import { describe, expect, it } from 'vitest';
import type { ElicitationField, McpLoginStateView, McpPromptEntry } from '../../../common/mcp-person.js';
import {
  duringCall,
  editedTokens,
  elicitationSchema,
  initialAnswer,
  questionsText,
} from '../../../renderer/src/mcp/elicitation-form.js';
import { loginSummary, promptArguments, promptSchema, sizeText } from '../../../renderer/src/mcp/mcp-lists.js';
import { fieldPointers, unsupportedPart } from '../../../renderer/src/tool-trial/schema-form.js';
import { ConversationBuilder } from '../../../renderer/src/run/conversation-builder.js';

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

describe('a server’s sign-in, resources and prompts in words', () => {
  const base = { server: 'web', resource: 'https://mcp.example.com/mcp' };
  it('says who is signed in, with whom, until when and which scopes, and never more', () => {
    const signedIn: McpLoginStateView = {
      ...base,
      state: 'signed-in',
      account: 'ada@example.org',
      issuer: 'https://auth.example.com',
      expiresAt: '2030-01-01T00:00:00.000Z',
      scopes: ['files:read', 'files:write'],
    };
    expect(loginSummary(signedIn)).toMatch(
      /^Signed in as ada@example\.org with https:\/\/auth\.example\.com, until .+\. Scopes: files:read, files:write\.$/,
    );
    expect(loginSummary({ ...base, state: 'signed-out' })).toBe('Not signed in.');
    expect(loginSummary({ ...base, state: 'unavailable', error: 'no keyring' })).toBe(
      'The sign-in cannot be read: no keyring.',
    );
    expect(loginSummary({ ...base, state: 'expired', expiresAt: 'x', refreshable: true })).toBe(
      'Sign-in expired (at x; it is renewed at the next use).',
    );
    expect(loginSummary({ ...base, state: 'signed-in' })).toBe('Signed in.');
  });

  it('writes sizes a person reads at a glance, with the exact count', () => {
    expect(sizeText(1)).toBe('1 byte');
    expect(sizeText(7)).toBe('7 bytes');
    expect(sizeText(2048)).toBe('2.0 KiB (2,048 bytes)');
    expect(sizeText(1024 ** 3)).toBe('1.0 GiB (1,073,741,824 bytes)');
    expect(sizeText(5 * 1024 ** 5)).toBe('5120 TiB (5,629,499,534,213,120 bytes)');
  });

  it('asks for a prompt’s arguments as strings, and says which required ones are empty', () => {
    const prompt: McpPromptEntry = {
      name: 'greet',
      arguments: [
        { name: 'city', description: 'Name of the city', required: true },
        { name: 'state', required: false },
      ],
    };
    expect(promptSchema(prompt)).toEqual({
      type: 'object',
      properties: { city: { type: 'string', description: 'Name of the city' }, state: { type: 'string' } },
      required: ['city'],
    });
    expect(promptArguments(prompt, {})).toEqual({ args: {}, missing: ['city'] });
    expect(promptArguments(prompt, { city: '', state: 'TX', other: 3 })).toEqual({
      args: { state: 'TX' },
      missing: ['city'],
    });
    expect(promptArguments(prompt, { city: 'Lyon' })).toEqual({ args: { city: 'Lyon' }, missing: [] });
  });
});

describe('an MCP server’s question in the conversation', () => {
  it('becomes a row of its own, in its place among the run’s events', () => {
    const builder = new ConversationBuilder('r1');
    const base = { runId: 'r1', t: '2026-12-04T10:00:00.000Z' };
    builder.apply({ ...base, seq: 1, type: 'log', text: 'before' });
    builder.apply({
      ...base,
      seq: 2,
      type: 'mcp-elicitation',
      server: 'ask',
      callId: 'call-1',
      alias: 'ask.elicit',
      mode: 'form',
      message: 'Who are you?',
      action: 'accept',
      content: { name: 'Ada' },
      source: 'studio',
    });
    builder.apply({
      ...base,
      seq: 3,
      type: 'mcp-sampling',
      server: 'ask',
      decision: 'deny',
      reason: 'no',
      source: 'studio',
    });
    const items = builder.snapshot().items;
    expect(items.map((item) => item.kind)).toEqual(['log', 'mcp-question', 'mcp-question']);
    expect(items[1]).toMatchObject({ key: 'e2', event: { type: 'mcp-elicitation', action: 'accept' } });
    expect(items[2]).toMatchObject({ key: 'e3', event: { type: 'mcp-sampling', decision: 'deny' } });
  });
});
