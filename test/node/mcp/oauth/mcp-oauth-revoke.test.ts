import { afterEach, describe, expect, it } from 'vitest';
import { buildWorkspace } from '../../../../main/core/catalog/workspace.js';
import { McpServerManager } from '../../../../main/core/mcp/mcp-manager.js';
import type { OAuthLoginPort } from '../../../../main/core/mcp/oauth/mcp-oauth.js';
import { standInBrowser } from '../../../fixtures/stand-in-browser.js';
import { mapSecretStore } from '../../../fixtures/stubs.js';
import { startOAuthFixture, type OAuthFixture, type OAuthFixtureOptions } from '../fixtures/oauth-fixture.js';

/**
 * Signing out of an MCP server tells its authorization server (RFC 7009 token revocation), on
 * real loopback HTTP against the OAuth fixture, which records what reached its revocation
 * endpoint: both tokens, with the client's authentication as registered; the keychain (a
 * stand-in, in memory, named as such) is emptied whatever the server says, and a server that
 * could not be told is said, never a quiet success.
 */
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const browser: OAuthLoginPort = { openBrowser: async (url) => void (await standInBrowser(url)) };

async function signedIn(
  options: OAuthFixtureOptions = {},
  extra: { oauth?: string; secrets?: Record<string, string>; requestMs?: number } = {},
): Promise<{ server: OAuthFixture; keychain: ReturnType<typeof mapSecretStore>; mcp: McpServerManager }> {
  const server = await startOAuthFixture(options);
  cleanups.push(() => server.close());
  const keychain = mapSecretStore();
  const workspace = buildWorkspace('/', {
    'tools.yaml': `web:\n  kind: mcp\n  url: ${server.mcpUrl}\n${extra.oauth ?? ''}`,
  });
  const mcp = new McpServerManager({
    workspaceRoot: '/',
    servers: workspace.mcpServers ?? [],
    secrets: mapSecretStore(extra.secrets),
    keychain,
    ...(extra.requestMs !== undefined && { oauthTimeouts: { requestMs: extra.requestMs } }),
  });
  cleanups.push(() => mcp.close());
  await mcp.login('web', browser);
  expect(await mcp.callTool('web', 'whoami', {}, new AbortController().signal, 10_000)).toBe('you are signed in');
  return { server, keychain, mcp };
}

/** What the MCP server answers a request carrying `token` (200 while it is valid, 401 once revoked). */
async function statusWith(server: OAuthFixture, token: string): Promise<number> {
  const response = await fetch(server.mcpUrl, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    }),
  });
  await response.body?.cancel();
  return response.status;
}

