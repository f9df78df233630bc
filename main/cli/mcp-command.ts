/**
 * `promptforge mcp list|login|logout`: the workspace's MCP servers (status, tools, sign-in), and
 * signing in to (or out of) one Streamable HTTP server with OAuth.
 */
import path from 'node:path';
import type { McpLoginStateView } from '../../common/mcp-person.js';
import { parse, unknownWord } from './cli-args.js';
import { InterruptedError, UsageError, untilInterrupted } from './cli-errors.js';
import type { CliIo, Printer } from './cli-io.js';
import { loadCatalogModules, workspaceRoot } from './cli-workspace.js';
import { EXIT } from './exit-codes.js';
import { decideWorkspaceTrust } from './trust-command.js';

const ACTIONS = ['list', 'login', 'logout'];

/** A server's sign-in in one line, never a token. */
function describeLogin(state: McpLoginStateView): string {
  switch (state.state) {
    case 'signed-out':
      return `not signed in (promptforge mcp login ${state.server})`;
    case 'unavailable':
      return `sign-in unknown: ${state.error ?? 'the keychain cannot be read'}`;
    case 'expired':
    case 'signed-in': {
      const parts = [
        state.state === 'expired' ? 'signed in, expired' : 'signed in',
        ...(state.account ? [`as ${state.account}`] : []),
        ...(state.issuer ? [`at ${state.issuer}`] : []),
      ];
      const extra = [
        ...(state.scopes?.length ? [`scopes ${state.scopes.join(' ')}`] : []),
        ...(state.expiresAt ? [`${state.state === 'expired' ? 'expired' : 'expires'} ${state.expiresAt}`] : []),
        ...(state.refreshable ? ['renewed without you'] : []),
      ];
      return `${parts.join(' ')}${extra.length ? ` (${extra.join(', ')})` : ''}`;
    }
  }
}

