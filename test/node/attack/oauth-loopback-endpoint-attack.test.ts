import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { checkEndpoints, endpointAllowedFor } from '../../../main/core/mcp/oauth/oauth-fetch.js';
import { revokeTokens } from '../../../main/core/mcp/oauth/oauth-revoke.js';

/**
 * A hostile authorization server on the internet names, in its metadata, an endpoint on this
 * machine (a local service on another port: a dev server, another MCP server, the studio's own
 * listeners). Plain http is allowed for loopback so that a local issuer can be used; it must not
 * turn a remote issuer into a way to make the host POST attacker-chosen form bodies (the "token"
 * is the attacker's own string) to a local service. Real loopback HTTP server as the local service.
 */
const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

async function localService(): Promise<{ url: string; hits: { url: string; body: string }[] }> {
  const hits: { url: string; body: string }[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      hits.push({ url: req.url ?? '', body });
      res.writeHead(200).end('{}');
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits };
}

describe('a remote issuer naming an endpoint on this machine', () => {
  it('gets no revocation request sent to a local service', async () => {
    const local = await localService();
    const outcome = await revokeTokens({
      issuer: 'https://auth.attacker.example/',
      metadata: { revocation_endpoint: `${local.url}/api/admin?x=1` },
      tokens: { access_token: 'action=delete-everything', token_type: 'Bearer', refresh_token: 'r', obtainedAt: 0 },
      client: { client_id: 'attacker-chosen', client_secret: 's' },
      timeoutMs: 5000,
    });
    expect(local.hits).toEqual([]);
    expect(outcome.revoked).toBe(false);
    expect(outcome.problem).toContain('on this machine');
    expect(outcome.problem).toContain('auth.attacker.example');
  });

  it('still revokes at a loopback endpoint when the issuer is itself on this machine', async () => {
    const local = await localService();
    const outcome = await revokeTokens({
      issuer: `${local.url}/`,
      metadata: { revocation_endpoint: `${local.url.replace('127.0.0.1', 'localhost')}/revoke` },
      tokens: { access_token: 'a', token_type: 'Bearer', obtainedAt: 0 },
      client: { client_id: 'c' },
      timeoutMs: 5000,
    });
    expect(outcome).toEqual({ revoked: true });
    expect(local.hits.map((hit) => hit.url)).toEqual(['/revoke']);
  });

  it('is refused for every endpoint main itself sends to, https on loopback and the IPv6 loopback too', () => {
    const remote = 'https://auth.example.com/';
    for (const endpoint of [
      'http://127.0.0.1:8080/token',
      'https://127.0.0.1:8443/token',
      'http://localhost:3000/register',
      'http://[::1]:9000/revoke',
      'http://127.1.2.3/revoke',
      'http://api.localhost/revoke',
    ])
      expect(endpointAllowedFor(remote, endpoint), endpoint).toBe(false);
    expect(endpointAllowedFor(remote, 'https://oauth2.googleapis.com/revoke')).toBe(true);
    expect(endpointAllowedFor(remote, 'http://auth.example.com/token')).toBe(false);
    expect(endpointAllowedFor('http://127.0.0.1:7000/', 'http://localhost:7001/token')).toBe(true);
    expect(endpointAllowedFor('http://localhost:7000/', 'https://auth.example.com/token')).toBe(true);
    expect(endpointAllowedFor(remote, 'not a url')).toBe(false);
  });

  it('refuses a sign-in whose remote issuer names a token or registration endpoint on this machine', () => {
    const remote = 'https://auth.example.com/';
    expect(() => checkEndpoints(remote, { token_endpoint: 'http://127.0.0.1:4000/token' })).toThrow(
      /token_endpoint http:\/\/127\.0\.0\.1:4000\/token is on this machine while the server https:\/\/auth\.example\.com\/? is not; refused/,
    );
    expect(() => checkEndpoints(remote, { registration_endpoint: 'https://localhost:4000/register' })).toThrow(
      /registration_endpoint .* is on this machine/,
    );
    expect(() => checkEndpoints(remote, { token_endpoint: 'http://auth.example.com/token' })).toThrow(/is not https/);
    expect(() =>
      checkEndpoints(remote, {
        authorization_endpoint: 'https://auth.example.com/authorize',
        token_endpoint: 'https://auth.example.com/token',
        registration_endpoint: 'https://auth.example.com/register',
      }),
    ).not.toThrow();
    expect(() =>
      checkEndpoints('http://127.0.0.1:7000/', { token_endpoint: 'http://127.0.0.1:7000/token' }),
    ).not.toThrow();
  });
});
