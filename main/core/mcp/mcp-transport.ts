/** The transport to one MCP server: Streamable HTTP through the bounded fetch, or a stdio process tree. */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { errorMessage } from '../../../common/error-message.js';
import { SECRET_LOOKING_NAME } from '../catalog/entry-checks.js';
import type { McpServerSpec, SecretRef } from '../catalog/mcp-spec.js';
import type { SecretSource } from '../tools/http-runner.js';
import { CALL_MARKER_VARIABLE } from '../tools/process-tree.js';
import { checkInsideWorkspace } from '../tools/workspace-path.js';
import { serverFetch } from './mcp-http.js';
import { type McpSecretList, serverPassThroughSecrets } from './mcp-secrets.js';
import { ServerProcessTransport } from './mcp-stdio.js';
import type { McpOAuth } from './oauth/mcp-oauth.js';
import { wordsFor, type Surface } from '../surface-words.js';

/** The server could not be started or reached; the message says why and how to fix it. */
export class McpStartError extends Error {
  constructor(
    message: string,
    readonly serverText?: string,
    /** The server's name when it did not start because the person has to sign in to it. */
    readonly signIn?: string,
    /** What the server itself said while failing to start (redacted); it ends `message`. */
    readonly quoted?: string,
  ) {
    super(message);
    this.name = 'McpStartError';
  }
}

/** What {@link serverTransport} needs from its connection. */
export interface TransportContext {
  spec: McpServerSpec;
  workspaceRoot: string;
  /** The keychain: `{ secret: NAME }` env values and headers are read here, in main. */
  secrets: SecretSource;
  /** Every value read or passed through is added here, so it is redacted from what the host shows. */
  secretList: McpSecretList;
  /** Stops the server when it breaks a bound; `reason` says how, as "it ...". */
  onBroken: (reason: string) => void;
  /** Each chunk of a stdio server's stderr. */
  onStderr: (text: string) => void;
  /** The server's sign-in (a Streamable HTTP server without an Authorization header). */
  oauth?: McpOAuth;
  /** Where the person reads start failures: their advice names a command or a view (default `cli`). */
  surface?: Surface | undefined;
}

/** A new transport to `context.spec`'s server (not started). */
export async function serverTransport(context: TransportContext): Promise<Transport> {
  const { spec, secretList } = context;
  const transport = spec.transport;
  for (const value of serverPassThroughSecrets(spec)) secretList.add(value);
  if (transport.type === 'http') {
    const headers: Record<string, string> = {};
    const secretHeaders: string[] = [];
    for (const [name, value] of Object.entries(transport.headers)) {
      headers[name] = typeof value === 'string' ? value : await readSecret(context, value, `header "${name}"`);
      if (typeof value !== 'string' || SECRET_LOOKING_NAME.test(name)) secretHeaders.push(name);
    }
    // The access token is a secret header like the rest: it never leaves the server's origin.
    if (context.oauth) secretHeaders.push('Authorization');
    const bounded = serverFetch({ url: transport.url, secretHeaders, onBroken: context.onBroken });
    return new StreamableHTTPClientTransport(new URL(transport.url), {
      requestInit: { headers },
      fetch: context.oauth ? context.oauth.wrapFetch(bounded) : bounded,
      redirectPolicy: 'same-origin',
      reconnectionOptions: {
        maxRetries: 2,
        initialReconnectionDelay: 500,
        maxReconnectionDelay: 5000,
        reconnectionDelayGrowFactor: 2,
      },
    });
  }
  const root = context.workspaceRoot;
  const cwd = await serverCwd(spec.name, root, transport.cwd);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(transport.env)) {
    if (value === null) {
      const host = process.env[name];
      if (host !== undefined) env[name] = host;
    } else env[name] = typeof value === 'string' ? value : await readSecret(context, value, `variable "${name}"`);
  }
  env[CALL_MARKER_VARIABLE] = randomBytes(12).toString('hex');
  const command = transport.command.includes('/') ? path.resolve(root, transport.command) : transport.command;
  return new ServerProcessTransport({
    command,
    args: transport.args,
    cwd,
    env,
    onBroken: context.onBroken,
    onStderr: context.onStderr,
  });
}

/** A keychain value the server is started with; a missing or unreadable one fails the start, naming the fix. */
async function readSecret(context: TransportContext, ref: SecretRef, what: string): Promise<string> {
  const name = context.spec.name;
  let value: string | undefined;
  try {
    value = await context.secrets.get(ref.secret);
  } catch (error) {
    throw new McpStartError(
      `MCP server "${name}": cannot read keychain secret "${ref.secret}" for ${what}: ${errorMessage(error)}`,
    );
  }
  if (value === undefined)
    throw new McpStartError(
      `MCP server "${name}": ${what} names keychain secret "${ref.secret}", which is not in the keychain; ${wordsFor(context.surface).setSecret(ref.secret)}`,
    );
  context.secretList.add(value);
  return value;
}

/**
 * The real path of a stdio server's working directory (`cwd:`, relative to the workspace root;
 * the root by default). It is resolved through symbolic links and must be inside the
 * workspace's real path: a `cwd` that is, or passes through, a link leading outside the
 * workspace (to `/`, to a sibling folder) is refused with an error naming the server and the fix,
 * and the server is not started. The checked real path is what the server is started in.
 */
async function serverCwd(server: string, workspaceRoot: string, cwd: string | undefined): Promise<string> {
  const shown = cwd ?? '.';
  const subject = `MCP server "${server}": cwd "${shown}"`;
  const fix = 'set "cwd:" to a folder inside the workspace (relative to its root), then restart the server';
  let checked: ReturnType<typeof checkInsideWorkspace>;
  try {
    checked = checkInsideWorkspace(workspaceRoot, shown, { missing: 'refuse' });
  } catch {
    throw new McpStartError(
      `MCP server "${server}": the workspace folder cannot be read, so the server is not started`,
    );
  }
  if (!checked.ok) {
    if (checked.problem === 'outside') throw new McpStartError(`${subject} is outside the workspace; ${fix}`);
    if (checked.problem === 'link-outside')
      throw new McpStartError(
        `${subject} leads outside the workspace through a symbolic link, so the server is not started; ${fix} (not a link that leads out of it)`,
      );
    throw new McpStartError(
      checked.code === 'ENOENT' || checked.code === 'ENOTDIR'
        ? `${subject} does not exist; create the folder, or ${fix}`
        : `${subject} cannot be opened (${checked.code ?? 'error'}); ${fix}`,
    );
  }
  const stat = await fs.stat(checked.real).catch(() => undefined);
  if (!stat?.isDirectory()) throw new McpStartError(`${subject} is not a folder; ${fix}`);
  return checked.real;
}
