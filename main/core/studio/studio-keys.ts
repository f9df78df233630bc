/**
 * The studio's keychain: which provider keys and workspace secrets are set, and storing or
 * deleting one (in the entry `promptforge keys set NAME` uses). Never returns or logs a value.
 */
import type { KeyStatus, WorkspaceSecretStatus } from '../../../common/studio-schemas.js';
import type { Workspace } from '../catalog/workspace.js';
import { scopedSecretUses, WorkspaceSecretStore } from '../trust/secret-scope.js';
import { SecretStoreUnavailableError, type SecretStore } from '../credentials/secret-store.js';
import { PROVIDER_PRESETS } from '../providers/presets.js';
import { ContractError } from './contract-error.js';

/**
 * A keychain entry the studio may write: a provider id (bare, or `{ provider }`), or
 * `{ secret }`, a secret the open workspace's tools.yaml names.
 */
export type KeyTarget = string | { provider: string } | { secret: string };

export class StudioKeys {
  /** `workspace` is the open workspace, whose tools.yaml names the secrets. */
  constructor(
    private readonly secrets: SecretStore,
    private readonly workspace: () => Workspace | undefined,
  ) {}

  async status(): Promise<{
    available: boolean;
    error: string | null;
    keys: KeyStatus[];
    secrets: WorkspaceSecretStatus[];
  }> {
    const keys: KeyStatus[] = [];
    const secrets: WorkspaceSecretStatus[] = [];
    try {
      for (const [provider, preset] of Object.entries(PROVIDER_PRESETS)) {
        keys.push({
          provider,
          label: preset.label,
          set: await this.secrets.has(provider),
          needsKey: preset.needsKey,
          envVar: preset.keyEnvVar ?? null,
        });
      }
      const workspace = this.workspace();
      if (workspace) {
        const store = this.workspaceStore(workspace);
        for (const [name, use] of scopedSecretUses(workspace))
          secrets.push({ name, usedBy: use.places, set: await store.has(name) });
      }
      return { available: true, error: null, keys, secrets };
    } catch (error) {
      if (error instanceof SecretStoreUnavailableError)
        return { available: false, error: error.message, keys: [], secrets: [] };
      throw error;
    }
  }

  /**
   * Stores a provider key, or a secret the open workspace's tools.yaml names (by its scoped name,
   * `NAME@DESTINATION`, as `status` lists it) for this workspace and that destination only.
   */
  async set(target: KeyTarget, key: string): Promise<{ replaced: boolean }> {
    const entry = this.entry(target);
    const replaced = await entry.store.has(entry.name);
    await entry.store.set(entry.name, key.trim());
    return { replaced };
  }

  async delete(target: KeyTarget): Promise<{ deleted: boolean }> {
    const entry = this.entry(target);
    return { deleted: await entry.store.delete(entry.name) };
  }

  private workspaceStore(workspace: Workspace): WorkspaceSecretStore {
    return new WorkspaceSecretStore(this.secrets, workspace.root, scopedSecretUses(workspace));
  }

  /** Where `target` lives: a provider key in its own entry, a workspace secret in the workspace's namespace. */
  private entry(target: KeyTarget): { store: Pick<SecretStore, 'has' | 'set' | 'delete'>; name: string } {
    const name = this.keychainName(target);
    const workspace = this.workspace();
    if (typeof target === 'string' || 'provider' in target || !workspace) return { store: this.secrets, name };
    return { store: this.workspaceStore(workspace), name };
  }

  /** The provider id, or the scoped name of a secret the workspace names; refuses anything else. */
  keychainName(target: KeyTarget): string {
    if (typeof target === 'string' || 'provider' in target) {
      const provider = typeof target === 'string' ? target : target.provider;
      if (!Object.hasOwn(PROVIDER_PRESETS, provider))
        throw new ContractError(
          'unknown-provider',
          `unknown provider "${provider}"; known: ${Object.keys(PROVIDER_PRESETS).join(', ')}`,
        );
      return provider;
    }
    const workspace = this.workspace();
    const named = workspace ? [...scopedSecretUses(workspace).keys()] : [];
    if (!named.includes(target.secret))
      throw new ContractError(
        'unknown-secret',
        workspace === undefined
          ? `"${target.secret}" is not a secret named in tools.yaml: no workspace is open`
          : `"${target.secret}" is not a secret named in this workspace's tools.yaml; ` +
              (named.length > 0
                ? `it names: ${named.join(', ')}`
                : 'it names none (use `{ secret: NAME }` in a header or an MCP server env)'),
      );
    return target.secret;
  }
}
