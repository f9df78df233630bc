import { describe, expect, it } from 'vitest';
import { resolveProviderKey } from '../../../main/core/credentials/resolve-provider-key.js';
import { type SecretStore, SecretStoreUnavailableError } from '../../../main/core/credentials/secret-store.js';

/** A test double; the product never has an in-memory store. */
function storeWith(entries: Record<string, string>): SecretStore {
  return {
    get: async (name) => entries[name],
    set: async () => undefined,
    delete: async () => false,
    has: async (name) => name in entries,
  };
}

const unavailable: SecretStore = {
  get: () => Promise.reject(new SecretStoreUnavailableError('no keychain: install gnome-keyring')),
  set: () => Promise.reject(new SecretStoreUnavailableError('no keychain')),
  delete: () => Promise.reject(new SecretStoreUnavailableError('no keychain')),
  has: () => Promise.reject(new SecretStoreUnavailableError('no keychain')),
};

describe('resolveProviderKey', () => {
  it('prefers the keychain over the environment', async () => {
    const result = await resolveProviderKey('openai', {
      store: storeWith({ openai: 'from-keychain' }),
      env: { OPENAI_API_KEY: 'from-env' },
      allowEnv: true,
    });
    expect(result).toEqual({ key: 'from-keychain', source: 'keychain' });
  });

  it('falls back to the conventional variable only when allowed, and names it', async () => {
    const env = { ANTHROPIC_API_KEY: ' from-env \n' };
    expect(await resolveProviderKey('anthropic', { store: storeWith({}), env, allowEnv: true })).toEqual({
      key: 'from-env',
      source: 'env:ANTHROPIC_API_KEY',
    });
    expect(await resolveProviderKey('anthropic', { store: storeWith({}), env })).toEqual({
      key: undefined,
      source: 'none',
    });
  });

  it('uses OPENAI_API_KEY for openai-compatible endpoints and an explicit variable for custom ids', async () => {
    expect(
      (await resolveProviderKey('openai-compatible', { env: { OPENAI_API_KEY: 'k' }, allowEnv: true })).source,
    ).toBe('env:OPENAI_API_KEY');
    expect(
      await resolveProviderKey('my-proxy', { env: { MY_PROXY_KEY: 'p' }, allowEnv: true, envVar: 'MY_PROXY_KEY' }),
    ).toEqual({
      key: 'p',
      source: 'env:MY_PROXY_KEY',
    });
    expect(await resolveProviderKey('ollama', { env: { OPENAI_API_KEY: 'k' }, allowEnv: true })).toEqual({
      key: undefined,
      source: 'none',
    });
  });

  it('ignores an empty variable', async () => {
    expect(await resolveProviderKey('groq', { env: { GROQ_API_KEY: '' }, allowEnv: true })).toEqual({
      key: undefined,
      source: 'none',
    });
  });

  it('rethrows an unreachable keychain unless the environment has the key', async () => {
    await expect(resolveProviderKey('gemini', { store: unavailable, env: {}, allowEnv: true })).rejects.toBeInstanceOf(
      SecretStoreUnavailableError,
    );
    const result = await resolveProviderKey('gemini', {
      store: unavailable,
      env: { GEMINI_API_KEY: 'g' },
      allowEnv: true,
    });
    expect(result.key).toBe('g');
    expect(result.source).toBe('env:GEMINI_API_KEY');
    expect(result.keychainError).toBeInstanceOf(SecretStoreUnavailableError);
  });
});
