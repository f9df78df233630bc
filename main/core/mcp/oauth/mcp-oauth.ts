/**
 * OAuth 2.1 sign-in to one Streamable HTTP MCP server, on the SDK's `auth()` (discovery, client
 * registration, PKCE, the `resource` parameter, scopes, refresh): what the SDK does not do is here
 * (the issuer check of the metadata, state and iss of the redirect, bounded retries and timeouts,
 * tokens in the keychain keyed by resource and issuer, and the person's part of the flow).
 */
import { randomBytes } from 'node:crypto';
import { auth, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  AuthorizationServerMetadata,
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { errorMessage } from '../../../../common/error-message.js';
import type { McpLoginStateView } from '../../../../common/mcp-person.js';
import type { McpOAuthSpec } from '../../catalog/mcp-spec.js';
import type { SecretStore } from '../../credentials/secret-store.js';
import { displayUrl } from '../../tools/bounded-text.js';
import type { SecretSource } from '../../tools/http-runner.js';
import type { McpSecretList } from '../mcp-secrets.js';
import {
  authErrorIn,
  checkEndpoints,
  McpAuthError,
  oauthFetch,
  OAUTH_REQUEST_TIMEOUT_MS,
  secureEnough,
} from './oauth-fetch.js';
import { challengeOf, type Challenge } from './oauth-challenge.js';
import { LOGIN_TIMEOUT_MS, LoopbackRedirect, type RedirectExpectation } from './oauth-redirect.js';
import { revocationMetadata, revokeGrant, type SignOutOutcome } from './oauth-revoke.js';
import { canonicalUrl, OAuthStore, type StoredTokens } from './oauth-store.js';
import { wordsFor, type Surface } from '../../surface-words.js';

/** Authorizations one request may go through before the host gives up on the server. */
export const MAX_AUTHORIZATIONS_PER_REQUEST = 3;
/** Tokens this close to their expiry are refreshed before they are used, in milliseconds. */
const EXPIRY_MARGIN_MS = 30_000;

/**
 * The person's part of a sign-in: the studio opens the URL in the system browser on the person's
 * click (shell.openExternal), the CLI prints it. The browser's return is read on loopback.
 */
export interface OAuthLoginPort {
  openBrowser(url: string, about: { server: string; issuer?: string }): void | Promise<void>;
}

/** What the studio and `promptforge mcp list` show about a server's sign-in (never a token). */
export type McpLoginState = McpLoginStateView;

export interface McpOAuthOptions {
  /** The catalog's name for the server, in messages only. */
  server: string;
  /** The server's endpoint: the protected resource. */
  url: string;
  spec?: McpOAuthSpec;
  /** The OS keychain (not a workspace's view of it): sign-ins are the person's, across workspaces. */
  keychain?: SecretStore;
  /** The workspace's secrets, for `oauth.clientSecret`. */
  secrets: SecretSource;
  /** Tokens and client secrets are added here, so nothing the host shows can carry them. */
  secretList: McpSecretList;
  /** When set, a sign-in the server asks for mid-use happens now, with the person; else it fails, saying how to sign in. */
  login?: OAuthLoginPort;
  requestTimeoutMs?: number;
  loginTimeoutMs?: number;
  /** Where the person reads the advice: a command, or the studio's button (default `cli`). */
  surface?: Surface | undefined;
}

/** One authorization in progress. */
interface Flow {
  port: OAuthLoginPort | undefined;
  redirect: LoopbackRedirect | undefined;
  expectation: RedirectExpectation;
  verifier?: string;
  issuer?: string;
  /** What discovery found last; undefined when it found none. */
  metadata?: AuthorizationServerMetadata | undefined;
  /** Set for a step-up or a forced sign-in: the tokens held are not offered for refresh. */
  fresh: boolean;
}

const PLACEHOLDER_REDIRECT = 'http://127.0.0.1/callback';

function sameOrigin(a: URL, b: URL): boolean {
  return a.protocol === b.protocol && a.host === b.host;
}

/** A claim naming the account in a JWT's payload (not verified: shown as the server's word). */
function accountClaim(token: string | undefined): string | undefined {
  const payload = token?.split('.')[1];
  if (!payload) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    for (const name of ['email', 'preferred_username', 'name', 'sub'])
      if (typeof claims[name] === 'string' && claims[name]) return (claims[name] as string).slice(0, 200);
  } catch {
    return undefined;
  }
  return undefined;
}

