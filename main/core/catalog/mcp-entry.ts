import {
  DEFAULT_MCP_CALL_TIMEOUT_MS,
  DEFAULT_MCP_START_TIMEOUT_MS,
  type McpEnvValue,
  type McpServerSpec,
  type McpTransportSpec,
} from './mcp-spec.js';
import { toolFields, type ToolEntryYaml, toolFieldsFor } from './catalog-file-schemas.js';
import { lazy } from '../../../common/lazy.js';
import { toPointer } from '../../../common/json-pointer.js';
import type { CatalogProblem, LocatedYaml } from './catalog-problem.js';
import { cwdLeavesWorkspace, HEADER_NAME, httpUrlProblem, literalSecretWarning } from './entry-checks.js';

/** Fields of tool kinds that a server entry ignores (each tool's schema comes from the server). */
const serverIgnores = lazy(() => toolFields().filter((field) => !toolFieldsFor('mcp').has(field)));

/**
 * Checks a `kind: mcp` entry the published schema already accepted and turns it into a server
 * spec. Problems name the field and the fix; an entry with an error is dropped (undefined).
 */
export function toMcpServerSpec(
  located: LocatedYaml,
  name: string,
  segments: (string | number)[],
  entry: ToolEntryYaml,
  problems: CatalogProblem[],
): McpServerSpec | undefined {
  const at = (...more: (string | number)[]) => [...segments, ...more];
  const error = (where: (string | number)[], message: string, fix: string): undefined => {
    problems.push(located.problem('error', where, message, fix));
    return undefined;
  };
  const subject = `MCP server "${name}"`;
  for (const field of serverIgnores()) {
    if (field in entry)
      problems.push(
        located.problem(
          'warning',
          at(field),
          `"${field}" is ignored for an MCP server ("${name}"): each tool's schema comes from the server`,
          `Remove "${field}".`,
          { preferKey: true },
        ),
      );
  }

  let transport: McpTransportSpec;
  if (entry.url !== undefined) {
    for (const field of ['command', 'args', 'cwd', 'env'] as const) {
      if (entry[field] !== undefined)
        return error(
          at(field),
          `${subject} has both "url" and "${field}"`,
          'Use "url" (+ "headers") for a Streamable HTTP server, or "command" (+ "args", "cwd", "env") for a stdio server.',
        );
    }
    const urlProblem = httpUrlProblem(entry.url, 'http://127.0.0.1:3001/mcp');
    if (urlProblem) return error(at('url'), `${subject}: ${urlProblem.message}`, urlProblem.fix);
    const headers = entry.headers ?? {};
    for (const [header, value] of Object.entries(headers)) {
      if (!HEADER_NAME.test(header))
        return error(
          at('headers', header),
          `${subject}: "${header}" is not a valid HTTP header name`,
          'Use letters, digits and "-".',
        );
      const warning = literalSecretWarning(located, at('headers', header), subject, 'header', header, value);
      if (warning) problems.push(warning);
    }
    const oauth = entry.oauth;
    if (oauth) {
      if (Object.keys(headers).some((header) => header.toLowerCase() === 'authorization'))
        return error(
          at('oauth'),
          `${subject} has both an "Authorization" header and "oauth"`,
          'Remove the header to sign in with OAuth, or remove "oauth" to send the header.',
        );
      if (oauth.clientSecret && !oauth.clientId)
        return error(
          at('oauth', 'clientSecret'),
          `${subject}: "oauth.clientSecret" needs "oauth.clientId"`,
          'Add the client id the secret belongs to.',
        );
      if (oauth.clientMetadataUrl !== undefined) {
        const metadata = new URL(oauth.clientMetadataUrl);
        if (metadata.protocol !== 'https:' || metadata.pathname === '/')
          return error(
            at('oauth', 'clientMetadataUrl'),
            `${subject}: "oauth.clientMetadataUrl" must be an https URL with a path (it becomes the client id)`,
            'Use the https address of the JSON document describing this client, e.g. https://example.com/promptforge-client.json.',
          );
      }
    }
    transport = {
      type: 'http',
      url: entry.url,
      headers: structuredClone(headers),
      ...(oauth && {
        oauth: {
          ...(oauth.clientId !== undefined && { clientId: oauth.clientId }),
          ...(oauth.clientSecret && { clientSecret: { secret: oauth.clientSecret.secret } }),
          ...(oauth.clientMetadataUrl !== undefined && { clientMetadataUrl: oauth.clientMetadataUrl }),
          ...(oauth.scopes && { scopes: [...oauth.scopes] }),
        },
      }),
    };
  } else {
    if (entry.oauth !== undefined)
      return error(at('oauth'), `${subject}: "oauth" needs "url"`, 'Remove "oauth": a stdio server does not sign in.');
    if (entry.headers !== undefined)
      return error(
        at('headers'),
        `${subject}: "headers" needs "url"`,
        'Remove "headers", or use "url" for a Streamable HTTP server.',
      );
    const argv = typeof entry.command === 'string' ? [entry.command] : [...(entry.command ?? [])];
    const command = argv[0];
    if (command === undefined || command.trim() === '')
      return error(
        at('command'),
        `${subject}: "command" is empty`,
        'Set "command:" to the server executable, e.g. npx.',
      );
    if (Array.isArray(entry.command) && entry.args !== undefined && argv.length > 1)
      return error(
        at('args'),
        `${subject}: the arguments are given twice (in the "command" list and in "args")`,
        'Write "command: npx" and the rest under "args:", or the whole argv as the "command" list.',
      );
    if (entry.cwd !== undefined && cwdLeavesWorkspace(entry.cwd))
      return error(
        at('cwd'),
        `${subject}: cwd "${entry.cwd}" is outside the workspace`,
        'Use a folder relative to the workspace root.',
      );
    const env: Record<string, McpEnvValue> = {};
    if (Array.isArray(entry.env)) for (const variable of entry.env) env[variable] = null;
    else
      for (const [variable, value] of Object.entries(entry.env ?? {})) {
        env[variable] = value === null || typeof value === 'string' ? value : { secret: value.secret };
        const warning = literalSecretWarning(located, at('env', variable), subject, 'variable', variable, value);
        if (warning) problems.push(warning);
      }
    transport = {
      type: 'stdio',
      command,
      args: [...argv.slice(1), ...(entry.args ?? [])],
      ...(entry.cwd !== undefined && { cwd: entry.cwd }),
      env,
    };
  }

  const prefix = entry.prefix ?? `${name}.`;
  if (prefix !== '' && !/^[A-Za-z_]/.test(prefix))
    return error(
      at('prefix'),
      `${subject}: prefix "${prefix}" must start with a letter or "_"`,
      'Use e.g. "fs." or "fs_".',
    );
  const include = entry.include ? [...entry.include] : undefined;
  const exclude = [...(entry.exclude ?? [])];
  const location = located.locate(segments, true);
  return {
    name,
    ...(entry.description !== undefined && { description: entry.description }),
    transport,
    prefix,
    ...(include && { include }),
    exclude,
    trust: entry.trust ?? 'untrusted',
    approval: entry.approval ?? 'ask',
    taintCheck: entry.taintCheck ?? true,
    timeoutMs: entry.timeoutMs ?? DEFAULT_MCP_CALL_TIMEOUT_MS,
    startTimeoutMs: entry.startTimeoutMs ?? DEFAULT_MCP_START_TIMEOUT_MS,
    overrides: structuredClone(entry.tools ?? {}),
    location: { file: located.file, pointer: toPointer(segments), ...location },
  };
}
