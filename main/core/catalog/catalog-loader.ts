import { createHash } from 'node:crypto';
import path from 'node:path';
import type { ErrorObject } from 'ajv';
import { isMap, isNode, isPair, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
import type { JsonSchema } from '../../../common/json.js';
import { builtinDefaults, builtinToolSpecs, isBuiltinToolName } from '../tools/builtin-tools.js';
import type { ToolKindSettings, ToolSpec } from '../tools/tool-spec.js';
import { type CatalogProblem, LocatedYaml, scalarKey, toPointer } from './catalog-problem.js';
import { CATALOG_SCHEMAS, catalogValidator, UserSchemaCompiler } from './catalog-schemas.js';
import { unsupportedSchemaPatterns } from '../../../common/linear-regexp.js';
import { DEFAULT_BASE_URLS, type ModelProviderId, type ModelSpec, normalizeAgentPath } from './model-catalog.js';
import type { McpServerSpec } from '../mcp/mcp-spec.js';
import { toMcpServerSpec } from './mcp-entry.js';

/** The workspace files that hold settings and catalogs. */
export type CatalogFileName = keyof typeof CATALOG_SCHEMAS;

/** The catalog files, in the order they are loaded. */
export const CATALOG_FILES: readonly CatalogFileName[] = ['promptforge.yaml', 'tools.yaml', 'models.yaml'];

/** Tool aliases and model aliases must match this, so they are valid wire names. */
export const ALIAS_PATTERN = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

/** promptforge.yaml after validation and defaults. */
export interface WorkspaceSettings {
  /** The workspace default model alias (only when models.yaml defines it). */
  defaultModel?: string;
  /** Whether builtins are in the catalog. Default true. */
  builtins: boolean;
  /** Per-agent settings keyed by workspace-relative script path (`agents/x.lua`). */
  agents: Record<string, { model?: string }>;
}

/** The shape of one tools.yaml entry as written in the file (the map form's value). */
export interface ToolEntryYaml {
  alias?: string;
  kind: 'builtin' | 'command' | 'http' | 'mcp';
  description?: string;
  parameters?: JsonSchema;
  output?: JsonSchema;
  trust?: 'trusted' | 'untrusted';
  approval?: 'ask' | 'auto' | 'deny';
  taintCheck?: boolean;
  builtin?: string;
  command?: string[] | string;
  args?: string[];
  cwd?: string;
  env?: string[] | Record<string, null | string | { secret: string }>;
  prefix?: string;
  include?: string[];
  exclude?: string[];
  startTimeoutMs?: number;
  tools?: Record<
    string,
    { trust?: 'trusted' | 'untrusted'; approval?: 'ask' | 'auto' | 'deny'; timeoutMs?: number; taintCheck?: boolean }
  >;
  timeoutMs?: number;
  maxOutputBytes?: number;
  url?: string;
  headers?: Record<string, string | { secret: string }>;
}

/** A tools.yaml entry that defines one tool (an `mcp` entry defines a server instead). */
type LoadableToolEntry = ToolEntryYaml & {
  kind: Exclude<ToolEntryYaml['kind'], 'mcp'>;
  command?: string[];
  env?: string[];
};

/** The shape of one models.yaml entry as written in the file. */
export interface ModelEntryYaml {
  provider: ModelProviderId;
  model?: string;
  baseUrl?: string;
  defaults?: { temperature?: number; maxTokens?: number };
  price?: { inputPerMillion: number; outputPerMillion: number; currency?: string };
}

/** The raw text of each catalog file; undefined when the file does not exist. */
export type CatalogTexts = Partial<Record<CatalogFileName, string>>;

/** Everything derived from the catalog texts. */
export interface CheckedCatalogs {
  settings: WorkspaceSettings;
  tools: ToolSpec[];
  models: ModelSpec[];
  problems: CatalogProblem[];
  /** sha256 (hex) of each existing file's text, for transcripts. */
  versions: Record<string, string>;
  /** The `kind: mcp` entries: servers whose tools join the catalog once they are listed. */
  mcpServers: McpServerSpec[];
}

const DEFAULT_PARAMETERS: JsonSchema = { type: 'object', properties: {} };

const COMMON_TOOL_FIELDS = ['alias', 'kind', 'description', 'parameters', 'output', 'trust', 'approval', 'taintCheck'];
const KIND_FIELDS: Record<string, string[]> = {
  builtin: ['builtin'],
  command: ['command', 'cwd', 'env', 'timeoutMs', 'maxOutputBytes'],
  http: ['url', 'headers', 'timeoutMs'],
  mcp: [
    'command',
    'args',
    'cwd',
    'env',
    'url',
    'headers',
    'timeoutMs',
    'prefix',
    'include',
    'exclude',
    'startTimeoutMs',
    'tools',
  ],
};
const ALL_TOOL_FIELDS = [
  ...COMMON_TOOL_FIELDS,
  'builtin',
  'command',
  'cwd',
  'env',
  'timeoutMs',
  'maxOutputBytes',
  'url',
  'headers',
  'args',
  'prefix',
  'include',
  'exclude',
  'startTimeoutMs',
  'tools',
];
const MODEL_FIELDS = ['provider', 'model', 'baseUrl', 'defaults', 'price'];
const SETTINGS_FIELDS = ['defaultModel', 'builtins', 'agents'];

/**
 * Validates all catalog texts of one workspace. Never throws for content: every problem is in
 * `problems`, bad entries are dropped and the rest is returned.
 */
export function checkCatalogs(
  texts: CatalogTexts,
  compiler: UserSchemaCompiler = new UserSchemaCompiler(),
): CheckedCatalogs {
  const problems: CatalogProblem[] = [];
  const versions: Record<string, string> = {};
  for (const file of CATALOG_FILES) {
    const text = texts[file];
    if (text !== undefined) versions[file] = createHash('sha256').update(text).digest('hex');
  }

  const settingsFile = parseCatalogYaml('promptforge.yaml', texts['promptforge.yaml'], problems);
  const toolsFile = parseCatalogYaml('tools.yaml', texts['tools.yaml'], problems);
  const modelsFile = parseCatalogYaml('models.yaml', texts['models.yaml'], problems);

  const models = modelsFile ? checkModels(modelsFile, problems) : [];
  const modelAliases = new Set(models.map((model) => model.alias));
  const settings = settingsFile ? checkSettings(settingsFile, modelAliases, problems) : { builtins: true, agents: {} };
  const mcpServers: McpServerSpec[] = [];
  const fileTools = toolsFile ? checkTools(toolsFile, compiler, problems, mcpServers) : [];

  const tools: ToolSpec[] = [];
  const fileAliases = new Set(fileTools.map((tool) => tool.alias));
  if (settings.builtins) tools.push(...builtinToolSpecs().filter((tool) => !fileAliases.has(tool.alias)));
  tools.push(...fileTools);
  const fileOrder = (file: string) => CATALOG_FILES.indexOf(file as CatalogFileName);
  problems.sort((a, b) => fileOrder(a.file) - fileOrder(b.file) || a.line - b.line || a.column - b.column);
  return { settings, tools, models, problems, versions, mcpServers };
}

/** Alias expansions a catalog file may make (the yaml library's own default, made explicit). */
const MAX_YAML_ALIAS_COUNT = 100;

/** Parses a catalog file; reports syntax errors (with line and column) and returns undefined on any. */
export function parseCatalogYaml(
  file: CatalogFileName,
  text: string | undefined,
  problems: CatalogProblem[],
): LocatedYaml | undefined {
  if (text === undefined) return undefined;
  const lineCounter = new LineCounter();
  // uniqueKeys off: duplicate aliases are reported by the checks below, which can name them.
  const document = parseDocument(text, { lineCounter, uniqueKeys: false, prettyErrors: false });
  if (document.errors.length > 0) {
    for (const error of document.errors) {
      const position = lineCounter.linePos(error.pos[0]);
      problems.push({
        severity: 'error',
        file,
        pointer: '',
        line: position.line,
        column: position.col,
        message: `YAML syntax error: ${error.message.split('\n')[0]}`,
        fix: `Fix the YAML at line ${position.line}, column ${position.col}; nothing in ${file} is loaded until it parses.`,
      });
    }
    return undefined;
  }
  // Expanding aliases once here turns a "billion laughs" alias bomb into a located problem,
  // instead of an exception from a later toJS() that would lose the whole catalog.
  try {
    document.toJS({ maxAliasCount: MAX_YAML_ALIAS_COUNT });
  } catch (error) {
    problems.push({
      severity: 'error',
      file,
      pointer: '',
      line: 1,
      column: 1,
      message: `YAML cannot be loaded: ${(error as Error).message}`,
      fix: `Use fewer alias references (*name) in ${file}: at most ${MAX_YAML_ALIAS_COUNT} expansions; nothing in ${file} is loaded until then.`,
    });
    return undefined;
  }
  for (const warning of document.warnings) {
    const position = lineCounter.linePos(warning.pos[0]);
    problems.push({
      severity: 'warning',
      file,
      pointer: '',
      line: position.line,
      column: position.col,
      message: `YAML warning: ${warning.message.split('\n')[0]}`,
      fix: 'Check the YAML at this position.',
    });
  }
  return new LocatedYaml(file, document, lineCounter);
}

interface RawEntry {
  alias: string | undefined;
  /** JSON pointer segments of the entry. */
  segments: (string | number)[];
  /** Where the alias is written (the key, or `alias` inside a list item). */
  aliasSegments: (string | number)[];
  /** Offset of the alias in the text, so duplicates point at the right occurrence. */
  aliasOffset: number | undefined;
  value: unknown;
}

/** The entries of a mapping (alias -> entry) or, when `allowList`, of a list of entries with `alias`. */
function rawEntries(
  located: LocatedYaml,
  allowList: boolean,
  problems: CatalogProblem[],
  what: string,
): RawEntry[] | undefined {
  const contents = located.document.contents;
  if (contents === null || (isScalar(contents) && contents.value === null)) return [];
  const document = located.document;
  if (isMap(contents)) {
    return contents.items.filter(isPair).map((pair) => {
      const alias = scalarKey(pair.key);
      return {
        alias,
        segments: [alias ?? '?'],
        aliasSegments: [alias ?? '?'],
        aliasOffset: isNode(pair.key) ? pair.key.range?.[0] : undefined,
        value: isNode(pair.value) ? pair.value.toJS(document) : pair.value,
      };
    });
  }
  if (allowList && isSeq(contents)) {
    return contents.items.map((item, index) => {
      const value: unknown = isNode(item) ? item.toJS(document) : item;
      const alias = isPlainObject(value) && typeof value['alias'] === 'string' ? value['alias'] : undefined;
      const aliasNode = isMap(item) ? item.get('alias', true) : undefined;
      return {
        alias,
        segments: [index],
        aliasSegments: [index, 'alias'],
        aliasOffset: isNode(aliasNode) ? aliasNode.range?.[0] : undefined,
        value,
      };
    });
  }
  problems.push(
    located.problem(
      'error',
      [],
      `${located.file} must be a mapping from alias to ${what}${allowList ? ` (or a list of ${what}s)` : ''}`,
      allowList
        ? `Write entries as "name:" followed by indented fields, or as a list of items with "alias:".`
        : `Write entries as "name:" followed by indented fields.`,
    ),
  );
  return undefined;
}

function checkTools(
  located: LocatedYaml,
  compiler: UserSchemaCompiler,
  problems: CatalogProblem[],
  mcpServers: McpServerSpec[],
): ToolSpec[] {
  const entries = rawEntries(located, true, problems, 'tool entry');
  if (!entries) return [];
  const validate = catalogValidator('tools.yaml', '/$defs/tool');
  const seen = new Set<string>();
  const specs: ToolSpec[] = [];
  for (const entry of entries) {
    const { alias, segments } = entry;
    if (alias === undefined) {
      problems.push(
        isPlainObject(entry.value)
          ? located.problem('error', segments, 'tool entry has no "alias"', 'Add "alias: my_tool" to the entry.')
          : located.problem(
              'error',
              segments,
              'tool entry must be a mapping with an "alias"',
              'Write the entry as fields "alias:", "kind:", ...',
            ),
      );
      continue;
    }
    if (!ALIAS_PATTERN.test(alias)) {
      problems.push(
        located.problem(
          'error',
          entry.aliasSegments,
          `tool alias "${alias}" is not a valid tool name`,
          'Use 1-64 letters, digits, "_", "." or "-", starting with a letter or "_" (e.g. "web_search").',
          { preferKey: true },
        ),
      );
      continue;
    }
    if (seen.has(alias)) {
      problems.push(
        located.problem(
          'error',
          entry.aliasSegments,
          `tool "${alias}" is defined more than once`,
          'Rename or remove one of the entries; only the first is loaded.',
          {
            preferKey: true,
            ...(entry.aliasOffset !== undefined ? { offset: entry.aliasOffset } : {}),
          },
        ),
      );
      continue;
    }
    seen.add(alias);
    const value = entry.value;
    const subject = isPlainObject(value) && value['kind'] === 'mcp' ? `MCP server "${alias}"` : `tool "${alias}"`;
    if (
      isPlainObject(value) &&
      value['kind'] === 'mcp' &&
      value['command'] === undefined &&
      value['url'] === undefined
    ) {
      problems.push(
        located.problem(
          'error',
          [...segments, 'kind'],
          `MCP server "${alias}" needs "command" (a stdio server) or "url" (a Streamable HTTP server)`,
          'Add e.g. "command: npx" with "args: [-y, @modelcontextprotocol/server-filesystem, ./data]", or "url: http://127.0.0.1:3001/mcp".',
        ),
      );
      continue;
    }
    if (!validate(value)) {
      problems.push(...ajvProblems(located, segments, validate.errors ?? [], subject, ALL_TOOL_FIELDS));
      continue;
    }
    if ((value as { kind?: unknown }).kind === 'mcp') {
      const server = toMcpServerSpec(located, alias, segments, value as unknown as ToolEntryYaml, problems);
      if (server) mcpServers.push(server);
      continue;
    }
    // The schema checked the shape, and mcp entries were refused above.
    const spec = toToolSpec(located, alias, segments, value as unknown as LoadableToolEntry, compiler, problems);
    if (spec) specs.push(spec);
  }
  return specs;
}

function toToolSpec(
  located: LocatedYaml,
  alias: string,
  segments: (string | number)[],
  entry: LoadableToolEntry,
  compiler: UserSchemaCompiler,
  problems: CatalogProblem[],
): ToolSpec | undefined {
  const at = (...more: (string | number)[]) => [...segments, ...more];
  const error = (where: (string | number)[], message: string, fix: string) => {
    problems.push(located.problem('error', where, message, fix));
    return undefined;
  };
  const warn = (where: (string | number)[], message: string, fix: string, preferKey = false) =>
    problems.push(located.problem('warning', where, message, fix, { preferKey }));

  if (entry.alias !== undefined && typeof segments[0] === 'string' && entry.alias !== alias) {
    return error(
      at('alias'),
      `tool "${alias}" has a different "alias: ${entry.alias}"`,
      `Remove "alias" (the key "${alias}" is the alias) or make them equal.`,
    );
  }

  for (const field of Object.keys(entry)) {
    if (!COMMON_TOOL_FIELDS.includes(field) && !(KIND_FIELDS[entry.kind] ?? []).includes(field)) {
      warn(
        at(field),
        `"${field}" is ignored for a ${entry.kind} tool ("${alias}")`,
        `Remove "${field}", or change "kind".`,
        true,
      );
    }
  }

  const parameters = entry.parameters ?? DEFAULT_PARAMETERS;
  if (parameters['type'] !== undefined && parameters['type'] !== 'object') {
    return error(
      at('parameters', 'type'),
      `tool "${alias}": parameters must describe an object (tool arguments are always an object)`,
      'Set "type: object" and list the arguments under "properties".',
    );
  }
  const badPatterns = [
    ...unsupportedSchemaPatterns(parameters).map((found) => ({ ...found, field: 'parameters' })),
    ...unsupportedSchemaPatterns(entry.output).map((found) => ({ ...found, field: 'output' })),
  ];
  for (const { field, segments: inner, error: patternError } of badPatterns) {
    problems.push(
      located.problem(
        'error',
        at(field, ...inner),
        `tool "${alias}": ${field}${toPointer(inner)}: ${patternError.message}`,
        patternError.fix,
        { preferKey: inner.at(-2) === 'patternProperties' },
      ),
    );
  }
  if (badPatterns.length > 0) return undefined;
  try {
    compiler.compile(parameters);
  } catch (compileError) {
    return error(
      at('parameters'),
      `tool "${alias}": parameters is not a valid JSON Schema: ${(compileError as Error).message}`,
      'Fix the schema; see https://json-schema.org/understanding-json-schema/.',
    );
  }
  if (entry.output !== undefined) {
    try {
      compiler.compile(entry.output);
    } catch (compileError) {
      return error(
        at('output'),
        `tool "${alias}": output is not a valid JSON Schema: ${(compileError as Error).message}`,
        'Fix the schema, or remove "output" to return plain text.',
      );
    }
  }

  let settings: ToolKindSettings;
  let description = entry.description;
  let trust = entry.trust;
  let approval = entry.approval;
  let parametersOut = parameters;
  switch (entry.kind) {
    case 'builtin': {
      const name = entry.builtin ?? alias;
      if (!isBuiltinToolName(name)) {
        return error(
          at(entry.builtin === undefined ? 'kind' : 'builtin'),
          `tool "${alias}": there is no builtin named "${name}"`,
          'Set "builtin:" to one of echo, read_file, list_files, http_get, now.',
        );
      }
      const defaults = builtinDefaults(name);
      description ??= defaults.description;
      trust ??= defaults.trust;
      approval ??= defaults.approval;
      // A builtin's implementation expects its own arguments, so its schema stays unless replaced.
      if (entry.parameters === undefined) parametersOut = structuredClone(defaults.parameters);
      settings = { kind: 'builtin', builtin: name };
      break;
    }
    case 'command': {
      const command = entry.command ?? [];
      if (entry.cwd !== undefined) {
        const normalized = path.posix.normalize(entry.cwd.replaceAll('\\', '/'));
        if (
          path.isAbsolute(entry.cwd) ||
          path.posix.isAbsolute(normalized) ||
          normalized === '..' ||
          normalized.startsWith('../')
        ) {
          return error(
            at('cwd'),
            `tool "${alias}": cwd "${entry.cwd}" is outside the workspace`,
            'Use a folder relative to the workspace root, e.g. "tools".',
          );
        }
      }
      settings = {
        kind: 'command',
        command: [...command],
        ...(entry.cwd !== undefined ? { cwd: entry.cwd } : {}),
        ...(entry.env !== undefined ? { env: [...entry.env] } : {}),
        ...(entry.timeoutMs !== undefined ? { timeoutMs: entry.timeoutMs } : {}),
        ...(entry.maxOutputBytes !== undefined ? { maxOutputBytes: entry.maxOutputBytes } : {}),
      };
      trust ??= 'trusted';
      approval ??= 'ask';
      break;
    }
    case 'http': {
      const url = entry.url ?? '';
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        return error(
          at('url'),
          `tool "${alias}": url "${url}" is not a valid URL`,
          'Use an absolute http or https URL, e.g. "https://api.example.com/search".',
        );
      }
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
        return error(
          at('url'),
          `tool "${alias}": url must be http or https (got "${parsed.protocol}")`,
          'Use an http:// or https:// URL.',
        );
      }
      if (parsed.username || parsed.password) {
        return error(
          at('url'),
          `tool "${alias}": url must not carry a user name or password`,
          'Move the credential to a header with "{ secret: NAME }".',
        );
      }
      for (const [name, value] of Object.entries(entry.headers ?? {})) {
        if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
          return error(
            at('headers', name),
            `tool "${alias}": "${name}" is not a valid HTTP header name`,
            'Use letters, digits and "-" (e.g. "X-Api-Key").',
          );
        }
        if (
          typeof value === 'string' &&
          /authorization|api[-_]?key|token|secret|password/i.test(name) &&
          value.length > 0
        ) {
          warn(
            at('headers', name),
            `tool "${alias}": header "${name}" holds a literal value in a file that may be committed`,
            `Store it in the keychain and write "${name}: { secret: NAME }".`,
          );
        }
      }
      settings = {
        kind: 'http',
        url,
        ...(entry.headers !== undefined ? { headers: structuredClone(entry.headers) } : {}),
        ...(entry.timeoutMs !== undefined ? { timeoutMs: entry.timeoutMs } : {}),
      };
      trust ??= 'untrusted';
      approval ??= 'ask';
      break;
    }
  }

  if (description === undefined || description.trim() === '') {
    warn(
      segments,
      `tool "${alias}" has no description`,
      'Add "description:"; the model and the person approving calls see it.',
      true,
    );
  }
  if (entry.taintCheck === false) {
    warn(
      at('taintCheck'),
      `${located.file} turns taint checks off for tool "${alias}": arguments copied from untrusted output will not force approval`,
      'Remove "taintCheck: false" unless the tool cannot cause harm.',
    );
  }
  if (alias.includes('.')) {
    warn(
      segments,
      `tool alias "${alias}" contains "."; OpenAI and Anthropic reject "." in tool names`,
      'Use "_" or "-" instead of ".".',
      true,
    );
  }
  if (entry.kind !== 'builtin' && isBuiltinToolName(alias)) {
    warn(
      segments,
      `tool "${alias}" replaces the builtin of the same name`,
      'Rename it if you meant to keep the builtin.',
      true,
    );
  }

  return {
    alias,
    description: description ?? '',
    parameters: parametersOut,
    ...(entry.output !== undefined ? { outputSchema: entry.output } : {}),
    trust,
    approval,
    taintCheck: entry.taintCheck ?? true,
    settings,
    source: located.file,
  };
}