describe('signing out of an MCP server revokes its tokens at the authorization server', () => {
  it('a public client: the refresh token, then the access token, each with its hint and the client id; both stop working', async () => {
    const { server, keychain, mcp } = await signedIn();
    const access = server.issued.at(-1)!;
    const refresh = server.refreshIssued.at(-1)!;
    expect(await statusWith(server, access)).toBe(200);

    expect(await mcp.logout('web')).toEqual({ removed: true, revoked: true });
    expect(server.revocations).toEqual([
      {
        token: refresh,
        hint: 'refresh_token',
        clientId: 'client-1',
        clientSecret: null,
        authorization: undefined,
        contentType: 'application/x-www-form-urlencoded',
      },
      {
        token: access,
        hint: 'access_token',
        clientId: 'client-1',
        clientSecret: null,
        authorization: undefined,
        contentType: 'application/x-www-form-urlencoded',
      },
    ]);
    expect(keychain.entries.size).toBe(0);
    // The server no longer takes them: the access token is refused, and so is a refresh.
    expect(await statusWith(server, access)).toBe(401);
    const refreshed = await fetch(`${server.asUrl}/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refresh, client_id: 'client-1' }),
    });
    expect(refreshed.status).toBe(400);
    expect((await mcp.loginState('web'))?.state).toBe('signed-out');
  });

  it('a client registered with client_secret_basic sends its id and secret in the Authorization header, not the body', async () => {
    const { server, mcp } = await signedIn({ clientAuth: 'client_secret_basic' });
    expect(await mcp.logout('web')).toEqual({ removed: true, revoked: true });
    expect(server.revocations).toHaveLength(2);
    for (const request of server.revocations)
      expect(request).toMatchObject({
        authorization: `Basic ${Buffer.from('client-1:secret-1').toString('base64')}`,
        clientId: null,
        clientSecret: null,
      });
  });

  it('a client registered with client_secret_post sends its id and secret in the body', async () => {
    const { server, mcp } = await signedIn({ clientAuth: 'client_secret_post' });
    expect(await mcp.logout('web')).toEqual({ removed: true, revoked: true });
    expect(server.revocations.map((request) => [request.hint, request.clientId, request.clientSecret])).toEqual([
      ['refresh_token', 'client-1', 'secret-1'],
      ['access_token', 'client-1', 'secret-1'],
    ]);
    expect(server.revocations.every((request) => request.authorization === undefined)).toBe(true);
  });

  it("a client the catalog pre-registered authenticates with its id and the keychain's secret", async () => {
    const { server, mcp } = await signedIn(
      { clientAuth: 'client_secret_post' },
      {
        oauth: '  oauth:\n    clientId: pre-1\n    clientSecret: { secret: web-client }\n',
        secrets: { 'web-client': 'pre-secret' },
      },
    );
    expect(server.hits.register).toBe(0);
    expect(await mcp.logout('web')).toEqual({ removed: true, revoked: true });
    expect(server.revocations.map((request) => [request.clientId, request.clientSecret])).toEqual([
      ['pre-1', 'pre-secret'],
      ['pre-1', 'pre-secret'],
    ]);
  });

  it('a sign-in kept before the revocation endpoint was recorded: the issuer metadata is read again at sign-out', async () => {
    const { server, keychain, mcp } = await signedIn();
    for (const [account, value] of keychain.entries) {
      const grant = JSON.parse(value) as Record<string, unknown>;
      if (!('revocation' in grant)) continue;
      delete grant['revocation'];
      keychain.entries.set(account, JSON.stringify(grant));
    }
    expect([...keychain.entries.values()].some((value) => value.includes('revocation'))).toBe(false);
    expect(await mcp.logout('web')).toEqual({ removed: true, revoked: true });
    expect(server.revocations.map((request) => request.hint)).toEqual(['refresh_token', 'access_token']);
  });

  it('nothing held: nothing is sent, and nothing is said to have been revoked', async () => {
    const server = await startOAuthFixture();
    cleanups.push(() => server.close());
    const workspace = buildWorkspace('/', { 'tools.yaml': `web:\n  kind: mcp\n  url: ${server.mcpUrl}\n` });
    const mcp = new McpServerManager({
      workspaceRoot: '/',
      servers: workspace.mcpServers ?? [],
      secrets: mapSecretStore(),
      keychain: mapSecretStore(),
    });
    cleanups.push(() => mcp.close());
    expect(await mcp.logout('web')).toEqual({ removed: false, revoked: false });
    expect(server.revocations).toEqual([]);
  });
});

describe('when the authorization server cannot be told, the keychain is emptied and the person is told so', () => {
  const notTold = /^the authorization server http:\/\/127\.0\.0\.1:\d+\/? was not told to revoke the tokens: /;

  it('no revocation endpoint in its metadata', async () => {
    const { server, keychain, mcp } = await signedIn({ revocation: 'none' });
    const outcome = await mcp.logout('web');
    expect(outcome).toMatchObject({ removed: true, revoked: false });
    expect(outcome.revokeProblem).toMatch(notTold);
    expect(outcome.revokeProblem).toMatch(
      /its metadata names no revocation endpoint; they stay valid there until they expire/,
    );
    expect(keychain.entries.size).toBe(0);
    expect(server.revocations).toEqual([]);
  });

  it('the authorization server is down', async () => {
    const { server, keychain, mcp } = await signedIn();
    await server.stopAuthorizationServer();
    const outcome = await mcp.logout('web');
    expect(outcome).toMatchObject({ removed: true, revoked: false });
    expect(outcome.revokeProblem).toMatch(notTold);
    expect(outcome.revokeProblem).toMatch(/\/revoke could not be reached/);
    expect(keychain.entries.size).toBe(0);
    expect((await mcp.loginState('web'))?.state).toBe('signed-out');
  });

  it('it refuses both tokens (400): each refusal is named, and no token appears in what the person reads', async () => {
    const { server, keychain, mcp } = await signedIn({ revocation: 'error' });
    const outcome = await mcp.logout('web');
    expect(outcome).toMatchObject({ removed: true, revoked: false });
    expect(outcome.revokeProblem).toMatch(
      /the refresh token: it answered 400 \(unsupported_token_type\); the access token: it answered 400 \(unsupported_token_type\)/,
    );
    expect(server.revocations).toHaveLength(2);
    for (const token of [...server.issued, ...server.refreshIssued]) expect(outcome.revokeProblem).not.toContain(token);
    expect(keychain.entries.size).toBe(0);
  });

  it('an endpoint on another origin, named in the issuer’s own metadata, is told (as the token endpoint is)', async () => {
    const { server, keychain, mcp } = await signedIn({ revocation: 'elsewhere' });
    const outcome = await mcp.logout('web');
    // The named origin (here the MCP server's, which does not revoke) got both tokens, and said no.
    expect(server.strayOnMcp).toEqual(['POST /revoke', 'POST /revoke']);
    expect(outcome).toMatchObject({ removed: true, revoked: false });
    expect(outcome.revokeProblem).toMatch(/the refresh token: it answered 404; the access token: it answered 404/);
    expect(server.revocations).toEqual([]);
    expect(keychain.entries.size).toBe(0);
  });

  it('a plain-http endpoint that is not this machine is refused before anything is sent', async () => {
    const { keychain, mcp } = await signedIn({ revocation: 'http' });
    const outcome = await mcp.logout('web');
    expect(outcome.revokeProblem).toMatch(/its revocation endpoint http:\/\/revoke\.example\/revoke is not https/);
    expect(keychain.entries.size).toBe(0);
  });

  it('an endpoint that redirects is not followed: the tokens go nowhere else, and the other token is not sent', async () => {
    const { server, keychain, mcp } = await signedIn({ revocation: 'redirect' });
    const outcome = await mcp.logout('web');
    expect(outcome).toMatchObject({ removed: true, revoked: false });
    expect(outcome.revokeProblem).toMatch(
      /answered 307 redirecting to http:\/\/127\.0\.0\.1:\d+\/revoke; a sign-in request does not follow redirects/,
    );
    expect(server.revocations.map((request) => request.hint)).toEqual(['refresh_token']);
    expect(server.strayOnMcp).toEqual([]);
    expect(keychain.entries.size).toBe(0);
  });

  it('an endpoint that never answers: sign-out ends after the request timeout, once, not once per token', async () => {
    const { server, keychain, mcp } = await signedIn({ revocation: 'hang' }, { requestMs: 400 });
    const outcome = await mcp.logout('web');
    expect(outcome).toMatchObject({ removed: true, revoked: false });
    expect(outcome.revokeProblem).toMatch(/\/revoke did not answer within 400 ms; they stay valid there/);
    expect(server.revocations.map((request) => request.hint)).toEqual(['refresh_token']);
    expect(keychain.entries.size).toBe(0);
  });
});
