/** Pure text and shapes for the explorer's MCP sections: a sign-in in words, sizes, a prompt's arguments as a form. */
import type { McpLoginStateView, McpPromptEntry } from '../../../common/mcp-person.js';
import type { FormSchema } from '../tool-trial/schema-form.js';

function when(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

/** A sign-in in one sentence: who, with which issuer, until when, which scopes. Never a token. */
export function loginSummary(login: McpLoginStateView): string {
  switch (login.state) {
    case 'signed-out':
      return 'Not signed in.';
    case 'unavailable':
      return `The sign-in cannot be read: ${login.error ?? 'the keychain is not available'}.`;
    case 'expired':
    case 'signed-in': {
      const parts = [
        login.state === 'expired' ? 'Sign-in expired' : 'Signed in',
        login.account !== undefined ? ` as ${login.account}` : '',
        login.issuer !== undefined ? ` with ${login.issuer}` : '',
        login.expiresAt !== undefined
          ? login.state === 'expired'
            ? ` (at ${when(login.expiresAt)}${login.refreshable ? '; it is renewed at the next use' : ''})`
            : `, until ${when(login.expiresAt)}`
          : '',
        '.',
        login.scopes !== undefined && login.scopes.length > 0 ? ` Scopes: ${login.scopes.join(', ')}.` : '',
      ];
      return parts.join('');
    }
  }
}

/** A size in bytes, in words a person reads at a glance. */
export function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} byte${bytes === 1 ? '' : 's'}`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]} (${bytes.toLocaleString('en')} bytes)`;
}

/** A prompt's arguments as an object schema of strings, for the schema form. */
export function promptSchema(prompt: McpPromptEntry): FormSchema {
  return {
    type: 'object',
    properties: Object.fromEntries(
      prompt.arguments.map((argument) => [
        argument.name,
        { type: 'string', ...(argument.description !== undefined && { description: argument.description }) },
      ]),
    ),
    required: prompt.arguments.filter((argument) => argument.required).map((argument) => argument.name),
  };
}

/** The form's values as the prompt's arguments (strings), and the required ones left empty. */
export function promptArguments(
  prompt: McpPromptEntry,
  values: Record<string, unknown>,
): { args: Record<string, string>; missing: string[] } {
  const args: Record<string, string> = {};
  for (const [name, value] of Object.entries(values)) if (typeof value === 'string' && value !== '') args[name] = value;
  const missing = prompt.arguments
    .filter((argument) => argument.required && args[argument.name] === undefined)
    .map((argument) => argument.name);
  return { args, missing };
}