export async function mcpCommand(args: string[], io: CliIo, print: Printer, interrupt: AbortSignal): Promise<number> {
  const action = args.find((arg) => !arg.startsWith('-'));
  if (action === undefined) throw new UsageError('mcp needs list, login NAME or logout NAME');
  if (!ACTIONS.includes(action))
    throw new UsageError(unknownWord('mcp command', action, ACTIONS, 'use list, login NAME or logout NAME'));
  const { values, positionals } = parse(`mcp ${action}`, args, {
    workspace: { type: 'string' },
    ...(action === 'login' && { scope: { type: 'string' as const } }),
  });
  const [, ...names] = positionals;
  if (action === 'list' && names.length > 0) throw new UsageError('mcp list takes no arguments');
  if (action !== 'list' && names.length !== 1)
    throw new UsageError(`mcp ${action} takes one server name: promptforge mcp ${action} NAME`);
  const root = (await workspaceRoot(io, values.workspace)) ?? io.cwd;
  const { loadWorkspace, formatProblem } = await loadCatalogModules();
  const workspace = await loadWorkspace(root);
  for (const problem of workspace.problems) print.err(formatProblem(problem));
  const servers = workspace.mcpServers ?? [];
  if (servers.length === 0) {
    print.out(`No MCP servers in ${path.join(root, 'tools.yaml')} (add an entry with "kind: mcp").`);
    return action === 'list' ? EXIT.ok : EXIT.usage;
  }
  const name = names[0];
  if (name !== undefined && !servers.some((server) => server.name === name))
    throw new UsageError(
      unknownWord(
        'MCP server',
        name,
        servers.map((server) => server.name),
        `tools.yaml defines ${servers.map((server) => server.name).join(', ')}`,
      ),
    );
  // Listing starts every server, and a sign-in talks to the server the workspace names: only in
  // a trusted workspace, asked for as a run asks. Signing out contacts nothing and needs no trust.
  let trusted = workspace;
  if (action !== 'logout') {
    try {
      trusted = (
        await untilInterrupted(
          decideWorkspaceTrust(workspace, io, print, {
            restricted: false,
            what: action === 'list' ? 'list' : 'sign in',
            offerRestricted: false,
          }),
          interrupt,
        )
      ).workspace;
    } catch (error) {
      if (!(error instanceof InterruptedError)) throw error;
      print.say('interrupted (Ctrl-C)');
      return EXIT.stopped;
    }
  }
  const [{ scopedSecretUses, scopeWorkspaceSecrets, WorkspaceSecretStore }, { McpServerManager }] = await Promise.all([
    import('../core/trust/secret-scope.js'),
    import('../core/mcp/mcp-manager.js'),
  ]);
  const scoped = scopeWorkspaceSecrets(trusted);
  const keychain = io.secrets();
  const manager = new McpServerManager({
    workspaceRoot: root,
    servers: scoped.mcpServers ?? [],
    secrets: new WorkspaceSecretStore(keychain, root, scopedSecretUses(trusted)),
    reservedAliases: trusted.tools.list().map((tool) => tool.alias),
    keychain,
  });
  try {
    if (action === 'login') return await login(manager, name!, values.scope as string | undefined, print, interrupt);
    if (action === 'logout') {
      const state = await manager.loginState(name!);
      const outcome = await manager.logout(name!);
      if (!outcome.removed) print.out(`MCP server "${name}" (${state?.resource}) was not signed in.`);
      else
        print.out(
          `Signed out of MCP server "${name}" (${state?.resource}): its tokens are removed from the keychain${outcome.revoked ? ' and revoked by its authorization server' : ''}.`,
        );
      if (outcome.revokeProblem) print.err(`But ${outcome.revokeProblem}.`);
      return EXIT.ok;
    }
    const listed = await untilInterrupted(manager.listTools(), interrupt);
    for (const problem of listed.problems) print.err(formatProblem(problem));
    for (const status of manager.statuses()) {
      print.out(`${status.name} (${status.transport}): ${status.state}${status.error ? ` - ${status.error}` : ''}`);
      const login = await manager.loginState(status.name);
      if (login) print.out(`  sign-in: ${describeLogin(login)}`);
      for (const tool of status.tools)
        print.out(`  ${tool.alias}  ${tool.description.split('\n')[0]?.slice(0, 160) ?? ''}`);
      if (status.state !== 'ready' && status.stderrTail.trim())
        print.out(`  stderr: ${status.stderrTail.trim().split('\n').slice(-5).join('\n          ')}`);
    }
    return manager.statuses().every((status) => status.state === 'ready') ? EXIT.ok : EXIT.scriptError;
  } catch (error) {
    if (!(error instanceof InterruptedError)) throw error;
    print.say('interrupted (Ctrl-C)');
    return EXIT.stopped;
  } finally {
    await manager.close();
  }
}

/**
 * Signs in to `name`: the authorization URL is printed (never opened: the person opens it), and
 * the browser's return is read on a loopback port until it comes, the sign-in fails, or Ctrl-C.
 */
async function login(
  manager: import('../core/mcp/mcp-manager.js').McpServerManager,
  name: string,
  scope: string | undefined,
  print: Printer,
  interrupt: AbortSignal,
): Promise<number> {
  const scopes = scope
    ?.split(/[\s,]+/)
    .map((item) => item.trim())
    .filter(Boolean);
  try {
    const state = await manager.login(
      name,
      {
        openBrowser: (url, about) => {
          print.say(
            `to sign in to MCP server "${name}"${about.issuer ? ` (authorization server ${about.issuer})` : ''}, open this URL in your browser:`,
          );
          print.err(url);
          print.say('waiting for the browser to come back (Ctrl-C to stop)');
        },
      },
      { ...(scopes && scopes.length > 0 && { scopes }), signal: interrupt },
    );
    print.out(`MCP server "${name}": ${describeLogin(state)}`);
    return EXIT.ok;
  } catch (error) {
    if (interrupt.aborted) {
      print.say('interrupted (Ctrl-C): not signed in');
      return EXIT.stopped;
    }
    print.say(error instanceof Error ? error.message : String(error));
    return EXIT.scriptError;
  }
}
