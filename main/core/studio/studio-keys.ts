/**
 * The studio's keychain: which provider keys and workspace secrets are set, and storing or
 * deleting one (in the entry `promptforge keys set NAME` uses). Never returns or logs a value.
 * A store or delete happens only when the person says yes in main's own dialog: the page asks,
 * and a script in the page cannot swap in its own key or delete the person's.
 */
import type { KeyTarget as ContractKeyTarget } from '../../../common/contract.js';
import type { KeyStatus, WorkspaceSecretStatus } from '../../../common/studio-schemas.js';
import type { Workspace } from '../catalog/workspace.js';
import { scopedSecretUses, WorkspaceSecretStore } from '../trust/secret-scope.js';
import { SecretStoreUnavailableError, type SecretStore } from '../credentials/secret-store.js';
import { PROVIDER_PRESETS } from '../providers/presets.js';
import { ContractError } from './contract-error.js';
import type { PersonDialogs } from './person-dialogs.js';
import type { PersonPress } from './person-input.js';
import type { PersonQuestion } from './studio-trust.js';

/** A keychain entry the studio may write: the contract's {@link ContractKeyTarget}, or a bare provider id. */
export type KeyTarget = string | ContractKeyTarget;

export class StudioKeys {
  /**
   * `workspace` is the open workspace, whose tools.yaml names the secrets; `dialogs` asks the
   * person in main's dialog (without a yes there nothing is stored or deleted).
   */
  constructor(
    private readonly secrets: SecretStore,
    private readonly workspace: () => Workspace | undefined,
    private readonly dialogs: PersonDialogs,
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
  async set(target: KeyTarget, key: string, press: PersonPress): Promise<{ replaced: boolean }> {
    const entry = this.entry(target);
    const value = key.trim();
    const replaced = await entry.store.has(entry.name);
    await this.askPerson(press, storeQuestion(target, entry.name, value, replaced, this.workspace()), 'stored');
    await entry.store.set(entry.name, value);
    return { replaced };
  }

  async delete(target: KeyTarget, press: PersonPress): Promise<{ deleted: boolean }> {
    const entry = this.entry(target);
    if (!(await entry.store.has(entry.name))) return { deleted: false };
    await this.askPerson(press, deleteQuestion(target, entry.name, this.workspace()), 'deleted');
    return { deleted: await entry.store.delete(entry.name) };
  }

  /** Resolves when the person said yes; refuses (`cancelled`) when they did not, or cannot be asked. */
  private async askPerson(press: PersonPress, question: PersonQuestion, done: 'stored' | 'deleted'): Promise<void> {
    if (!this.dialogs.canConfirm)
      throw new ContractError('not-supported', 'this host cannot ask the person to confirm a keychain change');
    if (!(await this.dialogs.confirm(press, question)))
      throw new ContractError(
        'cancelled',
        `Nothing was ${done}: the keychain change was cancelled in the confirmation dialog.`,
      );
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

/** What the person reads before a key or secret is stored: which entry, where it may go, and the key's last characters. */
function storeQuestion(
  target: KeyTarget,
  name: string,
  value: string,
  replaced: boolean,
  workspace: Workspace | undefined,
): PersonQuestion {
  // The last characters let the person match the dialog to what they pasted; a short key shows none.
  const shown =
    value.length >= 12 ? `${value.length} characters, ending in "${value.slice(-4)}"` : `${value.length} characters`;
  if (typeof target === 'string' || 'provider' in target) {
    const preset = PROVIDER_PRESETS[name as keyof typeof PROVIDER_PRESETS];
    return {
      title: `${replaced ? 'Replace' : 'Store'} your ${preset.label} key?`,
      message: `${replaced ? 'Replace your' : 'Store your'} ${preset.label} key in the OS keychain with the key you pasted into the studio (${shown})?`,
      detail: [
        ...(replaced ? ['The key stored now is overwritten.'] : []),
        `Runs send it only to ${preset.defaultBaseUrl ?? 'the base URL your models.yaml gives'}, and to origins you approved under Trust.`,
        'If you did not just paste this key into the studio, choose Cancel.',
      ].join('\n'),
      confirm: replaced ? 'Replace the key' : 'Store the key',
    };
  }
  const [secret, destination] = splitScopedName(name, workspace);
  return {
    title: `${replaced ? 'Replace' : 'Store'} the secret ${secret}?`,
    message: `${replaced ? 'Replace' : 'Store'} the secret ${secret} (${shown}) for the workspace ${workspace?.root ?? ''}?`,
    detail: [
      `It is sent only to ${destination}, by the tool or server of this workspace that names it.`,
      'If you did not just paste this secret into the studio, choose Cancel.',
    ].join('\n'),
    confirm: replaced ? 'Replace the secret' : 'Store the secret',
  };
}

/** What the person reads before a key or secret is deleted. */
function deleteQuestion(target: KeyTarget, name: string, workspace: Workspace | undefined): PersonQuestion {
  if (typeof target === 'string' || 'provider' in target) {
    const preset = PROVIDER_PRESETS[name as keyof typeof PROVIDER_PRESETS];
    return {
      title: `Delete your ${preset.label} key?`,
      message: `Delete your ${preset.label} key from the OS keychain?`,
      detail: `Runs with ${preset.label} models stop working until a key is stored again. The key cannot be recovered.`,
      confirm: 'Delete the key',
    };
  }
  const [secret, destination] = splitScopedName(name, workspace);
  return {
    title: `Delete the secret ${secret}?`,
    message: `Delete the secret ${secret} (sent to ${destination}) of the workspace ${workspace?.root ?? ''} from the OS keychain?`,
    detail: 'The tool or server that uses it stops working until it is stored again. It cannot be recovered.',
    confirm: 'Delete the secret',
  };
}

/** `NAME@DESTINATION` as its two parts, NAME as the workspace's tools.yaml writes it. */
function splitScopedName(scoped: string, workspace: Workspace | undefined): [string, string] {
  const secret = (workspace && scopedSecretUses(workspace).get(scoped)?.name) ?? scoped;
  return [secret, scoped.slice(secret.length + 1) || 'its destination'];
}
