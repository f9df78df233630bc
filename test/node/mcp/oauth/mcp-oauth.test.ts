import { afterEach, describe, expect, it } from 'vitest';
import { buildWorkspace } from '../../../../main/core/catalog/workspace.js';
import { McpServerManager } from '../../../../main/core/mcp/mcp-manager.js';
import type { OAuthLoginPort } from '../../../../main/core/mcp/oauth/mcp-oauth.js';
import { standInBrowser } from '../../../fixtures/stand-in-browser.js';
import { startOAuthFixture, type OAuthFixture, type OAuthFixtureOptions } from '../fixtures/oauth-fixture.js';
import { mapSecretStore, noSecrets } from '../../../fixtures/stubs.js';

/**
 * Signing in to a Streamable HTTP MCP server with OAuth 2.1, end to end on loopback: the SDK's
 * discovery, dynamic registration and PKCE through McpOAuth, the loopback redirect, tokens in
 * the keychain (a stand-in, in memory, named as such), refresh, and sign-out.
 */
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

export async function fixture(options: OAuthFixtureOptions = {}): Promise<OAuthFixture> {
  const made = await startOAuthFixture(options);
  cleanups.push(() => made.close());
  return made;
}

export function manager(
  url: string,
  keychain: ReturnType<typeof mapSecretStore>,
  extra: { name?: string; login?: OAuthLoginPort; requestMs?: number; loginMs?: number } = {},
): McpServerManager {
  const name = extra.name ?? 'web';
  const workspace = buildWorkspace('/', { 'tools.yaml': `${name}:\n  kind: mcp\n  url: ${url}\n` });
  const made = new McpServerManager({
    workspaceRoot: '/',
    servers: workspace.mcpServers ?? [],
    secrets: noSecrets,
    keychain,
    ...(extra.login && { login: extra.login }),
    oauthTimeouts: {
      ...(extra.requestMs !== undefined && { requestMs: extra.requestMs }),
      ...(extra.loginMs !== undefined && { loginMs: extra.loginMs }),
    },
  });
  cleanups.push(() => made.close());
  return made;
}

/** The person's browser (a stand-in): opens the URL and follows the redirects back to the host. */
export const browser: OAuthLoginPort = { openBrowser: async (url) => void (await standInBrowser(url)) };

describe('signing in to an MCP server', () => {
  it('without a sign-in the server is not started, and the problem says how to sign in', async () => {
    const server = await fixture();
    const mcp = manager(server.mcpUrl, mapSecretStore());
    const listed = await mcp.listTools();
    expect(listed.tools).toEqual([]);
    expect(listed.problems[0]?.message).toMatch(
      /MCP server "web" needs you to sign in; sign in with `promptforge mcp login web`/,
    );
    expect(server.hits.authorize).toBe(0);
  });

  it('login: discovery, registration, PKCE and the redirect; the token goes to the server, the keychain keeps it by resource and issuer, the state never shows it', async () => {
    const server = await fixture();
    const keychain = mapSecretStore();
    const mcp = manager(server.mcpUrl, keychain);
    const state = await mcp.login('web', browser);
    expect(state).toMatchObject({
      server: 'web',
      resource: server.mcpUrl,
      state: 'signed-in',
      issuer: server.asUrl,
      scopes: ['mcp:read'],
      refreshable: true,
    });
    expect(Date.parse(state.expiresAt!)).toBeGreaterThan(Date.now());
    expect(JSON.stringify(state)).not.toContain(server.issued[0]);
    expect(server.hits).toMatchObject({ register: 1, authorize: 1, token: 1 });
    // Keyed by resource and issuer: no entry is named after the catalog's server name.
    const accounts = [...keychain.entries.keys()];
    expect(accounts).toHaveLength(2);
    expect(accounts.every((account) => account.startsWith('mcp-oauth/') && !account.includes('web'))).toBe(true);
    expect([...keychain.entries.values()].filter((value) => value.includes(server.issued[0]!))).toHaveLength(1);

    const listed = await mcp.listTools();
    expect(listed.tools.map((tool) => tool.alias)).toEqual(['web.whoami']);
    expect(await mcp.callTool('web', 'whoami', {}, new AbortController().signal, 10_000)).toBe('you are signed in');
    expect(server.mcpAuthorizations.at(-1)).toBe(`Bearer ${server.issued[0]}`);
    // The token is a secret of the run: it is redacted from what the host shows.
    expect(mcp.statuses()[0]!.stderrTail).not.toContain(server.issued[0]);

    // Another catalog name for the same server URL uses the same sign-in.
    const again = manager(server.mcpUrl, keychain, { name: 'same-server' });
    expect(await again.callTool('same-server', 'whoami', {}, new AbortController().signal, 10_000)).toBe(
      'you are signed in',
    );
    expect(server.hits.authorize).toBe(1);

    // Signing out removes every entry; the server asks for a sign-in again.
    expect(await mcp.logout('web')).toEqual({ removed: true, revoked: true });
    expect(keychain.entries.size).toBe(0);
    expect((await mcp.loginState('web'))?.state).toBe('signed-out');
    expect((await manager(server.mcpUrl, keychain).listTools()).problems[0]?.message).toMatch(/needs you to sign in/);
  });

  it('an access token about to expire is refreshed before it is used', async () => {
    const server = await fixture({ expiresIn: 1 });
    const keychain = mapSecretStore();
    const mcp = manager(server.mcpUrl, keychain);
    await mcp.login('web', browser);
    expect(await mcp.callTool('web', 'whoami', {}, new AbortController().signal, 10_000)).toBe('you are signed in');
    expect(server.hits.refresh).toBeGreaterThanOrEqual(1);
    expect(server.mcpAuthorizations.at(-1)).toBe(`Bearer ${server.issued.at(-1)}`);
    expect(server.issued.length).toBeGreaterThan(1);
  });

  it('a stdio server, or one given an Authorization header, has no sign-in', async () => {
    const workspace = buildWorkspace('/', {
      'tools.yaml':
        'local:\n  kind: mcp\n  command: node\nkeyed:\n  kind: mcp\n  url: http://127.0.0.1:9/mcp\n  headers:\n    Authorization: { secret: k }\n',
    });
    const mcp = new McpServerManager({
      workspaceRoot: '/',
      servers: workspace.mcpServers ?? [],
      secrets: noSecrets,
    });
    cleanups.push(() => mcp.close());
    expect(await mcp.loginState('local')).toBeUndefined();
    expect(await mcp.loginState('keyed')).toBeUndefined();
    await expect(mcp.login('local', browser)).rejects.toThrow(/is a stdio server: it has no sign-in/);
    await expect(mcp.login('keyed', browser)).rejects.toThrow(/given an Authorization header/);
  });
});