/**
 * Sign-in to one MCP server. {@link wrapFetch} wraps the transport's fetch: it attaches the
 * access token to requests for the server's origin only, refreshes it before it expires, and
 * answers the server's challenges (401, 403 insufficient_scope) by signing in again (at most
 * {@link MAX_AUTHORIZATIONS_PER_REQUEST} times per request). {@link login} is the person's
 * explicit sign-in; {@link logout} forgets it.
 */
export class McpOAuth {
  readonly resource: string;
  private readonly resourceUrl: URL;
  private readonly store: OAuthStore | undefined;
  private current: { issuer: string; tokens: StoredTokens } | undefined;
  private loaded = false;
  private authorizing: Promise<void> | undefined;
  private flow: Flow | undefined;

  constructor(private readonly options: McpOAuthOptions) {
    this.resource = canonicalUrl(options.url);
    this.resourceUrl = new URL(options.url);
    this.store = options.keychain ? new OAuthStore(options.keychain) : undefined;
  }

  /** The transport's fetch, with the sign-in around it. */
  wrapFetch(inner: (input: string | URL, init?: RequestInit) => Promise<Response>) {
    return async (input: string | URL, init?: RequestInit): Promise<Response> => {
      const target = new URL(input instanceof Request ? input.url : String(input));
      // A token goes to the server's own origin and nowhere else.
      if (!sameOrigin(target, this.resourceUrl)) return inner(input, init);
      await this.load();
      if (this.expired() && this.current?.tokens.refresh_token)
        await this.serialized(() => this.authorize({ stepUp: false }, undefined, init?.signal ?? undefined)).catch(
          () => undefined,
        );
      for (let attempt = 0; ; attempt += 1) {
        const sentWith = this.current?.tokens.access_token;
        const headers = new Headers(init?.headers);
        if (sentWith !== undefined) headers.set('Authorization', `Bearer ${sentWith}`);
        const response = await inner(input, { ...init, headers });
        const challenge = challengeOf(response);
        if (!challenge) return response;
        await response.body?.cancel().catch(() => undefined);
        if (attempt >= MAX_AUTHORIZATIONS_PER_REQUEST)
          throw new McpAuthError(
            'loop',
            `MCP server "${this.options.server}" asked for ${challenge.stepUp ? 'more scopes' : 'a sign-in'} again after ${MAX_AUTHORIZATIONS_PER_REQUEST} sign-ins for the same request; the host stopped asking (check the server's scopes, or sign out and in again with promptforge mcp logout ${this.options.server})`,
          );
        // Two requests answered 401 at once sign in once: the second waits and retries with the new token.
        await this.serialized(async () => {
          if (!challenge.stepUp && this.current?.tokens.access_token !== sentWith) return;
          await this.authorize(challenge, this.options.login, init?.signal ?? undefined);
        });
      }
    };
  }

  /**
   * Signs in now with the person: the authorization URL goes to `port.openBrowser`, and the
   * browser's return is read on loopback. `scopes` replace the catalog's. Tokens already held
   * are not refreshed: a new authorization is made.
   */
  async login(port: OAuthLoginPort, options: { scopes?: string[]; signal?: AbortSignal } = {}): Promise<McpLoginState> {
    const scope = (options.scopes ?? this.options.spec?.scopes)?.join(' ');
    await this.serialized(() =>
      this.authorize({ ...(scope && { scope }), stepUp: true }, port, options.signal, { fresh: true }),
    );
    return this.state();
  }

