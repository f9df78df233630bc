/** Telling an authorization server that a sign-out's tokens are no longer wanted (RFC 7009 token revocation). */
import { discoverAuthorizationServerMetadata, selectClientAuthMethod } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed } from '@modelcontextprotocol/sdk/shared/auth.js';
import { errorMessage } from '../../../../common/error-message.js';
import { displayUrl } from '../../tools/bounded-text.js';
import { authErrorIn, endpointAllowedFor, McpAuthError, oauthFetch, secureEnough } from './oauth-fetch.js';
import { canonicalUrl, type OAuthGrant, type StoredTokens } from './oauth-store.js';

/** What a sign-out did: the keychain's part always; the authorization server's as far as it could be told. */
export interface SignOutOutcome {
  /** A sign-in was held and its entries left the keychain. */
  removed: boolean;
  /** The authorization server answered 200 to the revocation of every token held. */
  revoked: boolean;
  /** When tokens were held and the server was not told of them all: what it was not told, and why. */
  revokeProblem?: string;
}

/** What the authorization server said about revocation, as its metadata (RFC 8414) gave it at the last sign-in or refresh. */
export interface RevocationMetadata {
  revocation_endpoint?: string;
  revocation_endpoint_auth_methods_supported?: string[];
  token_endpoint_auth_methods_supported?: string[];
}

/** The revocation fields of authorization server metadata, and nothing else of it. */
export function revocationMetadata(
  metadata: { [field in keyof RevocationMetadata]?: RevocationMetadata[field] | undefined } | undefined,
): RevocationMetadata {
  const kept: RevocationMetadata = {};
  if (typeof metadata?.revocation_endpoint === 'string') kept.revocation_endpoint = metadata.revocation_endpoint;
  for (const field of [
    'revocation_endpoint_auth_methods_supported',
    'token_endpoint_auth_methods_supported',
  ] as const) {
    const methods = metadata?.[field];
    if (Array.isArray(methods)) kept[field] = methods.filter((method) => typeof method === 'string').slice(0, 16);
  }
  return kept;
}

/**
 * The revocation fields of `issuer`'s metadata, read now (for a sign-in kept before they were
 * recorded); metadata that names another issuer is refused.
 */
export async function readRevocationMetadata(issuer: string, timeoutMs: number): Promise<RevocationMetadata> {
  const metadata = await discoverAuthorizationServerMetadata(issuer, { fetchFn: oauthFetch({ timeoutMs }) });
  if (!metadata) return {};
  if (!URL.canParse(metadata.issuer) || canonicalUrl(metadata.issuer) !== issuer)
    throw new McpAuthError(
      'refused',
      `its metadata now names another issuer (${displayUrl(metadata.issuer)}), so it is not trusted with the tokens`,
    );
  return revocationMetadata(metadata);
}

/** How one revocation went: `revoked` when the server answered 200 for every token; else `problem` says what it was not told, and why. */
export interface RevocationOutcome {
  revoked: boolean;
  problem?: string;
}

export interface RevocationRequest {
  /** The issuer that granted the tokens (canonical URL). */
  issuer: string;
  metadata: RevocationMetadata;
  tokens: StoredTokens;
  /** The client as registered with the issuer (dynamic registration, or the catalog's client id and secret). */
  client: OAuthClientInformationMixed | undefined;
  /** Milliseconds each request may take. */
  timeoutMs: number;
}

/**
 * Revokes the refresh token (token_type_hint=refresh_token), then the access token, at the
 * issuer's `revocation_endpoint`, with the client's authentication chosen as the SDK chooses it
 * for the token endpoint. The endpoint must be https (http only on this machine), and on this
 * machine only when the issuer is too (endpointAllowedFor). It may be on
 * another origin than the issuer (Google's is): the issuer's own metadata names it, as it names
 * the token endpoint that already receives the refresh token and the client's secret. No redirect
 * is followed; each request ends after `timeoutMs`. Never throws: what went wrong is the outcome's
 * `problem`.
 */
