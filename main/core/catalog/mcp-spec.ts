import type { ApprovalPolicy, Trust } from '../tools/tool-spec.js';

/** A value read from the OS keychain in the main process: `{ secret: NAME }`. */
export interface SecretRef {
  secret: string;
}

/**
 * An environment variable of a stdio server: `null` passes the host's value through, a string is a
 * literal, `{ secret: NAME }` is read from the keychain when the server starts.
 */
export type McpEnvValue = null | string | SecretRef;

/** How the host reaches a server. */
export type McpTransportSpec =
  | {
      type: 'stdio';
      /** The executable; a value with a slash is relative to the workspace root, else looked up on PATH. */
      command: string;
      args: string[];
      /** Working directory relative to the workspace root. */
      cwd?: string;
      /** The only variables the server gets (besides PATH and the process-tree marker). */
      env: Record<string, McpEnvValue>;
    }
  | {
      type: 'http';
      /** The Streamable HTTP endpoint. */
      url: string;
      headers: Record<string, string | SecretRef>;
      /** How the host signs in to the server (OAuth 2.1); absent: discovered when the server asks. */
      oauth?: McpOAuthSpec;
    };

/**
 * OAuth settings of a Streamable HTTP server (`oauth:` in tools.yaml). Sign-in happens whenever the
 * server asks for it (401); these only say how the host presents itself.
 */
export interface McpOAuthSpec {
  /** A client id registered with the server's authorization server beforehand. */
  clientId?: string;
  /** Its secret, from the keychain. */
  clientSecret?: SecretRef;
  /** An https URL of a Client ID Metadata Document describing this client, used where the server supports them. */
  clientMetadataUrl?: string;
  /** The scopes to ask for when the server's challenge names none. */
  scopes?: string[];
}

/** Per-tool overrides written under `tools:` of a server entry. */
interface McpToolOverride {
  trust?: Trust;
  approval?: ApprovalPolicy;
  timeoutMs?: number;
  taintCheck?: boolean;
}

/** A validated `kind: mcp` entry of tools.yaml: one server whose tools become catalog aliases. */
export interface McpServerSpec {
  /** The entry's key: the server name. */
  name: string;
  description?: string;
  transport: McpTransportSpec;
  /** Prepended to each tool name to make its alias. Default `<name>.`. */
  prefix: string;
  /** When set, only these tool names are exposed. */
  include?: string[];
  /** Tool names never exposed. */
  exclude: string[];
  /** Server-wide defaults: untrusted and ask. */
  trust: Trust;
  approval: ApprovalPolicy;
  taintCheck: boolean;
  /** Milliseconds a call may take (progress notifications reset it). */
  timeoutMs: number;
  /** Milliseconds from spawn until `initialize` answers. */
  startTimeoutMs: number;
  overrides: Record<string, McpToolOverride>;
  /** Where the entry is written, for problems found after the server answers. */
  location: { file: string; pointer: string; line: number; column: number };
}

/** Default milliseconds a call may run. */
export const DEFAULT_MCP_CALL_TIMEOUT_MS = 60_000;
/** Default milliseconds for a server to answer `initialize`. */
export const DEFAULT_MCP_START_TIMEOUT_MS = 20_000;

/** The keychain entries the servers' env values and headers name. */
export function mcpSecretNames(servers: readonly McpServerSpec[]): string[] {
  const names = new Set<string>();
  for (const server of servers) {
    const values =
      server.transport.type === 'http' ? Object.values(server.transport.headers) : Object.values(server.transport.env);
    for (const value of values) if (value !== null && typeof value === 'object') names.add(value.secret);
    if (server.transport.type === 'http' && server.transport.oauth?.clientSecret)
      names.add(server.transport.oauth.clientSecret.secret);
  }
  return [...names];
}