  /**
   * Forgets the server's sign-in (every issuer's tokens and registration) in the keychain, then
   * asks each issuer to revoke its tokens (RFC 7009). The keychain is emptied first and whatever
   * the servers answer; the outcome says plainly when a server could not be told.
   */
  async logout(): Promise<SignOutOutcome> {
    const store = this.requireStore();
    const grants = await store.grants(this.resource);
    this.current = undefined;
    this.loaded = true;
    const removed = await store.signOut(this.resource);
    const problems: string[] = [];
    let held = 0;
    for (const grant of grants) {
      if (!grant.tokens) continue;
      held += 1;
      this.remember(grant.tokens);
      const outcome = await revokeGrant(
        grant,
        grant.tokens,
        this.options.requestTimeoutMs ?? OAUTH_REQUEST_TIMEOUT_MS,
        async () =>
          this.options.spec?.clientId
            ? { client_id: this.options.spec.clientId, ...(await this.clientSecret()) }
            : grant.client,
      );
      if (outcome.problem) problems.push(outcome.problem);
    }
    return {
      removed,
      revoked: held > 0 && problems.length === 0,
      ...(problems.length > 0 && { revokeProblem: problems.join('; ') }),
    };
  }

  /** The catalog's client secret (`oauth.clientSecret`), read from the workspace's secrets, as `{ client_secret }`. */
  private async clientSecret(): Promise<{ client_secret?: string }> {
    const spec = this.options.spec;
    if (!spec?.clientSecret) return {};
    const value = await this.options.secrets.get(spec.clientSecret.secret);
    if (value === undefined)
      throw new McpAuthError(
        'refused',
        `MCP server "${this.options.server}": "oauth.clientSecret" names keychain secret "${spec.clientSecret.secret}", which is not in the keychain; ${wordsFor(this.options.surface).setSecret(spec.clientSecret.secret)}`,
      );
    this.options.secretList.add(value);
    return { client_secret: value };
  }

  /** The sign-in as the studio shows it; never the token. */
  async state(): Promise<McpLoginState> {
    const base = { server: this.options.server, resource: this.resource };
    try {
      this.loaded = false;
      await this.load();
    } catch (error) {
      return { ...base, state: 'unavailable', error: errorMessage(error) };
    }
    const held = this.current;
    if (!held) return { ...base, state: 'signed-out' };
    const { tokens, issuer } = held;
    const expiresAt =
      tokens.expires_in !== undefined
        ? new Date(tokens.obtainedAt + tokens.expires_in * 1000).toISOString()
        : undefined;
    const account = accountClaim(tokens.id_token) ?? accountClaim(tokens.access_token);
    return {
      ...base,
      state: this.expired() && !tokens.refresh_token ? 'expired' : 'signed-in',
      issuer,
      ...(account && { account }),
      ...(tokens.scope && { scopes: tokens.scope.split(' ').filter(Boolean) }),
      ...(expiresAt && { expiresAt }),
      refreshable: tokens.refresh_token !== undefined,
    };
  }

  private requireStore(): OAuthStore {
    if (!this.store)
      throw new McpAuthError(
        'refused',
        `MCP server "${this.options.server}" needs a sign-in, which is kept in the OS keychain, and no keychain is available here`,
      );
    return this.store;
  }

  private async load(): Promise<void> {
    if (this.loaded || !this.store) return;
    const issuer = await this.store.currentIssuer(this.resource);
    const grant = issuer === undefined ? undefined : await this.store.grant(this.resource, issuer);
    this.current = grant?.tokens && issuer ? { issuer, tokens: grant.tokens } : undefined;
    this.remember(this.current?.tokens);
    this.loaded = true;
  }

  private remember(tokens: OAuthTokens | undefined): void {
    if (!tokens) return;
    this.options.secretList.add(tokens.access_token);
    if (tokens.refresh_token) this.options.secretList.add(tokens.refresh_token);
    if (tokens.id_token) this.options.secretList.add(tokens.id_token);
  }

  private expired(): boolean {
    const tokens = this.current?.tokens;
    if (tokens?.expires_in === undefined) return false;
    return Date.now() > tokens.obtainedAt + tokens.expires_in * 1000 - EXPIRY_MARGIN_MS;
  }

  private serialized(work: () => Promise<void>): Promise<void> {
    const run = (this.authorizing ?? Promise.resolve()).then(work, work);
    const tracked = run.finally(() => {
      if (this.authorizing === tracked) this.authorizing = undefined;
    });
    this.authorizing = tracked.catch(() => undefined);
    return run;
  }

  private loginAdvice(): string {
    return wordsFor(this.options.surface).mcpSignIn(this.options.server);
  }