export async function revokeTokens(request: RevocationRequest): Promise<RevocationOutcome> {
  const { issuer, metadata, tokens, client } = request;
  const endpoint = metadata.revocation_endpoint;
  const notTold = (why: string): RevocationOutcome => ({
    revoked: false,
    problem: `the authorization server ${displayUrl(issuer)} was not told to revoke the tokens: ${why}; they stay valid there until they expire (or revoke them in that server's account settings)`,
  });
  if (endpoint === undefined) return notTold('its metadata names no revocation endpoint');
  if (!secureEnough(endpoint))
    return notTold(`its revocation endpoint ${displayUrl(endpoint)} is not https (plain http only on this machine)`);
  if (!endpointAllowedFor(issuer, endpoint))
    return notTold(
      `its revocation endpoint ${displayUrl(endpoint)} is on this machine while the issuer is not, so nothing is sent there`,
    );
  if (!client) return notTold('the client registration with it is no longer known');

  const fetchFn = oauthFetch({ timeoutMs: request.timeoutMs });
  const method = selectClientAuthMethod(
    client,
    metadata.revocation_endpoint_auth_methods_supported ?? metadata.token_endpoint_auth_methods_supported ?? [],
  );
  const held: (readonly [token: string, hint: 'refresh_token' | 'access_token'])[] = [
    ...(tokens.refresh_token ? [[tokens.refresh_token, 'refresh_token'] as const] : []),
    [tokens.access_token, 'access_token'] as const,
  ];
  let basic: string | undefined;
  if (method === 'client_secret_basic') {
    if (client.client_secret === undefined) return notTold('client_secret_basic needs the client secret');
    try {
      // As the SDK sends it to the token endpoint, so the server sees the credentials it already accepted.
      basic = `Basic ${btoa(`${client.client_id}:${client.client_secret}`)}`;
    } catch {
      return notTold('the client id or secret cannot be sent with client_secret_basic');
    }
  }
  const failures: string[] = [];
  for (const [token, hint] of held) {
    const headers = new Headers({ 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' });
    const params = new URLSearchParams({ token, token_type_hint: hint });
    if (basic !== undefined) headers.set('Authorization', basic);
    else {
      params.set('client_id', client.client_id);
      if (method === 'client_secret_post' && client.client_secret !== undefined)
        params.set('client_secret', client.client_secret);
    }
    const name = hint === 'refresh_token' ? 'refresh token' : 'access token';
    try {
      const response = await fetchFn(endpoint, { method: 'POST', headers, body: params });
      const text = await response.text();
      if (response.status !== 200) failures.push(`the ${name}: it answered ${response.status}${oauthErrorOf(text)}`);
    } catch (error) {
      // A server that cannot be reached or does not answer is not asked again for the other token.
      const known = authErrorIn(error);
      const timedOut = known?.kind === 'timeout' || (error as { name?: unknown } | null)?.name === 'TimeoutError';
      const reason = timedOut
        ? `${displayUrl(endpoint)} did not answer within ${request.timeoutMs} ms`
        : (known?.message ?? `${displayUrl(endpoint)} could not be reached (${errorMessage(error).slice(0, 200)})`);
      return notTold([...failures, reason].join('; '));
    }
  }
  return failures.length === 0 ? { revoked: true } : notTold(failures.join('; '));
}

/**
 * Revokes one grant's `tokens` at its issuer, with the client `clientOf` gives (the catalog's, or
 * the one registered at sign-in). A grant kept before the revocation endpoint was recorded reads
 * the issuer's metadata again. Never throws.
 */
export async function revokeGrant(
  grant: OAuthGrant,
  tokens: StoredTokens,
  timeoutMs: number,
  clientOf: () => Promise<OAuthClientInformationMixed | undefined>,
): Promise<RevocationOutcome> {
  let metadata: RevocationMetadata | undefined = grant.revocation;
  let client: OAuthClientInformationMixed | undefined;
  try {
    metadata ??= await readRevocationMetadata(grant.issuer, timeoutMs);
    client = await clientOf();
  } catch (error) {
    return {
      revoked: false,
      problem: `the authorization server ${displayUrl(grant.issuer)} was not told to revoke the tokens: ${errorMessage(error).slice(0, 300)}; they stay valid there until they expire`,
    };
  }
  return revokeTokens({ issuer: grant.issuer, metadata, tokens, client, timeoutMs });
}

/** The OAuth error code of an error answer (RFC 6749 §5.2: lower-case words), if it has one; never its description, which may quote the token. */
function oauthErrorOf(text: string): string {
  try {
    const error = (JSON.parse(text) as { error?: unknown }).error;
    return typeof error === 'string' && /^[a-z_]{1,40}$/.test(error) ? ` (${error})` : '';
  } catch {
    return '';
  }
}
