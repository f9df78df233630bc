import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { JsonSchema } from '../../../common/json.js';
import { unsupportedSchemaPatterns } from '../../../common/linear-regexp.js';
import { ALIAS_PATTERN } from '../catalog/catalog-file-schemas.js';
import type { CatalogProblem } from '../catalog/catalog-problem.js';
import type { UserSchemaCompiler } from '../catalog/catalog-schemas.js';
import type { ToolSpec } from '../tools/tool-spec.js';
import { jsonBoundsProblem, MAX_MCP_DESCRIPTION_CHARS, MAX_MCP_TOOLS } from './mcp-bounds.js';
import type { McpServerSpec } from '../catalog/mcp-spec.js';
import { errorMessage } from '../../../common/error-message.js';

/** Control characters other than tab and newline, and bidi overrides, are removed from descriptions. */
// eslint-disable-next-line no-control-regex
const UNSAFE_CHARACTERS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** Longest problem message about a server, in characters; the server's words in it are cut. */
export const MAX_MCP_PROBLEM_CHARS = 1000;

/**
 * `text` safe to show in a terminal or the UI: control and bidi characters become visible
 * `\u{..}` escapes (a tool name can hold them), and it is cut after `max` characters.
 */
export function shownText(text: string, max: number): string {
  const cut = text.length > max ? `${text.slice(0, max)}…` : text;
  return cut.replace(UNSAFE_CHARACTERS, (character) => `\\u{${character.charCodeAt(0).toString(16)}}`);
}

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

function checkSchema(
  schema: unknown,
  what: string,
  compiler: UserSchemaCompiler,
  mustBeObject: boolean,
): string | undefined {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return `${what} is not an object`;
  const tooBig = jsonBoundsProblem(schema, 32, 20_000);
  if (tooBig) return `${what} is refused: ${tooBig}`;
  if (mustBeObject && (schema as JsonSchema)['type'] !== 'object') return `${what} must have "type": "object"`;
  const badPattern = unsupportedSchemaPatterns(schema)[0];
  if (badPattern) return `${what} has a pattern that cannot run in linear time: ${badPattern.error.message}`;
  try {
    compiler.compile(schema as JsonSchema);
  } catch (error) {
    return `${what} is not a valid JSON Schema: ${errorMessage(error)}`;
  }
  return undefined;
}

/**
 * The catalog entries for a server's listed tools. Tools left out by `include`/`exclude` are
 * skipped; a tool with a bad name, an invalid `inputSchema` or `outputSchema`, or an alias someone
 * else already holds (`taken`) is dropped with a problem and the rest stay. Aliases added here are
 * put in `taken`. `listedCount` is how many entries the server listed (more than `listed` when
 * the listing was cut).
 */
export function mcpToolSpecs(
  server: McpServerSpec,
  listed: readonly Tool[],
  compiler: UserSchemaCompiler,
  taken: Map<string, string>,
  listedCount = listed.length,
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
    const invalid =
      checkSchema(tool.inputSchema, 'its inputSchema', compiler, true) ??
      (tool.outputSchema !== undefined
        ? checkSchema(tool.outputSchema, 'its outputSchema', compiler, false)
        : undefined);
    if (invalid) {
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
    const override = server.overrides[name] ?? {};
    const trust = override.trust ?? server.trust;
    const text = (tool.description ?? tool.title ?? '')
      .replace(UNSAFE_CHARACTERS, '')
      .slice(0, MAX_MCP_DESCRIPTION_CHARS);
    tools.push({
      alias,
      // The server wrote the description; an untrusted server's words are labelled as such.
      description: trust === 'untrusted' ? `[from MCP server "${server.name}", untrusted] ${text}` : text,
      parameters: tool.inputSchema as JsonSchema,
      ...(tool.outputSchema !== undefined && { outputSchema: tool.outputSchema as JsonSchema }),
      trust,
      approval: override.approval ?? server.approval,
      taintCheck: override.taintCheck ?? server.taintCheck,
      settings: { kind: 'mcp', server: server.name, tool: name, timeoutMs: override.timeoutMs ?? server.timeoutMs },
      source: `${server.location.file} (MCP server "${server.name}")`,
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
