// What an MCP server's 401 or 403 asks of the person: a sign-in, or more scopes (RFC 6750, RFC 9728).
import { extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';

/** A challenge of the server: 401 (sign in), or 403 insufficient_scope (more scopes). */
export interface Challenge {
  scope?: string;
  resourceMetadataUrl?: URL;
  stepUp: boolean;
}

/**
 * The challenge of `response`, or undefined when it is none. The scope the server names is kept to
 * RFC 6749 scope tokens without `<`, `>` or a backtick, each at most 200 characters, 32 at most:
 * it is asked for at the authorization server and shown in the host's own words.
 */
export function challengeOf(response: Response): Challenge | undefined {
  if (response.status !== 401 && response.status !== 403) return undefined;
  const { scope, resourceMetadataUrl, error } = extractWWWAuthenticateParams(response);
  if (response.status === 403 && error !== 'insufficient_scope') return undefined;
  const token = /^[\x21\x23-\x3b=?-\x5b\x5d-\x5f\x61-\x7e]{1,200}$/;
  const named = (scope ?? '')
    .split(' ')
    .filter((part) => token.test(part))
    .slice(0, 32)
    .join(' ');
  return {
    ...(named && { scope: named }),
    ...(resourceMetadataUrl && { resourceMetadataUrl }),
    stepUp: response.status === 403,
  };
}
