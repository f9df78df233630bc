import type { SecretStore } from '../../../main/core/credentials/secret-store.js';

/**
 * Keychain stand-ins for tests that are not about the OS keychain (those use the real one): the
 * product never has an in-memory store.
 */

/** A keychain held in a map (`entries`, for the test to look into), starting with `initial`. */
export function mapSecretStore(initial: Record<string, string> = {}): SecretStore & { entries: Map<string, string> } {
  const entries = new Map(Object.entries(initial));
  return {
    entries,
    get: async (name) => entries.get(name),
    set: async (name, secret) => void entries.set(name, secret),
    delete: async (name) => entries.delete(name),
    has: async (name) => entries.has(name),
  };
}

/** A keychain that holds no key and keeps none it is given. */
export const noSecrets: SecretStore = {
  get: async () => undefined,
  set: async () => undefined,
  delete: async () => false,
  has: async () => false,
};