function checkModels(located: LocatedYaml, problems: CatalogProblem[]): ModelSpec[] {
  const entries = rawEntries(located, false, problems, 'model entry');
  if (!entries) return [];
  const validate = catalogValidator('models.yaml', '/$defs/model');
  const seen = new Set<string>();
  const specs: ModelSpec[] = [];
  for (const { alias, segments, aliasSegments, aliasOffset, value } of entries) {
    if (alias === undefined || !ALIAS_PATTERN.test(alias)) {
      problems.push(
        located.problem(
          'error',
          aliasSegments,
          `model alias "${alias ?? ''}" is not a valid name`,
          'Use 1-64 letters, digits, "_", "." or "-", starting with a letter or "_".',
          {
            preferKey: true,
          },
        ),
      );
      continue;
    }
    if (seen.has(alias)) {
      problems.push(
        located.problem(
          'error',
          aliasSegments,
          `model "${alias}" is defined more than once`,
          'Rename or remove one of the entries; only the first is loaded.',
          {
            preferKey: true,
            ...(aliasOffset !== undefined ? { offset: aliasOffset } : {}),
          },
        ),
      );
      continue;
    }
    seen.add(alias);
    if (!validate(value)) {
      problems.push(...ajvProblems(located, segments, validate.errors ?? [], `model "${alias}"`, MODEL_FIELDS));
      continue;
    }
    const entry = value as unknown as ModelEntryYaml;
    let baseUrl = entry.baseUrl;
    if (baseUrl !== undefined) {
      let parsed: URL | undefined;
      try {
        parsed = new URL(baseUrl);
      } catch {
        parsed = undefined;
      }
      if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
        problems.push(
          located.problem(
            'error',
            [...segments, 'baseUrl'],
            `model "${alias}": baseUrl "${baseUrl}" is not an http(s) URL`,
            'Use e.g. "http://localhost:11434/v1".',
          ),
        );
        continue;
      }
    }
    baseUrl ??= DEFAULT_BASE_URLS[entry.provider];
    specs.push({
      alias,
      provider: entry.provider,
      model: entry.model ?? '',
      ...(baseUrl !== undefined ? { baseUrl } : {}),
      ...(entry.defaults !== undefined ? { defaults: { ...entry.defaults } } : {}),
      ...(entry.price !== undefined ? { price: { currency: 'USD', ...entry.price } } : {}),
      source: located.file,
    });
  }
  return specs;
}

