/**
 * Workspace trust in the studio: the open workspace's trust state (pushed as `trust-changed`),
 * granting it through the person (main's own dialog, never the page), revoking it, and approving
 * where a provider key may go. The page can ask; only the person can say yes.
 */
import type { ContractEventName, ContractEventPayload } from '../../../common/contract.js';
import type { TrustList, WorkspaceTrustInfo } from '../../../common/trust-schemas.js';
import type { Workspace } from '../catalog/workspace.js';
import { PROVIDER_PRESETS } from '../providers/presets.js';
import type { ConfirmKeyOrigin } from '../trust/key-origins.js';
import { TrustChangedError, TrustStore, type WorkspaceTrust } from '../trust/trust-store.js';
import { manifestText } from '../trust/manifest-words.js';
import { ContractError } from './contract-error.js';

/** A question put to the person in main's own dialog: `confirm` labels the button that says yes. */
export interface PersonQuestion {
  title: string;
  message: string;
  detail: string;
  confirm: string;
}

/**
 * Asks the person; resolves true only when they chose `confirm`. The Electron glue shows a native
 * message box; the end-to-end bridge has a stand-in the test answers.
 */
export type ConfirmWithPerson = (question: PersonQuestion) => Promise<boolean>;

/** What the trust part needs from the studio service. */
export interface StudioTrustHost {
  configDirectory: string;
  confirm: ConfirmWithPerson | undefined;
  emit: <E extends ContractEventName>(event: E, payload: ContractEventPayload<E>) => void;
  /** Called when the open workspace's trust changed (to start or stop what it allows). */
  changed(trust: WorkspaceTrust, before: WorkspaceTrust | undefined): void | Promise<void>;
}

export class StudioTrust {
  readonly store: TrustStore;
  private current: WorkspaceTrust | undefined;
  private readonly host: StudioTrustHost;

  constructor(host: StudioTrustHost) {
    this.host = host;
    this.store = new TrustStore(host.configDirectory);
  }

  /** The open workspace's trust as last judged. */
  get state(): WorkspaceTrust['state'] {
    return this.current?.state ?? 'restricted';
  }

  /** Whether the open workspace may run its own commands, servers and secrets. */
  get trusted(): boolean {
    return this.current?.state === 'trusted' || this.current?.state === 'empty';
  }

  /** Judges `workspace` again (opened, or changed on disk) and says so when its trust changed. */
  async judge(workspace: Workspace): Promise<WorkspaceTrust> {
    const before = this.current;
    const now = await this.store.workspaceTrust(workspace);
    this.current = now;
    if (before?.path !== now.path || before.digest !== now.digest || before.state !== now.state) {
      await this.host.changed(now, before);
      this.host.emit('trust-changed', describeTrust(now));
    }
    return now;
  }

  /** The open workspace's trust, for the page. */
  status(): WorkspaceTrustInfo {
    if (!this.current) throw new ContractError('no-workspace', 'open a workspace first');
    return describeTrust(this.current);
  }

  /**
   * Trusts `workspace` if the person says so in main's dialog, for the manifest the page showed
   * (`digest`). A manifest that changed since is refused (`trust-changed`) before anyone is asked.
   */
  async grant(workspace: Workspace, digest: string): Promise<{ granted: boolean; trust: WorkspaceTrustInfo }> {
    const now = await this.judge(workspace);
    if (now.digest !== digest)
      throw new ContractError(
        'trust-changed',
        'the workspace changed since its manifest was shown: nothing was trusted. Read the new manifest and decide again',
      );
    if (now.state !== 'restricted') return { granted: true, trust: describeTrust(now) };
    if (!this.host.confirm) throw new ContractError('not-supported', 'this host cannot ask the person');
    const shown = manifestText(now.manifest);
    const granted = await this.host.confirm({
      title: 'Trust this workspace?',
      message: `Trust ${now.path}? It will run the following with your own rights, and PromptForge does not sandbox it.`,
      detail: [
        ...(now.changes?.length
          ? ['What changed since you last trusted it:', ...now.changes.map((c) => `  ${c.text}`), '']
          : []),
        ...shown,
      ].join('\n'),
      confirm: 'Trust and allow',
    });
    if (!granted) return { granted: false, trust: describeTrust(now) };
    try {
      await this.store.trust(workspace, digest, 'studio');
    } catch (error) {
      if (error instanceof TrustChangedError) throw new ContractError('trust-changed', `${error.message}.`);
      throw error;
    }
    return { granted: true, trust: describeTrust(await this.judge(workspace)) };
  }

  /** Asks the person whether a provider key may go to an origin that is not its provider's. */
  readonly confirmKeyOrigin: ConfirmKeyOrigin = async ({ label, origin, model }) => {
    if (!this.host.confirm) return false;
    return this.host.confirm({
      title: `Send ${model}'s requests to ${origin}?`,
      message: `Model "${model}" sends its requests to ${origin}, which is not ${label}'s own API. Send them there, with your prompts, the tool outputs and your ${label} key (if one is stored)?`,
      detail: `Only if you run that server or trust whoever does. The answer is kept for ${label} and this origin (see Trust), for every workspace.`,
      confirm: 'Send them there',
    });
  };

  async list(): Promise<TrustList> {
    const contents = await this.store.read();
    return {
      configDirectory: this.store.configDir,
      logFile: this.store.logFile,
      workspaces: contents.workspaces.map((entry) => ({
        path: entry.path,
        trustedAt: entry.trustedAt,
        items: entry.manifest.items.length,
      })),
      keyOrigins: contents.keyOrigins.map((entry) => ({
        ...entry,
        label: Object.hasOwn(PROVIDER_PRESETS, entry.provider)
          ? PROVIDER_PRESETS[entry.provider as keyof typeof PROVIDER_PRESETS].label
          : entry.provider,
      })),
    };
  }

  async revoke(folder: string, workspace: Workspace | undefined): Promise<void> {
    await this.store.revokeWorkspace(folder, 'studio');
    if (workspace) await this.judge(workspace);
  }

  async revokeKeyOrigin(provider: string, origin: string): Promise<void> {
    await this.store.revokeKeyOrigin(provider, origin, 'studio');
  }

  /** Forgets the open workspace (another is being opened). */
  forget(): void {
    this.current = undefined;
  }
}

function describeTrust(trust: WorkspaceTrust): WorkspaceTrustInfo {
  return {
    state: trust.state,
    path: trust.path,
    digest: trust.digest,
    items: trust.manifest.items,
    files: trust.manifest.files,
    changes: trust.changes ?? null,
  };
}
