/**
 * Workspace trust in the studio: the open workspace's trust state (pushed as `trust-changed`),
 * granting it through the person (main's own dialog, never the page), revoking it, and approving
 * where a provider key may go. The page can ask; only the person can say yes.
 */
import type { ContractEventName, ContractEventPayload } from '../../../common/contract.js';
import type { TrustList, WorkspaceTrustInfo } from '../../../common/trust-schemas.js';
import type { Workspace } from '../catalog/workspace.js';
import { PROVIDER_PRESETS, providerPreset } from '../providers/presets.js';
import { providerHomeOrigin, type ConfirmKeyOrigin } from '../trust/key-origins.js';
import { TrustChangedError, TrustStore, type WorkspaceTrust } from '../trust/trust-store.js';
import { manifestText } from '../trust/manifest-words.js';
import { originOf } from '../trust/workspace-manifest.js';
import { ContractError } from './contract-error.js';
import type { PersonDialogs } from './person-dialogs.js';
import type { PersonPress } from './person-input.js';

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
  /** Main's own dialogs: every question here is asked through them, paid for by the person's press. */
  dialogs: PersonDialogs;
  emit: <E extends ContractEventName>(event: E, payload: ContractEventPayload<E>) => void;
  /** Called when the open workspace's trust changed (to start or stop what it allows). */
  changed(trust: WorkspaceTrust, before: WorkspaceTrust | undefined): void | Promise<void>;
}

export class StudioTrust {
  readonly store: TrustStore;
  private current: WorkspaceTrust | undefined;
  private readonly host: StudioTrustHost;
  /**
   * Where the person said no to a model's requests in this session, by workspace, provider and
   * origin ({@link declinedKey}): a run does not ask again, until the person allows it from the
   * Trust view ({@link allowKeyOrigin}). Kept in memory only: a restart asks again.
   */
  private readonly declined = new Set<string>();

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
  async grant(
    workspace: Workspace,
    digest: string,
    press: PersonPress,
  ): Promise<{ granted: boolean; trust: WorkspaceTrustInfo }> {
    const now = await this.judge(workspace);
    if (now.digest !== digest)
      throw new ContractError(
        'trust-changed',
        'the workspace changed since its manifest was shown: nothing was trusted. Read the new manifest and decide again',
      );
    if (now.state !== 'restricted') return { granted: true, trust: describeTrust(now) };
    const shown = manifestText(now.manifest);
    const granted = await this.host.dialogs.confirm(press, {
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

  /**
   * How runs of `workspace` started by a call with `press` ask whether a provider key may go to an
   * origin that is not its provider's: only with that press, while the call is served (so a run
   * that picks a model in its middle is refused, not asked), and never again in this session about
   * what the person said no to.
   */
  keyOriginAsker(workspace: Workspace, press: PersonPress): ConfirmKeyOrigin {
    return async ({ provider, label, origin, model }) => {
      const key = declinedKey(workspace.root, provider, origin);
      if (this.declined.has(key) || !this.host.dialogs.canConfirm) return false;
      let yes: boolean;
      try {
        yes = await this.host.dialogs.confirm(press, keyOriginQuestion(label, origin, model));
      } catch (error) {
        // Not asked (no press paid for it): refused, and the refusal says how to allow it.
        if (error instanceof ContractError && error.code === 'no-person-input') return false;
        throw error;
      }
      if (!yes) this.declined.add(key);
      return yes;
    };
  }

  /** Why a run of `workspace` was not asked about `provider`'s key going to `origin` (for the run's refusal). */
  keyOriginNote(workspace: Workspace): (provider: string, origin: string) => string {
    return (provider, origin) =>
      this.declined.has(declinedKey(workspace.root, provider, origin))
        ? "You said no to this in the studio's dialog, so it is not asked again in this session."
        : 'The studio asks about a new destination only when you start a run yourself (Run, or Fork), never in the middle of one.';
  }

  /**
   * `trust:allow-key-origin`: the person, from the Trust view, allows the open workspace's model
   * `alias` to send its requests (and its provider's key) to the origin its base URL names, in main's
   * dialog. A yes is kept as an approved key origin (for every workspace), and forgets a no said
   * before; a no is remembered as one said to a run.
   */
  async allowKeyOrigin(workspace: Workspace, alias: string, press: PersonPress): Promise<boolean> {
    const spec = workspace.models.get(alias);
    if (!spec)
      throw new ContractError(
        'unknown-model',
        `"${alias}" is not a model of this workspace's models.yaml; it names: ${
          workspace.models
            .list()
            .map((model) => model.alias)
            .join(', ') || 'none'
        }`,
      );
    const origin = spec.baseUrl === undefined ? undefined : originOf(spec.baseUrl);
    if (origin === undefined || origin === providerHomeOrigin(spec.provider)) return true;
    if (await this.store.keyOriginApproved(spec.provider, origin)) return true;
    const label = providerPreset(spec.provider)?.label ?? spec.provider;
    const key = declinedKey(workspace.root, spec.provider, origin);
    const yes = await this.host.dialogs.confirm(press, keyOriginQuestion(label, origin, spec.alias));
    if (!yes) {
      this.declined.add(key);
      return false;
    }
    this.declined.delete(key);
    await this.store.approveKeyOrigin(spec.provider, origin, 'studio');
    return true;
  }

  /** Every trusted workspace and approved key origin, and what `workspace`'s models want approved. */
  async list(workspace: Workspace | undefined): Promise<TrustList> {
    const contents = await this.store.read();
    const approved = new Set(contents.keyOrigins.map((entry) => `${entry.provider}\n${entry.origin}`));
    const wantedKeyOrigins: TrustList['wantedKeyOrigins'] = [];
    for (const spec of workspace?.models.list() ?? []) {
      const origin = spec.baseUrl === undefined ? undefined : originOf(spec.baseUrl);
      if (spec.provider === 'replay' || origin === undefined || origin === providerHomeOrigin(spec.provider)) continue;
      if (approved.has(`${spec.provider}\n${origin}`)) continue;
      wantedKeyOrigins.push({
        model: spec.alias,
        provider: spec.provider,
        label: providerPreset(spec.provider)?.label ?? spec.provider,
        origin,
        declined: this.declined.has(declinedKey(workspace!.root, spec.provider, origin)),
      });
    }
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
      wantedKeyOrigins,
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

/** The key of a no the person said: which workspace's runs, which provider's key, which origin. */
function declinedKey(workspaceRoot: string, provider: string, origin: string): string {
  return JSON.stringify([workspaceRoot, provider, origin]);
}

/** What the person reads before a model's requests, and its provider's key, may go to `origin`. */
function keyOriginQuestion(label: string, origin: string, model: string): PersonQuestion {
  return {
    title: `Send ${model}'s requests to ${origin}?`,
    message: `Model "${model}" sends its requests to ${origin}, which is not ${label}'s own API. Send them there, with your prompts, the tool outputs and your ${label} key (if one is stored)?`,
    detail: `Only if you run that server or trust whoever does. The answer is kept for ${label} and this origin (see Trust), for every workspace.`,
    confirm: 'Send them there',
  };
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
