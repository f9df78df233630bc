import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { buildWorkspace } from '../../../main/core/catalog/workspace.js';
import { McpServerManager } from '../../../main/core/mcp/mcp-manager.js';
import type { OAuthLoginPort } from '../../../main/core/mcp/oauth/mcp-oauth.js';
import { elicitationUrlProblem } from '../../../main/core/mcp/mcp-elicitation.js';
import { secureEnough } from '../../../main/core/mcp/oauth/oauth-fetch.js';
import { standInBrowser } from '../../fixtures/stand-in-browser.js';
import { startOAuthFixture, type OAuthFixtureOptions } from '../mcp/fixtures/oauth-fixture.js';
import { mapSecretStore, noSecrets } from '../../fixtures/stubs.js';

/**
 * A hostile authorization server, or a hostile MCP server behind one: each attack against the
 * sign-in fails with a message that names what was wrong, within its bound, and gives no token
 * to anyone it was not made for. The browser is a stand-in (named as such).
 */
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(
  options: OAuthFixtureOptions,
  extra: { login?: OAuthLoginPort; requestMs?: number; loginMs?: number } = {},
) {
  const server = await startOAuthFixture(options);
  cleanups.push(() => server.close());
  const keychain = mapSecretStore();
  const workspace = buildWorkspace('/', { 'tools.yaml': `web:\n  kind: mcp\n  url: ${server.mcpUrl}\n` });
  const mcp = new McpServerManager({
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
  cleanups.push(() => mcp.close());
  return { server, keychain, mcp };
}

const browser: OAuthLoginPort = { openBrowser: async (url) => void (await standInBrowser(url)) };
/** A browser that navigates on its own (the host does not wait for it to load). */
const detachedBrowser: OAuthLoginPort = {
  openBrowser: (url) => void standInBrowser(url).catch(() => undefined),
};

describe('attacks on the sign-in', () => {
  it('metadata that names an issuer on another origin is refused before the browser is sent anywhere', async () => {
    const { server, mcp, keychain } = await setup({ issuer: 'https://evil.example' });
    await expect(mcp.login('web', browser)).rejects.toThrow(
      /says its issuer is https:\/\/evil\.example\/?; metadata that names another server is refused/,
    );
    expect(server.hits.authorize).toBe(0);
    expect(keychain.entries.size).toBe(0);
  });

  it('a metadata endpoint that redirects elsewhere is not followed', async () => {
    const { server, mcp } = await setup({
      metadataRedirect: 'https://evil.example/.well-known/oauth-authorization-server',
    });
    await expect(mcp.login('web', browser)).rejects.toThrow(/a sign-in request does not follow redirects/);
    expect(server.hits.register + server.hits.authorize).toBe(0);
  });

  it('a redirect that goes somewhere else than the loopback listener never completes: the sign-in ends at its bound, saying why', async () => {
    const { mcp, keychain } = await setup({ authorize: 'elsewhere' }, { loginMs: 1000 });
    await expect(mcp.login('web', detachedBrowser)).rejects.toThrow(
      /nobody finished signing in within 1 s; start the sign-in again/,
    );
    expect([...keychain.entries.values()].some((value) => value.includes('access-'))).toBe(false);
  });

  it.each([
    ['no-state', /the redirect carries no state; refused/],
    ['wrong-state', /the redirect's state does not match the one this sign-in sent; refused/],
    [
      'wrong-iss',
      /the redirect says it comes from issuer "https:\/\/evil\.example", not http:\/\/127\.0\.0\.1:\d+; refused/,
    ],
    ['error', /the authorization server refused the sign-in: access_denied/],
  ] as const)('a redirect with %s is refused and no code is exchanged', async (authorize, message) => {
    const { server, mcp } = await setup({ authorize, sendIss: authorize === 'wrong-iss' });
    await expect(mcp.login('web', browser)).rejects.toThrow(message);
    expect(server.hits.token).toBe(0);
  });

  it('a redirect without iss, when the server promised one (RFC 9207), is refused', async () => {
    const { server, mcp } = await setup({ issRequired: true, sendIss: false });
    await expect(mcp.login('web', browser)).rejects.toThrow(/carries no iss, which the authorization server promised/);
    expect(server.hits.token).toBe(0);
  });

  it('with iss promised and sent right, the sign-in completes', async () => {
    const { mcp } = await setup({ issRequired: true, sendIss: true });
    expect((await mcp.login('web', browser)).state).toBe('signed-in');
  });

  it('a token endpoint that hangs ends the sign-in at its bound, naming the endpoint', async () => {
    const { mcp } = await setup({ tokenHangs: true }, { requestMs: 500 });
    await expect(mcp.login('web', browser)).rejects.toThrow(
      /signing in to MCP server "web": http:\/\/127\.0\.0\.1:\d+\/token did not answer within 500 ms; the sign-in stopped/,
    );
  });

  it('a revoked refresh token: the tokens are forgotten and the call asks the person to sign in again', async () => {
    const { server, mcp, keychain } = await setup({ expiresIn: 1, refresh: 'revoked' });
    await mcp.login('web', browser);
    await expect(mcp.callTool('web', 'whoami', {}, new AbortController().signal, 10_000)).rejects.toThrow(
      /MCP server "web" needs you to sign in; sign in with `promptforge mcp login web`/,
    );
    expect(server.hits.refresh).toBeGreaterThanOrEqual(1);
    expect([...keychain.entries.values()].some((value) => value.includes('"access_token"'))).toBe(false);
  });

  it('a server that asks for a sign-in again and again is given three, then the host stops asking', async () => {
    const { server, mcp } = await setup({ alwaysUnauthorized: true }, { login: browser });
    const listed = await mcp.listTools();
    expect(listed.problems[0]?.message).toMatch(
      /asked for a sign-in again after 3 sign-ins for the same request; the host stopped asking/,
    );
    // A sign-in, then renewals of it: three in all, never a fourth.
    expect(server.hits.authorize).toBe(1);
    expect(server.hits.authorize + server.hits.refresh).toBe(3);
  });

  it('a server that redirects a signed-in request to another origin: the token does not follow', async () => {
    const seen: (string | undefined)[] = [];
    const other = createServer((req, res) => {
      seen.push(req.headers.authorization);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => other.close(() => resolve())));
    const elsewhere = `http://127.0.0.1:${(other.address() as AddressInfo).port}/mcp`;
    const { mcp } = await setup({ redirectMcpTo: elsewhere });
    await mcp.login('web', browser);
    const listed = await mcp.listTools();
    expect(listed.problems[0]?.message).toMatch(/redirecting to http:\/\/127\.0\.0\.1:\d+\/mcp, outside the origin/);
    expect(seen).toEqual([]);
  });

  it('plain http to another machine is never a sign-in endpoint; loopback http and https are', () => {
    expect(secureEnough('http://example.com/token')).toBe(false);
    expect(secureEnough('http://127.0.0.1:8080/token')).toBe(true);
    expect(secureEnough('http://localhost/token')).toBe(true);
    expect(secureEnough('https://example.com/token')).toBe(true);
    expect(secureEnough('javascript:alert(1)')).toBe(false);
    expect(secureEnough('file:///etc/passwd')).toBe(false);
  });

  it('a URL elicitation is refused for every scheme but https (and loopback http), for credentials and control characters', () => {
    expect(elicitationUrlProblem('https://example.com/a')).toBeUndefined();
    expect(elicitationUrlProblem('http://127.0.0.1:3000/a')).toBeUndefined();
    for (const bad of [
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      'file:///etc/passwd',
      'data:text/html,x',
      'vbscript:x',
      'ftp://example.com',
      'http://example.com',
      'https://user:pass@example.com',
      'https://example.com/\u202eevil',
      'https://exa mple.com',
    ])
      expect(elicitationUrlProblem(bad), bad).toBeDefined();
  });
});
