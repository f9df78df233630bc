import { providerPreset } from '../providers/presets.js';
import { originOf } from './workspace-manifest.js';
import type { TrustStore, TrustVia } from './trust-store.js';
import { wordsFor, type Surface } from '../surface-words.js';

/** The origin a provider's key belongs to (its preset's API), or undefined when it has none. */
export function providerHomeOrigin(providerId: string): string | undefined {
  const home = providerPreset(providerId)?.defaultBaseUrl;
  return home === undefined ? undefined : originOf(home);
}

/** Asks the person whether `provider`'s key may go to `origin`; resolves their answer. */
export type ConfirmKeyOrigin = (request: {
  provider: string;
  label: string;
  origin: string;
  model: string;
}) => Promise<boolean>;

/** What decides where a run may send a provider key. */
export interface KeyOriginPolicy {
  /** Whether the workspace is trusted: a restricted one sends keys only to their providers' own origins. */
  trusted: boolean;
  /** The person's approved origins; without it only home origins are allowed. */
  store?: TrustStore;
  /** Asks the person (the studio's dialog, the terminal); without it an unapproved origin is refused. */
  confirm?: ConfirmKeyOrigin;
  via?: TrustVia;
}

/** A key would go to an origin nobody approved for it: the message says where, and how to approve it. */
export class KeyOriginError extends Error {
  constructor(
    readonly provider: string,
    readonly origin: string,
    message: string,
  ) {
    super(message);
    this.name = 'KeyOriginError';
  }
}

/**
 * Whether `provider`'s key may be sent to `baseUrl`: to the provider's own origin, and to an origin
 * the person approved for that key (kept outside every workspace, so a workspace can only point at
 * places the person already chose). A trusted workspace may also ask now, when `confirm` is given,
 * and the answer is remembered; a restricted one never asks.
 */
export async function keyMayGo(
  provider: string,
  baseUrl: string,
  model: string,
  policy: KeyOriginPolicy,
): Promise<boolean> {
  const origin = originOf(baseUrl);
  if (origin === undefined) return false;
  if (origin === providerHomeOrigin(provider)) return true;
  if (await policy.store?.keyOriginApproved(provider, origin)) return true;
  if (!policy.trusted || !policy.confirm || !policy.store) return false;
  const label = providerPreset(provider)?.label ?? provider;
  if (!(await policy.confirm({ provider, label, origin, model }))) return false;
  await policy.store.approveKeyOrigin(provider, origin, policy.via ?? 'studio');
  return true;
}

/**
 * The refusal when a key may not go to `baseUrl`, naming the origin and the fix. `note` says why
 * the person was not asked, when the caller knows (the studio: a no said before, or a question
 * that only a run the person started may ask).
 */
export function keyOriginRefusal(
  provider: string,
  baseUrl: string,
  model: string,
  trusted: boolean,
  note?: string,
  surface?: Surface,
): KeyOriginError {
  const origin = originOf(baseUrl) ?? baseUrl;
  const preset = providerPreset(provider);
  const label = preset?.label ?? provider;
  const home = providerHomeOrigin(provider);
  const why =
    preset?.needsKey === false
      ? `model "${model}" would send your prompts and tool outputs to ${origin}, which is not on this machine and was not approved for ${label}`
      : `model "${model}" sends requests to ${origin}, and your ${label} key goes only to ${home ?? 'origins you approve for it'}`;
  const allow = wordsFor(surface).allowKeyOrigin(provider, origin, model);
  const fix = trusted
    ? `${note ? `${note} ` : ''}If you mean it, approve that origin for the key: ${allow}; else fix the baseUrl in models.yaml`
    : `The workspace is restricted (not trusted), so it cannot ask for that: approve the origin yourself (${allow}), or trust the workspace first`;
  return new KeyOriginError(provider, origin, `${why}. ${fix}`);
}
