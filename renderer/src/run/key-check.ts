import type { ConversationSnapshot } from './conversation-builder';
import { call } from '../shell/studio-api';

/** A live run that cannot start: its model's provider needs a key and the keychain has none. */
export interface MissingKey {
  /** The model alias the run would use. */
  alias: string;
  /** The provider id (`openai`), as Credentials and `keys:set` name it. */
  provider: string;
  /** The provider's name for people (`OpenAI`). */
  label: string;
  /** The provider's model id (`gpt-4o-mini`). */
  modelId: string;
}

/**
 * After a live run ended in an error before any model answered: whether the model it ran with
 * (the run-start's alias and provider, so a per-agent default counts too) needs a key that the
 * keychain does not hold. Told from stable data only: the run's status, its model's provider and
 * the keychain's status per provider (`keys:status`), never from the error's wording. `null` when
 * nothing is missing or it cannot be told (no model, keychain unavailable).
 */
export async function findMissingKey(snapshot: ConversationSnapshot): Promise<MissingKey | null> {
  const model = snapshot.started?.model;
  if (!model || snapshot.ended?.status !== 'error' || snapshot.rounds.length > 0) return null;
  let status;
  try {
    status = await call('keys:status', {});
  } catch {
    return null;
  }
  if (!status.available) return null;
  const key = status.keys.find((entry) => entry.provider === model.provider);
  if (!key || !key.needsKey || key.set) return null;
  return { alias: model.alias, provider: model.provider, label: key.label, modelId: model.modelId };
}