function checkSettings(
  located: LocatedYaml,
  modelAliases: ReadonlySet<string>,
  problems: CatalogProblem[],
): WorkspaceSettings {
  const settings: WorkspaceSettings = { builtins: true, agents: {} };
  const contents = located.document.contents;
  const raw: unknown = contents === null ? null : located.document.toJS();
  if (raw === null || raw === undefined) return settings;
  const validate = catalogValidator('promptforge.yaml');
  if (!isPlainObject(raw)) {
    problems.push(
      located.problem(
        'error',
        [],
        'promptforge.yaml must be a mapping of settings',
        'Write settings as "defaultModel: my-model", one per line.',
      ),
    );
    return settings;
  }
  if (!validate(raw)) {
    problems.push(...ajvProblems(located, [], validate.errors ?? [], 'settings', SETTINGS_FIELDS));
  }
  // Keep every setting that is individually valid; a bad one falls back to its default.
  const bad = new Set((validate.errors ?? []).map((error) => error.instancePath.split('/')[1] ?? ''));
  if (typeof raw['builtins'] === 'boolean') settings.builtins = raw['builtins'];
  const defaultModel = raw['defaultModel'];
  if (typeof defaultModel === 'string' && !bad.has('defaultModel')) {
    if (modelAliases.has(defaultModel)) settings.defaultModel = defaultModel;
    else problems.push(unknownModel(located, ['defaultModel'], defaultModel, modelAliases));
  }
  const agents = raw['agents'];
  if (isPlainObject(agents)) {
    for (const [agentPath, agentSettings] of Object.entries(agents)) {
      if (!agentPath.endsWith('.lua') || !isPlainObject(agentSettings)) continue;
      const model = agentSettings['model'];
      if (model !== undefined && typeof model !== 'string') continue;
      const key = normalizeAgentPath(agentPath, undefined);
      if (typeof model === 'string') {
        if (!modelAliases.has(model)) {
          problems.push(unknownModel(located, ['agents', agentPath, 'model'], model, modelAliases));
          continue;
        }
        settings.agents[key] = { model };
      } else {
        settings.agents[key] = {};
      }
    }
  }
  return settings;
}

