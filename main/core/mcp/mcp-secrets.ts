import type { McpServerSpec } from '../catalog/mcp-spec.js';
import { SECRET_LOOKING_NAME } from '../catalog/entry-checks.js';
import { redactSecrets } from '../secrets/redact.js';
import { SECRET_VARIABLE_NAME } from '../tools/tool-secrets.js';

/** Whether a variable or header of this name holds a secret (the command tools' rule, or the catalog's). */
function secretLooking(name: string): boolean {
  return SECRET_VARIABLE_NAME.test(name) || SECRET_LOOKING_NAME.test(name);
}

/**
 * The values the workspace's MCP servers get that the host knows without the keychain and must
 * redact from the run (its transcript, events and stdout), like command tools' secret-looking
 * variables: each stdio server's pass-through variables (`env: [GITHUB_TOKEN]`, or `NAME:` with no
 * value) whose name looks secret (see {@link SECRET_VARIABLE_NAME}) and that `env` sets, and the
 * literal values of secret-looking variables and headers written in tools.yaml (which the catalog
 * warns about). Keychain values (`{ secret: NAME }`) are not here: the run reads them through its
 * recording secret source. Each value once, in server order.
 */
export function mcpPassThroughSecrets(
  servers: readonly McpServerSpec[],
  env: NodeJS.ProcessEnv = process.env,
): string[] {
  const values = new Set<string>();
  for (const server of servers) for (const value of serverPassThroughSecrets(server, env)) values.add(value);
  return [...values];
}

/** {@link mcpPassThroughSecrets} for one server. */
export function serverPassThroughSecrets(server: McpServerSpec, env: NodeJS.ProcessEnv = process.env): string[] {
  const values: string[] = [];
  const entries: [string, unknown][] =
    server.transport.type === 'http' ? Object.entries(server.transport.headers) : Object.entries(server.transport.env);
  for (const [name, value] of entries) {
    if (!secretLooking(name)) continue;
    const known = value === null ? env[name] : typeof value === 'string' ? value : undefined;
    if (known !== undefined && known !== '') values.push(known);
  }
  return values;
}

/**
 * The secrets one workspace's MCP servers know, for redacting what the manager exposes (stderr
 * tails, errors, statuses, tool descriptions): every keychain value a server was started with, and
 * each server's {@link serverPassThroughSecrets}. Redaction catches them in any letter case and
 * encoding (URL, JSON, base64, hex...) and their fragments (see redactSecrets).
 */
export class McpSecretList {
  private readonly values = new Set<string>();
  /** Grows when a value is added: cached redactions are stale. */
  version = 0;

  /** Adds `value`, once. */
  add(value: string): void {
    if (value === '' || this.values.has(value)) return;
    this.values.add(value);
    this.version += 1;
  }

  /** Adds the servers' pass-through and literal secret-looking values, as `env` has them now. */
  addServers(servers: readonly McpServerSpec[], env: NodeJS.ProcessEnv = process.env): void {
    for (const value of mcpPassThroughSecrets(servers, env)) this.add(value);
  }

  list(): string[] {
    return [...this.values];
  }

  /** `text` with every known secret replaced by `[redacted]`. */
  redact(text: string): string {
    return this.values.size === 0 ? text : redactSecrets(text, [...this.values]);
  }
}
