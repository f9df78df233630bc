import type { Workspace } from './workspace.js';

/**
 * The keychain secrets a workspace's catalogs name (`{ secret: NAME }` in an http tool's headers,
 * or in an MCP server's `env` or `headers`), each with where it is used, e.g.
 * `search (Authorization)` or `MCP server github (header Authorization)`. Names come in the
 * order tools.yaml first uses them. Only names and places: the values stay in the keychain, under
 * the same entry (service "PromptForge Studio", the name as the account) for the CLI's
 * `promptforge keys set NAME` and the studio's Credentials view.
 */
export function workspaceSecrets(workspace: Workspace | undefined): Map<string, string[]> {
  const secrets = new Map<string, string[]>();
  const use = (name: string, where: string): void => {
    secrets.set(name, [...(secrets.get(name) ?? []), where]);
  };
  for (const server of workspace?.mcpServers ?? []) {
    const named =
      server.transport.type === 'http'
        ? Object.entries(server.transport.headers).map(([header, value]) => [`header ${header}`, value] as const)
        : Object.entries(server.transport.env).map(([variable, value]) => [`env ${variable}`, value] as const);
    for (const [where, value] of named) {
      if (value === null || typeof value === 'string') continue;
      use(value.secret, `MCP server ${server.name} (${where})`);
    }
  }
  for (const tool of workspace?.tools.list() ?? []) {
    if (tool.settings.kind !== 'http') continue;
    for (const [header, value] of Object.entries(tool.settings.headers ?? {})) {
      if (typeof value === 'string') continue;
      use(value.secret, `${tool.alias} (${header})`);
    }
  }
  return secrets;
}
