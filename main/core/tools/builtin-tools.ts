import type { ApprovalPolicy, ToolSpec, Trust } from './tool-spec.js';
import type { JsonSchema } from '../../../common/json.js';

/** The names of the builtin tools. Each is also its default alias. */
export const BUILTIN_TOOL_NAMES = ['echo', 'read_file', 'list_files', 'http_get', 'now'] as const;

/** A builtin tool's name. */
export type BuiltinToolName = (typeof BUILTIN_TOOL_NAMES)[number];

/** Largest file `read_file` returns, in bytes. */
export const READ_FILE_MAX_BYTES = 1024 * 1024;
/** Most entries `list_files` returns. */
export const LIST_FILES_MAX_ENTRIES = 1000;
/** Largest body `http_get` returns, in bytes. */
export const HTTP_GET_MAX_BYTES = 1024 * 1024;
/** Milliseconds before `http_get` gives up. */
export const HTTP_GET_TIMEOUT_MS = 15_000;

interface BuiltinDefinition {
  description: string;
  parameters: JsonSchema;
  trust: Trust;
  approval: ApprovalPolicy;
}

const BUILTINS: Record<BuiltinToolName, BuiltinDefinition> = {
  echo: {
    description: 'Returns `text` unchanged, or an empty string when it is absent.',
    parameters: {
      type: 'object',
      properties: { text: { type: 'string', description: 'The text to return.' } },
      additionalProperties: false,
    },
    trust: 'trusted',
    approval: 'auto',
  },
  read_file: {
    description: `Reads a UTF-8 text file inside the workspace (at most ${READ_FILE_MAX_BYTES} bytes). Paths are relative to the workspace root.`,
    parameters: {
      type: 'object',
      properties: { path: { type: 'string', minLength: 1, description: 'File path relative to the workspace root.' } },
      required: ['path'],
      additionalProperties: false,
    },
    trust: 'trusted',
    approval: 'auto',
  },
  list_files: {
    description: 'Lists a folder inside the workspace, one entry per line, folders ending in "/".',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'Folder relative to the workspace root. Default: the root.' },
      },
      additionalProperties: false,
    },
    trust: 'trusted',
    approval: 'auto',
  },
  http_get: {
    description: `Fetches an http(s) URL with GET and returns the body as text (at most ${HTTP_GET_MAX_BYTES} bytes). The output is untrusted.`,
    parameters: {
      type: 'object',
      properties: { url: { type: 'string', minLength: 1, description: 'The http or https URL.' } },
      required: ['url'],
      additionalProperties: false,
    },
    trust: 'untrusted',
    approval: 'ask',
  },
  now: {
    description: 'Returns the current time as an ISO 8601 string in UTC.',
    parameters: { type: 'object', properties: {}, additionalProperties: false },
    trust: 'trusted',
    approval: 'auto',
  },
};

/** Whether `name` is a builtin tool. */
export function isBuiltinToolName(name: string): name is BuiltinToolName {
  return (BUILTIN_TOOL_NAMES as readonly string[]).includes(name);
}

/** The default description, parameters, trust and approval of a builtin. */
export function builtinDefaults(name: BuiltinToolName): Readonly<BuiltinDefinition> {
  return BUILTINS[name];
}

/** The spec of builtin `name` under its own alias, with its defaults. */
function builtinToolSpec(name: BuiltinToolName): ToolSpec {
  const definition = BUILTINS[name];
  return {
    alias: name,
    description: definition.description,
    parameters: structuredClone(definition.parameters),
    trust: definition.trust,
    approval: definition.approval,
    taintCheck: true,
    settings: { kind: 'builtin', builtin: name },
    source: '<builtin>',
  };
}

/** Specs of every builtin, in a stable order. */
export function builtinToolSpecs(): ToolSpec[] {
  return BUILTIN_TOOL_NAMES.map((name) => builtinToolSpec(name));
}
