import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { isPlainObject, type JsonObject, type JsonSchema } from '../../../common/json.js';
import { unsupportedSchemaPatterns } from '../../../common/linear-regexp.js';
import { ALIAS_PATTERN } from '../catalog/catalog-file-schemas.js';
import type { CatalogProblem } from '../catalog/catalog-problem.js';
import type { UserSchemaCompiler } from '../catalog/catalog-schemas.js';
import type { ToolSpec, Trust } from '../tools/tool-spec.js';
import { jsonBoundsProblem, MAX_MCP_DESCRIPTION_CHARS, MAX_MCP_TOOLS } from './mcp-bounds.js';
import type { McpServerSpec } from '../catalog/mcp-spec.js';
import { errorMessage } from '../../../common/error-message.js';
import { cleanServerSchema } from './mcp-schema.js';
import { cleanServerText, serverLabel, shownText } from './mcp-text.js';

/** Longest problem message about a server, in characters; the server's words in it are cut. */
const MAX_MCP_PROBLEM_CHARS = 1000;

/**
 * A problem about a listed tool, placed at the server's entry in tools.yaml. The message often
 * quotes the server (tool names, schema errors), so it goes through {@link shownText}.
 */
export function serverProblem(
  server: McpServerSpec,
  severity: CatalogProblem['severity'],
  message: string,
  fix: string,
): CatalogProblem {
  const { file, pointer, line, column } = server.location;
  return {
    severity,
    file,
    pointer,
    line,
    column,
    message: shownText(message, MAX_MCP_PROBLEM_CHARS),
    fix: shownText(fix, MAX_MCP_PROBLEM_CHARS),
  };
}

/**
 * The schema as the model and the validator will see it (see {@link cleanServerSchema}), or why
 * it is refused: not an object, too deep or too large, text that cannot be cleaned, a pattern
 * that cannot run in linear time, or not a valid JSON Schema.
 */
function checkSchema(
  schema: unknown,
  what: string,
  compiler: UserSchemaCompiler,
  mustBeObject: boolean,
  server: string,
  trust: Trust,
  redact: (text: string) => string,
): { schema: JsonSchema; problem?: undefined } | { problem: string; schema?: undefined } {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    return { problem: `${what} is not an object` };
  const tooBig = jsonBoundsProblem(schema, 32, 20_000);
  if (tooBig) return { problem: `${what} is refused: ${tooBig}` };
  if (mustBeObject && (schema as JsonSchema)['type'] !== 'object')
    return { problem: `${what} must have "type": "object"` };
  const label = serverLabel(server, trust);
  const cleaned = cleanServerSchema(schema as JsonSchema, {
    label,
    rootLabel: `${label.slice(0, -1)}: all text in this schema is the server's]`,
    redact,
  });
  if (cleaned.problem !== undefined) return { problem: `${what} ${cleaned.problem}` };
  const badPattern = unsupportedSchemaPatterns(cleaned.schema)[0];
  if (badPattern)
    return { problem: `${what} has a pattern that cannot run in linear time: ${badPattern.error.message}` };
  try {
    compiler.compile(cleaned.schema);
  } catch (error) {
    return { problem: `${what} is not a valid JSON Schema: ${errorMessage(error)}` };
  }
  return { schema: cleaned.schema };
}

/**
 * The catalog entries for a server's listed tools. Tools left out by `include`/`exclude` are
 * skipped; a tool with a bad name, an invalid `inputSchema` or `outputSchema`, or an alias someone
 * else already holds (`taken`) is dropped with a problem and the rest stay. Aliases added here are
 * put in `taken`. `listedCount` is how many entries the server listed (more than `listed` when
 * the listing was cut).
 *
 * Everything of the server the model sees is the server's words, labelled as such (see
 * {@link serverLabel}), without control, invisible or direction characters, with the host's
 * secrets redacted (`redact`), and bounded: the description (or title) is cut at
 * {@link MAX_MCP_DESCRIPTION_CHARS}, and the schemas are cleaned by {@link cleanServerSchema},
 * which drops the tool when a name or a value that decides acceptance cannot be cleaned.
 */