  /**
   * One authorization: a refresh when that is enough (and allowed), else the authorization code
   * flow with the person on `port`. Without a port, a flow that needs the person fails with
   * {@link McpAuthError} `login-required`.
   */
  private async authorize(
    challenge: Challenge,
    port: OAuthLoginPort | undefined,
    signal: AbortSignal | undefined,
    options: { fresh?: boolean } = {},
  ): Promise<void> {
    const store = this.requireStore();
    await this.load();
    const fresh = options.fresh === true || challenge.stepUp;
    const canRefresh = !fresh && this.current?.tokens.refresh_token !== undefined;
    if (!port && !canRefresh)
      throw new McpAuthError(
        'login-required',
        this.current
          ? `MCP server "${this.options.server}" ${challenge.stepUp ? `needs more scopes (${challenge.scope ?? 'unnamed'})` : 'no longer accepts the sign-in'}; ${this.loginAdvice()}`
          : `MCP server "${this.options.server}" needs you to sign in; ${this.loginAdvice()}`,
      );
    // A step-up asks for what the token has and what the server now names.
    const granted = this.current?.tokens.scope?.split(' ').filter(Boolean) ?? [];
    const asked = challenge.scope?.split(' ').filter(Boolean) ?? this.options.spec?.scopes ?? [];
    const scope = challenge.stepUp ? [...new Set([...granted, ...asked])].join(' ') : asked.join(' ');
    const redirect = port ? await LoopbackRedirect.start() : undefined;
    const expectation: RedirectExpectation = { state: randomBytes(24).toString('base64url'), issuerRequired: false };
    redirect?.expect(expectation);
    const flow: Flow = { port, redirect, expectation, fresh };
    this.flow = flow;
    const fetchFn = oauthFetch({
      timeoutMs: this.options.requestTimeoutMs ?? OAUTH_REQUEST_TIMEOUT_MS,
      ...(signal && { signal }),
    });
    const provider = this.provider(flow, store);
    const common = {
      serverUrl: this.options.url,
      ...(scope && { scope }),
      ...(challenge.resourceMetadataUrl && { resourceMetadataUrl: challenge.resourceMetadataUrl }),
      fetchFn,
    };
    try {
      let result = await auth(provider, common);
      if (result === 'REDIRECT') {
        const code = await redirect!.wait(signal, this.options.loginTimeoutMs ?? LOGIN_TIMEOUT_MS);
        result = await auth(provider, { ...common, authorizationCode: code });
      }
      if (result !== 'AUTHORIZED')
        throw new McpAuthError('refused', `the sign-in to MCP server "${this.options.server}" did not complete`);
    } catch (error) {
      throw this.describe(error);
    } finally {
      redirect?.close();
      if (this.flow === flow) this.flow = undefined;
    }
  }

  /** A sign-in failure as an McpAuthError naming the server. */
  private describe(error: unknown): McpAuthError {
    const known = authErrorIn(error);
    const subject = `signing in to MCP server "${this.options.server}"`;
    if (known) {
      if (known.kind === 'login-required' || known.message.includes(`"${this.options.server}"`)) return known;
      return new McpAuthError(known.kind, `${subject}: ${known.message}`);
    }
    const name = (error as { name?: unknown } | null)?.name;
    if (name === 'InvalidGrantError')
      return new McpAuthError('login-required', `${subject}: the sign-in is no longer valid; ${this.loginAdvice()}`);
    return new McpAuthError('refused', `${subject} failed: ${errorMessage(error).slice(0, 500)}`);
  }

