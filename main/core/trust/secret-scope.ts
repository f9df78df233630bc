import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { ToolCatalogImpl } from '../catalog/tool-catalog.js';
import type { McpServerSpec, SecretRef } from '../catalog/mcp-spec.js';
import type { Workspace } from '../catalog/workspace.js';
import type { SecretStore } from '../credentials/secret-store.js';
import { PROVIDER_PRESETS } from '../providers/presets.js';
import type { ToolSpec } from '../tools/tool-spec.js';
import { originOf } from './workspace-manifest.js';

/**
 * Workspace secrets (`{ secret: NAME }` in tools.yaml) live in a keychain namespace of their own:
 * one entry per workspace (its real path), destination and name, so a secret can never read or
 * overwrite a provider key (whose entry is the bare provider id), and a secret set for one
 * workspace and destination reaches no other. Inside the run a secret is named
 * `NAME@DESTINATION`: the destination is the origin an http tool or server posts to, or
 * `mcp:SERVER` for a stdio server's environment.
 */
export function scopedSecretName(name: string, destination: string): string {
  return `${name}@${destination}`;
}

/** The keychain account of a scoped secret in the workspace at `realRoot`. Never a provider id. */
export function workspaceSecretAccount(realRoot: string, scoped: string): string {
  const workspace = createHash('sha256').update(realRoot).digest('hex').slice(0, 16);
  return `workspace-secret/${workspace}/${scoped}`;
}

/** The destination of an http tool's header secrets: the origin of its URL. */
export function httpDestination(url: string): string {
  return originOf(url) ?? url;
}

/** The destination of a stdio server's environment secrets. */
export function stdioDestination(server: string): string {
  return `mcp:${server}`;
}

/** `workspace` with every `{ secret: NAME }` renamed to its scoped name (see {@link scopedSecretName}). */
export function scopeWorkspaceSecrets(workspace: Workspace): Workspace {
  const scope = (value: string | SecretRef, destination: string): string | SecretRef =>
    typeof value === 'string' ? value : { secret: scopedSecretName(value.secret, destination) };
  const scopeHeaders = (headers: Record<string, string | SecretRef>, destination: string) =>
    Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, scope(value, destination)]));
  const tools = workspace.tools.list().map((tool): ToolSpec => {
    const settings = tool.settings;
    if (settings.kind !== 'http' || !settings.headers) return tool;
    const destination = httpDestination(settings.url);
    return {
      ...tool,
      settings: {
        ...settings,
        headers: scopeHeaders(settings.headers, destination),
      },
    };
  });
  const servers = workspace.mcpServers?.map((server): McpServerSpec => {
    const transport = server.transport;
    if (transport.type === 'http') {
      const destination = httpDestination(transport.url);
      return {
        ...server,
        transport: {
          ...transport,
          headers: scopeHeaders(transport.headers, destination),
          ...(transport.oauth?.clientSecret && {
            oauth: {
              ...transport.oauth,
              clientSecret: { secret: scopedSecretName(transport.oauth.clientSecret.secret, destination) },
            },
          }),
        },
      };
    }
    const destination = stdioDestination(server.name);
    return {
      ...server,
      transport: {
        ...transport,
        env: Object.fromEntries(
          Object.entries(transport.env).map(([name, value]) => [
            name,
            value === null ? null : scope(value, destination),
          ]),
        ),
      },
    };
  });
  return { ...workspace, tools: new ToolCatalogImpl(tools), ...(servers && { mcpServers: servers }) };
}

/** One scoped secret of a workspace: the name tools.yaml writes, and where it is used. */
export interface ScopedSecretUse {
  name: string;
  /** E.g. `search (header Authorization)`, `MCP server github (env GITHUB_TOKEN)`. */
  places: string[];
}

