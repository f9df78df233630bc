import { providerPreset } from '../providers/presets.js';
import { type SecretStore, SecretStoreUnavailableError } from './secret-store.js';

/** Where a provider key came from; shown to the person (never the key itself). */
export type ProviderKeySource = 'keychain' | `env:${string}` | 'none';

/** The outcome of {@link resolveProviderKey}. */
export interface ResolvedProviderKey {
  /** The key, or undefined when `source` is `none`. Hand it to an adapter, never to a log. */
  key: string | undefined;
  source: ProviderKeySource;
  /**
   * Set when the keychain could not be reached and the run goes on without it: the environment
   * supplied the key, or the provider needs none.
   */
  keychainError?: SecretStoreUnavailableError;
}

/** Where {@link resolveProviderKey} may look. */
export interface ResolveProviderKeyOptions {
  /** The keychain; omit to skip it. */
  store?: SecretStore;
  /** Environment to read (default process.env). */
  env?: Record<string, string | undefined>;
  /** Whether the conventional environment variable may be used (the CLI's headless mode). Default false. */
  allowEnv?: boolean;
  /** Overrides the preset's variable name (e.g. for a custom provider id). */
  envVar?: string;
  /**
   * Whether the provider works without a key (local servers, self-hosted endpoints). An
   * unreachable keychain is then not an error: the request goes out without a key. Default:
   * the preset's `needsKey` is false.
   */
  keyOptional?: boolean;
}

/**
 * Finds the key for `providerId`: the keychain first, then (only with `allowEnv`) the preset's
 * environment variable, read-only. An unreachable keychain is rethrown unless the environment
 * has the key or the provider needs none, so a person without a keychain gets the "how to fix
 * it" message instead of a confusing 401, and a keyless local server runs on a machine with no
 * keychain at all.
 */
export async function resolveProviderKey(
  providerId: string,
  options: ResolveProviderKeyOptions = {},
): Promise<ResolvedProviderKey> {
  const env = options.env ?? process.env;
  const envVar = options.envVar ?? providerPreset(providerId)?.keyEnvVar;
  const fromEnv = (): ResolvedProviderKey | undefined => {
    if (!options.allowEnv || !envVar) return undefined;
    const value = env[envVar]?.trim();
    return value ? { key: value, source: `env:${envVar}` } : undefined;
  };

  if (options.store) {
    try {
      const key = await options.store.get(providerId);
      if (key !== undefined) return { key, source: 'keychain' };
    } catch (error) {
      if (!(error instanceof SecretStoreUnavailableError)) throw error;
      const fallback = fromEnv();
      if (fallback) return { ...fallback, keychainError: error };
      if (options.keyOptional ?? providerPreset(providerId)?.needsKey === false)
        return { key: undefined, source: 'none', keychainError: error };
      throw error;
    }
  }
  return fromEnv() ?? { key: undefined, source: 'none' };
}