  /** The SDK's view of this sign-in, for one flow. */
  private provider(flow: Flow, store: OAuthStore): OAuthClientProvider {
    const { spec, server } = this.options;
    const resource = this.resource;
    const issuerOf = (stamped?: string) => (stamped ? canonicalUrl(stamped) : flow.issuer);
    const preRegistered = spec?.clientId !== undefined;
    let clientSecret: { client_secret?: string } | undefined;
    const readSecret = async (): Promise<{ client_secret?: string }> => (clientSecret ??= await this.clientSecret());
    return {
      get redirectUrl() {
        return flow.redirect?.url ?? PLACEHOLDER_REDIRECT;
      },
      ...(spec?.clientMetadataUrl && { clientMetadataUrl: spec.clientMetadataUrl }),
      get clientMetadata(): OAuthClientMetadata {
        return {
          client_name: 'PromptForge Studio',
          redirect_uris: [flow.redirect?.url ?? PLACEHOLDER_REDIRECT],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
        };
      },
      state: () => flow.expectation.state,
      clientInformation: async (): Promise<OAuthClientInformationMixed | undefined> => {
        if (preRegistered) {
          return { client_id: spec!.clientId!, ...(await readSecret()) };
        }
        const issuer = issuerOf();
        return issuer === undefined ? undefined : (await store.grant(resource, issuer))?.client;
      },
      saveClientInformation: async (client) => {
        // A pre-registered client is the catalog's; it is not stored.
        if (preRegistered) return;
        const issuer = issuerOf(client.issuer);
        if (issuer !== undefined) await store.saveClient(resource, issuer, client);
      },
      tokens: async () => {
        if (flow.fresh) return undefined;
        const issuer = issuerOf();
        return issuer === undefined ? undefined : (await store.grant(resource, issuer))?.tokens;
      },
      saveTokens: async (tokens) => {
        const issuer = issuerOf(tokens.issuer);
        if (issuer === undefined) throw new McpAuthError('refused', 'the token came from an unknown issuer; refused');
        this.remember(tokens);
        const stored = await store.saveTokens(resource, issuer, tokens, revocationMetadata(flow.metadata));
        this.current = { issuer, tokens: stored };
        this.loaded = true;
        flow.fresh = false;
      },
      redirectToAuthorization: async (url) => {
        if (!flow.port || !flow.redirect)
          throw new McpAuthError(
            'login-required',
            `MCP server "${server}" needs you to sign in; ${this.loginAdvice()}`,
          );
        if (!secureEnough(url.href))
          throw new McpAuthError(
            'refused',
            `the authorization endpoint ${displayUrl(url.href)} is not https; the sign-in is refused`,
          );
        await flow.port.openBrowser(url.href, { server, ...(flow.issuer && { issuer: flow.issuer }) });
      },
      saveCodeVerifier: (verifier) => {
        flow.verifier = verifier;
      },
      codeVerifier: () => {
        if (!flow.verifier) throw new McpAuthError('refused', 'no sign-in is in progress');
        return flow.verifier;
      },
      invalidateCredentials: async (scope) => {
        const issuer = issuerOf();
        if (scope === 'verifier') delete flow.verifier;
        if (issuer === undefined || scope === 'verifier' || scope === 'discovery') return;
        if (scope === 'tokens' || scope === 'all') {
          flow.fresh = true;
          if (this.current?.issuer === issuer) this.current = undefined;
        }
        await store.forget(resource, issuer, scope === 'client' ? 'client' : scope === 'tokens' ? 'tokens' : 'all');
      },
      saveDiscoveryState: (state) => {
        const issuer = canonicalUrl(state.authorizationServerUrl);
        const metadata = state.authorizationServerMetadata;
        if (metadata) {
          // RFC 8414 §3.3: the metadata's issuer is the server the resource named. Without
          // protected-resource metadata (the 2025-03-26 revision) the server's own origin is the
          // authorization server, and an issuer on that origin is accepted.
          const named = state.resourceMetadata !== undefined;
          let claimed: string;
          try {
            claimed = canonicalUrl(metadata.issuer);
          } catch {
            claimed = metadata.issuer;
          }
          const sameServer = named
            ? claimed === issuer
            : URL.canParse(claimed) && new URL(claimed).origin === new URL(issuer).origin;
          if (!sameServer)
            throw new McpAuthError(
              'refused',
              `the authorization server at ${displayUrl(issuer)} says its issuer is ${displayUrl(metadata.issuer)}; metadata that names another server is refused`,
            );
          checkEndpoints(issuer, metadata);
        }
        flow.issuer = issuer;
        flow.metadata = metadata;
        flow.expectation.issuer = metadata?.issuer;
        flow.expectation.issuerRequired =
          (metadata as { authorization_response_iss_parameter_supported?: unknown } | undefined)
            ?.authorization_response_iss_parameter_supported === true;
      },
    };
  }
}