/** Every scoped secret name of `workspace` (unscoped catalogs), in the order tools.yaml uses them. */
export function scopedSecretUses(workspace: Workspace): Map<string, ScopedSecretUse> {
  const uses = new Map<string, ScopedSecretUse>();
  const note = (value: string | SecretRef | null, destination: string, place: string): void => {
    if (value === null || typeof value === 'string') return;
    const scoped = scopedSecretName(value.secret, destination);
    const use = uses.get(scoped) ?? { name: value.secret, places: [] };
    use.places.push(place);
    uses.set(scoped, use);
  };
  for (const tool of workspace.tools.list())
    if (tool.settings.kind === 'http')
      for (const [header, value] of Object.entries(tool.settings.headers ?? {}))
        note(value, httpDestination(tool.settings.url), `${tool.alias} (header ${header})`);
  for (const server of workspace.mcpServers ?? []) {
    const transport = server.transport;
    if (transport.type === 'http') {
      for (const [header, value] of Object.entries(transport.headers))
        note(value, httpDestination(transport.url), `MCP server ${server.name} (header ${header})`);
      if (transport.oauth?.clientSecret)
        note(
          transport.oauth.clientSecret,
          httpDestination(transport.url),
          `MCP server ${server.name} (oauth clientSecret)`,
        );
    } else
      for (const [variable, value] of Object.entries(transport.env))
        note(value, stdioDestination(server.name), `MCP server ${server.name} (env ${variable})`);
  }
  return uses;
}

/**
 * The keychain as one workspace's tools see it: a scoped name reads that workspace's own entry.
 * An entry from before the namespaces existed (the bare name, never a provider id) is moved in
 * the first time a scoped name asks for it: copied to this workspace and destination, and the old
 * entry is deleted once every use of the name in this workspace has its copy, so nothing is lost
 * and, from then on, no other workspace reads it.
 */
export class WorkspaceSecretStore {
  private readonly realRoot: string;

  constructor(
    private readonly store: SecretStore,
    root: string,
    /** Every scoped name the workspace uses (see {@link scopedSecretUses}). */
    private readonly uses: ReadonlyMap<string, ScopedSecretUse>,
  ) {
    this.realRoot = safeRealpath(root);
  }

  account(scoped: string): string {
    return workspaceSecretAccount(this.realRoot, scoped);
  }

  async get(scoped: string): Promise<string | undefined> {
    const value = await this.store.get(this.account(scoped));
    if (value !== undefined) return value;
    return this.migrateLegacy(scoped);
  }

  async has(scoped: string): Promise<boolean> {
    return (await this.store.has(this.account(scoped))) || (await this.legacyValue(scoped)) !== undefined;
  }

  async set(scoped: string, value: string): Promise<void> {
    await this.store.set(this.account(scoped), value);
  }

  async delete(scoped: string): Promise<boolean> {
    return this.store.delete(this.account(scoped));
  }

  private async legacyValue(scoped: string): Promise<string | undefined> {
    const name = this.uses.get(scoped)?.name;
    // Only a plain name can be an entry from before the namespaces: never a provider id, and never
    // a name shaped like another workspace's entry (`workspace-secret/...`) or a scoped name.
    if (name === undefined || Object.hasOwn(PROVIDER_PRESETS, name) || /[/@]/.test(name)) return undefined;
    return this.store.get(name);
  }

  private async migrateLegacy(scoped: string): Promise<string | undefined> {
    const name = this.uses.get(scoped)?.name;
    const value = await this.legacyValue(scoped);
    if (name === undefined || value === undefined) return undefined;
    await this.store.set(this.account(scoped), value);
    const uses = [...this.uses].filter(([, other]) => other.name === name).map(([use]) => use);
    for (const use of uses)
      if (!(await this.store.has(this.account(use)))) await this.store.set(this.account(use), value);
    await this.store.delete(name);
    return value;
  }
}

function safeRealpath(folder: string): string {
  try {
    return realpathSync(folder);
  } catch {
    return folder;
  }
}
