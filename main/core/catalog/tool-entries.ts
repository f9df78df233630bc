import type { JsonSchema } from '../../../common/json.js';
import { isPlainObject } from '../../../common/json.js';
import { errorMessage } from '../../../common/error-message.js';
import { unsupportedSchemaPatterns } from '../../../common/linear-regexp.js';
import type { McpServerSpec } from './mcp-spec.js';
import { BUILTIN_TOOL_NAMES, builtinDefaults, isBuiltinToolName } from '../tools/builtin-tools.js';
import type { ToolKindSettings, ToolSpec } from '../tools/tool-spec.js';
import { ALIAS_PATTERN, toolFields, type ToolEntryYaml, toolFieldsFor } from './catalog-file-schemas.js';
import type { ToolKind } from '../../../common/tool-policy.js';
import { toPointer } from '../../../common/json-pointer.js';
import type { CatalogProblem, LocatedYaml } from './catalog-problem.js';
import { CATALOG_SCHEMAS, catalogValidator, type UserSchemaCompiler } from './catalog-schemas.js';
import { firstOfAlias, rawEntries } from './catalog-yaml.js';
import { cwdLeavesWorkspace, HEADER_NAME, httpUrlProblem, literalSecretWarning } from './entry-checks.js';
import { toMcpServerSpec } from './mcp-entry.js';
import { ajvProblems } from './schema-messages.js';

const DEFAULT_PARAMETERS: JsonSchema = { type: 'object', properties: {} };

/**
 * The tools of tools.yaml (builtins are added by the caller). `kind: mcp` entries become servers
 * in `mcpServers`; their tools join the catalog once the server lists them.
 */
export function checkTools(
  located: LocatedYaml,
  compiler: UserSchemaCompiler,
  problems: CatalogProblem[],
  mcpServers: McpServerSpec[],
): ToolSpec[] {
  const entries = rawEntries(located, true, problems, 'tool entry');
  if (!entries) return [];
  const validate = catalogValidator<ToolEntryYaml>('tools.yaml', '/$defs/tool');
  const entrySchema = { root: CATALOG_SCHEMAS['tools.yaml'], pointer: '/$defs/tool' };
  const seen = new Set<string>();
  const specs: ToolSpec[] = [];
  for (const entry of entries) {
    const { alias, segments, value } = entry;
    if (alias === undefined) {
      problems.push(
        isPlainObject(value)
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
    if (!firstOfAlias(located, { ...entry, alias }, seen, 'tool', problems)) continue;
    const isServer = isPlainObject(value) && value['kind'] === 'mcp';
    if (isServer && value['command'] === undefined && value['url'] === undefined) {
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
      const subject = isServer ? `MCP server "${alias}"` : `tool "${alias}"`;
      problems.push(...ajvProblems(located, segments, validate.errors ?? [], subject, entrySchema, toolFields()));
      continue;
    }
    if (value.kind === 'mcp') {
      const server = toMcpServerSpec(located, alias, segments, value, problems);
      if (server) mcpServers.push(server);
      continue;
    }
    const spec = toToolSpec(located, alias, segments, { ...value, kind: value.kind }, compiler, problems);
    if (spec) specs.push(spec);
  }
  return specs;
}

/** A tool entry the schema accepted (any kind but mcp) as a tool spec; undefined when it has an error. */
function toToolSpec(
  located: LocatedYaml,
  alias: string,
  segments: (string | number)[],
  entry: ToolEntryYaml & { kind: Exclude<ToolKind, 'mcp'> },
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

  const applies = toolFieldsFor(entry.kind);
  for (const field of Object.keys(entry)) {
    if (!applies.has(field)) {
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
      `tool "${alias}": parameters is not a valid JSON Schema: ${errorMessage(compileError)}`,
      'Fix the schema; see https://json-schema.org/understanding-json-schema/.',
    );
  }
  if (entry.output !== undefined) {
    try {
      compiler.compile(entry.output);
    } catch (compileError) {
      return error(
        at('output'),
        `tool "${alias}": output is not a valid JSON Schema: ${errorMessage(compileError)}`,
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
          `Set "builtin:" to one of ${BUILTIN_TOOL_NAMES.join(', ')}.`,
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
      // The schema requires an argv list and a list of names for kind command.
      const command = Array.isArray(entry.command) ? entry.command : [];
      const env = Array.isArray(entry.env) ? entry.env : undefined;
      if (entry.cwd !== undefined && cwdLeavesWorkspace(entry.cwd)) {
        return error(
          at('cwd'),
          `tool "${alias}": cwd "${entry.cwd}" is outside the workspace`,
          'Use a folder relative to the workspace root, e.g. "tools".',
        );
      }
      settings = {
        kind: 'command',
        command: [...command],
        ...(entry.cwd !== undefined ? { cwd: entry.cwd } : {}),
        ...(env !== undefined ? { env: [...env] } : {}),
        ...(entry.timeoutMs !== undefined ? { timeoutMs: entry.timeoutMs } : {}),
        ...(entry.maxOutputBytes !== undefined ? { maxOutputBytes: entry.maxOutputBytes } : {}),
      };
      trust ??= 'trusted';
      approval ??= 'ask';
      break;
    }
    case 'http': {
      const url = entry.url ?? '';
      const urlProblem = httpUrlProblem(url, 'https://api.example.com/search');
      if (urlProblem) return error(at('url'), `tool "${alias}": ${urlProblem.message}`, urlProblem.fix);
      for (const [name, value] of Object.entries(entry.headers ?? {})) {
        if (!HEADER_NAME.test(name)) {
          return error(
            at('headers', name),
            `tool "${alias}": "${name}" is not a valid HTTP header name`,
            'Use letters, digits and "-" (e.g. "X-Api-Key").',
          );
        }
        const warning = literalSecretWarning(located, at('headers', name), `tool "${alias}"`, 'header', name, value);
        if (warning) problems.push(warning);
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
    ...(entry.sinks !== undefined && entry.sinks.length > 0 && { sinks: entry.sinks }),
    ...(entry.tolerant !== undefined && entry.tolerant.length > 0 && { tolerant: entry.tolerant }),
    settings,
    source: located.file,
  };
}
