import type { CatalogFile } from '../../../common/studio-schemas.js';
import modelsSchema from '../../../schemas/models.schema.json';
import toolsSchema from '../../../schemas/tools.schema.json';

/**
 * The fields the catalog form shows, read from the published JSON Schemas in `schemas/` (which
 * are generated from the core's one definition of the files): the choices of every select
 * (providers, kinds, policies, builtins) and every help text come from there, so the form never
 * keeps a list of its own.
 *
 * @module
 */

/** How a field is edited. */
type FieldControl =
  | 'text'
  | 'select'
  | 'integer'
  | 'number'
  | 'boolean'
  /** A list of strings (argv, env allow-list, include/exclude). */
  | 'list'
  /** A list of strings, or one string (an MCP server's command). */
  | 'command'
  /** Header name → literal value or `{ secret: NAME }` from the keychain. */
  | 'headers'
  /** A list of variable names, or (MCP) a mapping edited as JSON. */
  | 'env'
  /** A JSON value edited as text (a JSON Schema, per-tool overrides). */
  | 'json';

/** One field of a catalog entry. */
export interface CatalogField {
  /** Path inside the entry (`['price', 'currency']`). */
  path: readonly string[];
  label: string;
  control: FieldControl;
  /** The choices of a select, from the schema's enum. */
  options?: readonly string[];
  /** The tool kinds the field applies to (tools.yaml); every kind when absent. */
  kinds?: readonly string[];
  /** What the schema says about the field. */
  help: string;
  placeholder?: string;
  /** A list that must stay present when emptied (a command's argv). */
  keepEmpty?: boolean;
}

interface SchemaNode {
  description?: string;
  enum?: readonly unknown[];
  properties?: Record<string, SchemaNode>;
}

const toolDefinition = (toolsSchema as unknown as { $defs: { tool: SchemaNode } }).$defs.tool;
const modelDefinition = (modelsSchema as unknown as { $defs: { model: SchemaNode } }).$defs.model;

function schemaAt(root: SchemaNode, path: readonly string[]): SchemaNode {
  let node: SchemaNode | undefined = root;
  for (const key of path) node = node?.properties?.[key];
  if (!node) throw new Error(`the catalog schema has no field ${path.join('.')}`);
  return node;
}

function enumOf(root: SchemaNode, path: readonly string[]): string[] {
  return (schemaAt(root, path).enum ?? []).map(String);
}

function field(
  root: SchemaNode,
  path: readonly string[],
  label: string,
  control: FieldControl,
  extra: Partial<CatalogField> = {},
): CatalogField {
  return {
    path,
    label,
    control,
    help: schemaAt(root, path).description ?? '',
    ...(control === 'select' && { options: enumOf(root, path) }),
    ...extra,
  };
}

const t = (path: readonly string[], label: string, control: FieldControl, extra: Partial<CatalogField> = {}) =>
  field(toolDefinition, path, label, control, extra);
const m = (path: readonly string[], label: string, control: FieldControl, extra: Partial<CatalogField> = {}) =>
  field(modelDefinition, path, label, control, extra);

/** The tool kinds (`builtin`, `command`, `http`, `mcp`). */
export const TOOL_KINDS = enumOf(toolDefinition, ['kind']);

/** The providers a model may name, from the schema (the core's list). */
export const MODEL_PROVIDERS = enumOf(modelDefinition, ['provider']);

/** Fields of a tools.yaml entry, in the order the form shows them (`kind` is in the entry header). */
const TOOL_FIELDS: readonly CatalogField[] = [
  t(['description'], 'Description', 'text'),
  t(['builtin'], 'Builtin', 'select', { kinds: ['builtin'] }),
  t(['command'], 'Command (argv)', 'list', { kinds: ['command'], keepEmpty: true, placeholder: 'argument' }),
  t(['command'], 'Command', 'command', { kinds: ['mcp'], placeholder: 'npx' }),
  t(['args'], 'Arguments', 'list', { kinds: ['mcp'], placeholder: 'argument' }),
  t(['url'], 'URL', 'text', { kinds: ['http', 'mcp'], placeholder: 'https://example.com/tool' }),
  t(['headers'], 'Headers', 'headers', { kinds: ['http', 'mcp'] }),
  t(['cwd'], 'Working directory', 'text', { kinds: ['command', 'mcp'], placeholder: 'workspace root' }),
  t(['env'], 'Environment allow-list', 'env', { kinds: ['command', 'mcp'], placeholder: 'VARIABLE_NAME' }),
  t(['approval'], 'Approval', 'select'),
  t(['trust'], 'Trust', 'select'),
  t(['taintCheck'], 'Taint check', 'boolean'),
  t(['timeoutMs'], 'Timeout (ms)', 'integer', { kinds: ['command', 'http', 'mcp'], placeholder: 'default' }),
  t(['maxOutputBytes'], 'Max output (bytes)', 'integer', { kinds: ['command'], placeholder: '1048576' }),
  t(['startTimeoutMs'], 'Start timeout (ms)', 'integer', { kinds: ['mcp'], placeholder: '20000' }),
  t(['prefix'], 'Alias prefix', 'text', { kinds: ['mcp'], placeholder: 'server name and a dot' }),
  t(['include'], 'Only these tools', 'list', { kinds: ['mcp'], placeholder: 'tool name' }),
  t(['exclude'], 'Never these tools', 'list', { kinds: ['mcp'], placeholder: 'tool name' }),
  t(['tools'], 'Per-tool overrides', 'json', { kinds: ['mcp'] }),
  t(['parameters'], 'Parameters (JSON Schema)', 'json', { kinds: ['builtin', 'command', 'http'] }),
  t(['output'], 'Output (JSON Schema)', 'json', { kinds: ['builtin', 'command', 'http'] }),
];

/** Fields of a models.yaml entry. */
const MODEL_FIELDS: readonly CatalogField[] = [
  m(['provider'], 'Provider', 'select'),
  m(['model'], 'Model', 'text', { placeholder: 'gpt-4o-mini' }),
  m(['baseUrl'], 'Base URL', 'text', { placeholder: "the provider's default" }),
  m(['defaults', 'temperature'], 'Temperature', 'number', { placeholder: 'provider default' }),
  m(['defaults', 'maxTokens'], 'Max tokens', 'integer', { placeholder: 'provider default' }),
  m(['price', 'inputPerMillion'], 'Input price per million', 'number'),
  m(['price', 'outputPerMillion'], 'Output price per million', 'number'),
  m(['price', 'currency'], 'Currency', 'text', { placeholder: 'USD' }),
];

/** What a new entry starts with: the required fields, so the form shows what to fill in. */
export function newEntryFields(file: CatalogFile, kind: string): Record<string, unknown> {
  if (file === 'models.yaml') return { provider: kind, model: '' };
  switch (kind) {
    case 'builtin':
      return { kind, builtin: enumOf(toolDefinition, ['builtin'])[0] ?? 'echo' };
    case 'command':
      return { kind, command: [] };
    case 'http':
      return { kind, url: '' };
    default:
      return { kind, command: '' };
  }
}

/** The fields of `file`'s entries, or undefined when the file has no form. */
export function fieldsOf(file: CatalogFile): readonly CatalogField[] | undefined {
  if (file === 'tools.yaml') return TOOL_FIELDS;
  if (file === 'models.yaml') return MODEL_FIELDS;
  return undefined;
}

/** The help text of a tool's `kind`, for the entry header. */
export const KIND_HELP = schemaAt(toolDefinition, ['kind']).description ?? '';