function unknownModel(
  located: LocatedYaml,
  segments: string[],
  alias: string,
  known: ReadonlySet<string>,
): CatalogProblem {
  const suggestion = closest(alias, [...known]);
  return located.problem(
    'error',
    segments,
    `model "${alias}" is not defined in models.yaml`,
    known.size === 0
      ? `Add "${alias}:" with a provider and model to models.yaml.`
      : `Use one of ${[...known].map((name) => `"${name}"`).join(', ')}${suggestion ? ` (did you mean "${suggestion}"?)` : ''}, or add "${alias}" to models.yaml.`,
  );
}

/** Turns ajv errors about the entry at `base` into located problems with fixes. */
function ajvProblems(
  located: LocatedYaml,
  base: (string | number)[],
  errors: readonly ErrorObject[],
  subject: string,
  knownFields: readonly string[],
): CatalogProblem[] {
  const relevant = errors.filter(
    (error) => error.keyword !== 'if' && error.keyword !== 'anyOf' && error.keyword !== 'allOf',
  );
  const list = relevant.length > 0 ? relevant : errors;
  const problems: CatalogProblem[] = [];
  const seen = new Set<string>();
  for (const error of list) {
    const instance =
      error.instancePath === ''
        ? []
        : error.instancePath
            .slice(1)
            .split('/')
            .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
    const params = error.params as Record<string, unknown>;
    let segments: (string | number)[] = [...base, ...instance];
    let message: string;
    let fix: string;
    let preferKey = false;
    const field = instance.length > 0 ? `"${instance.join('/')}"` : '';
    switch (error.keyword) {
      case 'required': {
        const missing = String(params['missingProperty']);
        message = `${subject}${field ? ` ${field}` : ''} is missing required field "${missing}"`;
        fix = `Add "${missing}:"${REQUIRED_HINTS[missing] ? ` ${REQUIRED_HINTS[missing]}` : ''}.`;
        break;
      }
      case 'additionalProperties': {
        const extra = String(params['additionalProperty']);
        segments = [...segments, extra];
        preferKey = true;
        const suggestion = instance.length === 0 ? closest(extra, knownFields) : undefined;
        message = `${subject} has unknown field "${extra}"`;
        fix = suggestion ? `Rename "${extra}" to "${suggestion}", or remove it.` : `Remove "${extra}".`;
        break;
      }
      case 'type':
        message = `${subject}: ${field || 'the entry'} must be ${String(params['type']).replaceAll(',', ' or ')}`;
        fix = `Change ${field || 'the entry'} to ${String(params['type']).replaceAll(',', ' or ')}.`;
        break;
      case 'enum': {
        const allowed = (params['allowedValues'] as unknown[]).map((value) => String(value));
        message = `${subject}: ${field} must be one of ${allowed.join(', ')}`;
        fix = `Use one of ${allowed.map((value) => `"${value}"`).join(', ')}.`;
        break;
      }
      case 'propertyNames':
        message = `${subject}: ${field || 'a key'} has an invalid name`;
        fix = 'Rename the key.';
        break;
      case 'pattern':
        if (error.propertyName !== undefined) {
          segments = [...segments, error.propertyName];
          preferKey = true;
          message = `${subject}: key "${error.propertyName}" must match ${String(params['pattern'])}`;
        } else {
          message = `${subject}: ${field} must match pattern ${String(params['pattern'])}`;
        }
        fix = PATTERN_HINTS[String(instance[0] ?? '')] ?? 'Change the value to the required form.';
        break;
      default:
        message = `${subject}: ${field || 'the entry'} ${error.message ?? 'is invalid'}`;
        fix = `Correct ${field || 'the entry'} (${error.message ?? 'see the schema in schemas/'}).`;
    }
    const key = `${segments.join('/')}|${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push(located.problem('error', segments, message, fix, { preferKey }));
  }
  return problems;
}

const REQUIRED_HINTS: Record<string, string> = {
  kind: 'with builtin, command, http or mcp',
  command: 'with the argv as a list, e.g. [node, tools/search.js]',
  url: 'with the http(s) URL the arguments are POSTed to',
  provider:
    'with one of openai, anthropic, gemini, openai-compatible, ollama, lmstudio, openrouter, groq, vllm, replay',
  model: "with the provider's model id",
  baseUrl: 'with the endpoint, e.g. http://localhost:8080/v1',
  secret: 'with the keychain entry name',
};

const PATTERN_HINTS: Record<string, string> = {
  env: 'Use environment variable names: letters, digits and "_", not starting with a digit (e.g. "HOME").',
  currency: 'Use a three-letter ISO 4217 code such as "USD" or "EUR".',
};

/** The known name nearest to `name` (a few edits away at most), for "did you mean" fixes. */
function closest(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = name.length >= 6 ? 4 : 3;
  for (const candidate of known) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    let previous = row[0] ?? 0;
    row[0] = i;
    for (let j = 1; j <= b.length; j += 1) {
      const current = row[j] ?? 0;
      row[j] = Math.min(current + 1, (row[j - 1] ?? 0) + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length] ?? 0;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
