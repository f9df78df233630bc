// Whether and how the host signs in to one MCP server: OAuth for a Streamable HTTP server that is not given an Authorization header.
import type { McpServerSpec } from '../catalog/mcp-spec.js';
import type { McpConnectionOptions } from './mcp-connection.js';
import type { McpSecretList } from './mcp-secrets.js';
import { McpOAuth } from './oauth/mcp-oauth.js';

/** The sign-in of the server `spec` describes, or undefined for one the host does not sign in to. */
export function serverOAuth(
  spec: McpServerSpec,
  options: McpConnectionOptions,
  secretList: McpSecretList,
): McpOAuth | undefined {
  const transport = spec.transport;
  if (transport.type === 'http' && !Object.keys(transport.headers).some((h) => h.toLowerCase() === 'authorization'))
    return new McpOAuth({
      server: spec.name,
      url: transport.url,
      ...(transport.oauth && { spec: transport.oauth }),
      ...(options.keychain && { keychain: options.keychain }),
      secrets: options.secrets,
      secretList,
      ...(options.login && { login: options.login }),
      ...(options.oauthTimeouts?.requestMs !== undefined && { requestTimeoutMs: options.oauthTimeouts.requestMs }),
      ...(options.oauthTimeouts?.loginMs !== undefined && { loginTimeoutMs: options.oauthTimeouts.loginMs }),
      surface: options.surface,
    });
  return undefined;
}

/** Why the server `spec` describes has no sign-in. */
export function noSignIn(spec: McpServerSpec): string {
  return spec.transport.type === 'http'
    ? `MCP server "${spec.name}" is given an Authorization header in tools.yaml, so the host does not sign in to it`
    : `MCP server "${spec.name}" is a stdio server: it has no sign-in`;
}
