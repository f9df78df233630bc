/** Where MCP sign-ins live: the OS keychain, one entry per resource and issuer, never per server name. */
import { createHash } from 'node:crypto';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { isPlainObject } from '../../../../common/json.js';
import type { SecretStore } from '../../credentials/secret-store.js';
import type { RevocationMetadata } from './oauth-revoke.js';

/** Tokens as kept: what the token endpoint answered, and when. */
export interface StoredTokens extends OAuthTokens {
  /** Milliseconds since the epoch when the tokens were received (their `expires_in` counts from there). */
  obtainedAt: number;
}

/** One sign-in: the tokens and client registration one authorization server gave for one resource. */
export interface OAuthGrant {
  resource: string;
  issuer: string;
  tokens?: StoredTokens;
  /** The client as registered with that issuer (dynamic registration or a metadata document URL). */
  client?: OAuthClientInformationMixed;
  /** Where and how the issuer revokes tokens, as its metadata said when the tokens came (absent in grants kept before this was recorded). */
  revocation?: RevocationMetadata;
}

/** Which issuers signed the resource in, the last one first. */
interface ResourceIndex {
  resource: string;
  issuers: string[];
}

function hashed(...parts: string[]): string {
  return createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 40);
}

/** The keychain account of the grant of `issuer` for `resource`. */
function grantAccount(resource: string, issuer: string): string {
  return `mcp-oauth/grant/${hashed(resource, issuer)}`;
}

function indexAccount(resource: string): string {
  return `mcp-oauth/resource/${hashed(resource)}`;
}

/** The canonical form of an issuer or resource URL: no fragment, no trailing slash on the path. */
export function canonicalUrl(url: string): string {
  const parsed = new URL(url);
  parsed.hash = '';
  const text = parsed.href;
  return parsed.search === '' && text.endsWith('/') ? text.slice(0, -1) : text;
}

function parse<T>(text: string | undefined, check: (value: Record<string, unknown>) => boolean): T | undefined {
  if (text === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return isPlainObject(value) && check(value) ? (value as T) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The sign-ins of MCP servers in the keychain. A grant is keyed by the resource (the server's URL)
 * and the issuer that granted it, so the same server reached under two catalog names shares one
 * sign-in, and a token is never offered to a resource or by an issuer it was not made for. A
 * small index per resource names its issuers (for the state shown and for sign-out).
 */
export class OAuthStore {
  constructor(private readonly keychain: SecretStore) {}

  async grant(resource: string, issuer: string): Promise<OAuthGrant | undefined> {
    const grant = parse<OAuthGrant>(
      await this.keychain.get(grantAccount(resource, issuer)),
      (value) => value['resource'] === resource && value['issuer'] === issuer,
    );
    return grant;
  }

  /** The issuer that last signed `resource` in, if any. */
  async currentIssuer(resource: string): Promise<string | undefined> {
    return (await this.index(resource))?.issuers[0];
  }

  async saveTokens(
    resource: string,
    issuer: string,
    tokens: OAuthTokens,
    revocation: RevocationMetadata,
  ): Promise<StoredTokens> {
    const grant = (await this.grant(resource, issuer)) ?? { resource, issuer };
    const stored: StoredTokens = { ...tokens, issuer, obtainedAt: Date.now() };
    await this.write({ ...grant, tokens: stored, revocation });
    return stored;
  }

  async saveClient(resource: string, issuer: string, client: OAuthClientInformationMixed): Promise<void> {
    const grant = (await this.grant(resource, issuer)) ?? { resource, issuer };
    await this.write({ ...grant, client: { ...client, issuer } });
  }

  /** Forgets the tokens (`tokens`), the client registration (`client`) or both of one grant. */
  async forget(resource: string, issuer: string, what: 'tokens' | 'client' | 'all'): Promise<void> {
    const grant = await this.grant(resource, issuer);
    if (!grant) return;
    const { tokens, client, ...rest } = grant;
    const kept: OAuthGrant = {
      ...rest,
      ...(what === 'client' && tokens && { tokens }),
      ...(what === 'tokens' && client && { client }),
    };
    if (what === 'all' || (!kept.tokens && !kept.client)) await this.keychain.delete(grantAccount(resource, issuer));
    else await this.keychain.set(grantAccount(resource, issuer), JSON.stringify(kept));
  }

  /** Every grant of `resource`, one per issuer that signed it in, the last one first. */
  async grants(resource: string): Promise<OAuthGrant[]> {
    const grants: OAuthGrant[] = [];
    for (const issuer of (await this.index(resource))?.issuers ?? []) {
      const grant = await this.grant(resource, issuer);
      if (grant) grants.push(grant);
    }
    return grants;
  }

  /** Removes every grant of `resource`; resolves true when something was removed. */
  async signOut(resource: string): Promise<boolean> {
    const index = await this.index(resource);
    let removed = false;
    for (const issuer of index?.issuers ?? [])
      if (await this.keychain.delete(grantAccount(resource, issuer))) removed = true;
    if (await this.keychain.delete(indexAccount(resource))) removed = true;
    return removed;
  }

  private async index(resource: string): Promise<ResourceIndex | undefined> {
    return parse<ResourceIndex>(
      await this.keychain.get(indexAccount(resource)),
      (value) =>
        value['resource'] === resource &&
        Array.isArray(value['issuers']) &&
        value['issuers'].every((issuer) => typeof issuer === 'string'),
    );
  }

  private async write(grant: OAuthGrant): Promise<void> {
    await this.keychain.set(grantAccount(grant.resource, grant.issuer), JSON.stringify(grant));
    const index = await this.index(grant.resource);
    const issuers = [grant.issuer, ...(index?.issuers ?? []).filter((issuer) => issuer !== grant.issuer)].slice(0, 8);
    if (index?.issuers[0] !== grant.issuer)
      await this.keychain.set(indexAccount(grant.resource), JSON.stringify({ resource: grant.resource, issuers }));
  }
}