export function mcpToolSpecs(
  server: McpServerSpec,
  listed: readonly Tool[],
  compiler: UserSchemaCompiler,
  taken: Map<string, string>,
  listedCount = listed.length,
  redact: (text: string) => string = (text) => text,
): { tools: ToolSpec[]; problems: CatalogProblem[] } {
  const problems: CatalogProblem[] = [];
  const tools: ToolSpec[] = [];
  const subject = `MCP server "${server.name}"`;
  const seenNames = new Set<string>();
  if (Math.max(listed.length, listedCount) > MAX_MCP_TOOLS)
    problems.push(
      serverProblem(
        server,
        'warning',
        `${subject} lists ${Math.max(listed.length, listedCount)} tools; only the first ${MAX_MCP_TOOLS} are considered`,
        'Use "include:" to pick the tools you need.',
      ),
    );
  for (const tool of listed.slice(0, MAX_MCP_TOOLS)) {
    const name = tool.name;
    if (seenNames.has(name)) {
      problems.push(
        serverProblem(server, 'error', `${subject} lists tool "${name.slice(0, 80)}" twice`, 'Only the first is used.'),
      );
      continue;
    }
    seenNames.add(name);
    if (server.include && !server.include.includes(name)) continue;
    if (server.exclude.includes(name)) continue;
    const alias = `${server.prefix}${name}`;
    if (!ALIAS_PATTERN.test(alias)) {
      problems.push(
        serverProblem(
          server,
          'error',
          `${subject}: tool "${name.slice(0, 80)}" gives the alias "${alias.slice(0, 100)}", which is not a valid tool name; the tool is dropped`,
          'Add it to "exclude:", or choose a shorter "prefix:" (aliases are 1-64 letters, digits, "_", "." or "-").',
        ),
      );
      continue;
    }
    const holder = taken.get(alias);
    if (holder !== undefined) {
      problems.push(
        serverProblem(
          server,
          'error',
          `${subject}: alias "${alias}" is already taken by ${holder}; this server's "${name}" is dropped`,
          `Give one of the servers another "prefix:", or add "${name}" to "exclude:".`,
        ),
      );
      continue;
    }
    const override = Object.hasOwn(server.overrides, name) ? server.overrides[name]! : {};
    const trust = override.trust ?? server.trust;
    const input = checkSchema(tool.inputSchema, 'its inputSchema', compiler, true, server.name, trust, redact);
    const output =
      input.problem === undefined && tool.outputSchema !== undefined
        ? checkSchema(tool.outputSchema, 'its outputSchema', compiler, false, server.name, trust, redact)
        : undefined;
    const invalid = input.problem ?? output?.problem;
    if (invalid !== undefined || input.schema === undefined) {
      problems.push(
        serverProblem(
          server,
          'error',
          `${subject}: tool "${name}" is dropped: ${invalid}`,
          `Fix the tool on the server, or add "${name}" to "exclude:"; the server's other tools are loaded.`,
        ),
      );
      continue;
    }
    taken.set(alias, `MCP server "${server.name}"`);
    const text = redact(cleanServerText(tool.description ?? tool.title ?? '', MAX_MCP_DESCRIPTION_CHARS));
    const label = serverLabel(server.name, trust);
    tools.push({
      alias,
      // The server wrote the description: it is labelled as the server's.
      description: text ? `${label} ${text}` : label,
      parameters: input.schema,
      ...(output?.schema !== undefined && { outputSchema: output.schema }),
      trust,
      approval: override.approval ?? server.approval,
      taintCheck: override.taintCheck ?? server.taintCheck,
      settings: { kind: 'mcp', server: server.name, tool: name, timeoutMs: override.timeoutMs ?? server.timeoutMs },
      source: `${server.location.file} (MCP server "${server.name}")`,
      // Hints only (never a policy), but part of what the person consented to: a flip asks again.
      ...(isPlainObject(tool.annotations) && { annotations: tool.annotations as JsonObject }),
    });
  }
  for (const name of Object.keys(server.overrides)) {
    if (!seenNames.has(name))
      problems.push(
        serverProblem(
          server,
          'warning',
          `${subject}: "tools: ${name}" overrides a tool the server does not list`,
          'Check the tool name (as the server names it), or remove the override.',
        ),
      );
  }
  for (const name of server.include ?? []) {
    if (!seenNames.has(name))
      problems.push(
        serverProblem(
          server,
          'warning',
          `${subject}: "include" names "${name}", which the server does not list`,
          'Check the tool name.',
        ),
      );
  }
  return { tools, problems };
}
