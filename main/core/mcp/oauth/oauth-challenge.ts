// What an MCP server's 401 or 403 asks of the person: a sign-in, or more scopes (RFC 6750, RFC 9728).
import { extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';

/** A challenge of the server: 401 (sign in), or 403 insufficient_scope (more scopes). */
export interface Challenge {
  scope?: string;
  resourceMetadataUrl?: URL;
  stepUp: boolean;
}

/** The challenge of `response`, or undefined when it is none. */
export function challengeOf(response: Response): Challenge | undefined {
  if (response.status === 401) return { ...extractWWWAuthenticateParams(response), stepUp: false };
  if (response.status !== 403) return undefined;
  const params = extractWWWAuthenticateParams(response);
  return params.error === 'insufficient_scope' ? { ...params, stepUp: true } : undefined;
}
