// A server's sign-in, sizes and a prompt's arguments in words (renderer/src/mcp/mcp-lists.ts), run in Node.
import { describe, expect, it } from 'vitest';
import type { McpLoginStateView, McpPromptEntry } from '../../../../common/mcp-person.js';
import { loginSummary, promptArguments, promptSchema, sizeText } from '../../../../renderer/src/mcp/mcp-lists.js';

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
