import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { AsyncEntry } from '@napi-rs/keyring';
import { afterEach, describe, expect, it } from 'vitest';
import {
  KEYCHAIN_SERVICE,
  KeyringSecretStore,
  HEADLESS_KEYRING_RECIPE,
  unavailableMessage,
} from '../../../main/core/credentials/keyring-secret-store.js';
import { SecretStoreUnavailableError } from '../../../main/core/credentials/secret-store.js';

// These tests use the REAL OS keychain (GNOME Keyring over D-Bus on Linux). CI runs them as
//   dbus-run-session -- bash -c 'echo -n pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null; npx vitest run test/node/credentials'
// Without a reachable keychain they fail; they never pass by skipping.

const store = new KeyringSecretStore();
const created = new Set<string>();

function account(): string {
  const name = `pf-test-${process.pid}-${randomBytes(4).toString('hex')}`;
  created.add(name);
  return name;
}

afterEach(async () => {
  for (const name of created) await store.delete(name).catch(() => undefined);
  created.clear();
});

describe('KeyringSecretStore on the real keychain', () => {
  it('reaches the keychain (if this fails: run the tests inside the dbus-run-session recipe above)', async () => {
    const name = account();
    await expect(store.has(name)).resolves.toBe(false);
  });

  it('set / has / get / replace / delete round trip', async () => {
    const name = account();
    expect(await store.has(name)).toBe(false);
    expect(await store.get(name)).toBeUndefined();

    await store.set(name, 'sk-first-secret-value');
    expect(await store.has(name)).toBe(true);
    expect(await store.get(name)).toBe('sk-first-secret-value');

    await store.set(name, 'sk-second-secret-value');
    expect(await store.get(name)).toBe('sk-second-secret-value');

    expect(await store.delete(name)).toBe(true);
    expect(await store.has(name)).toBe(false);
    expect(await store.get(name)).toBeUndefined();
    expect(await store.delete(name)).toBe(false);
  });

  it('keeps entries apart per account, and keeps unicode secrets intact', async () => {
    const a = account();
    const b = account();
    await store.set(a, 'secret-a-ü-🔑');
    await store.set(b, 'secret-b');
    expect(await store.get(a)).toBe('secret-a-ü-🔑');
    expect(await store.get(b)).toBe('secret-b');
    await store.delete(a);
    expect(await store.get(b)).toBe('secret-b');
  });

  it.runIf(process.platform === 'linux')(
    'stores in Secret Service under service "PromptForge Studio": secret-tool sees it, the kernel keyring does not',
    async () => {
      const name = account();
      await store.set(name, 'sk-visible-to-secret-tool');
      const which = spawnSync('sh', ['-c', 'command -v secret-tool']);
      expect(which.status, 'secret-tool (Debian: libsecret-tools) is needed for this check').toBe(0);
      // keyring-rs files the account under the attribute `username`.
      const found = execFileSync('secret-tool', ['lookup', 'service', KEYCHAIN_SERVICE, 'username', name], {
        encoding: 'utf8',
      });
      expect(found).toBe('sk-visible-to-secret-tool');
      // The in-memory kernel keyring (the binding's silent fallback) must not hold it.
      const keyutils = new AsyncEntry(KEYCHAIN_SERVICE, name, { linux: { store: 'keyutils' } });
      expect(await keyutils.getPassword()).toBeNull();
    },
  );

  it('refuses an empty secret and an invalid name', async () => {
    await expect(store.set(account(), '')).rejects.toThrow('refusing to store an empty secret');
    await expect(store.get('')).rejects.toThrow('invalid secret name');
    await expect(store.get('bad\nname')).rejects.toThrow('invalid secret name');
  });
});

describe('KeyringSecretStore without a keychain', () => {
  it.runIf(process.platform === 'linux')(
    'with D-Bus pointing nowhere, every operation is SecretStoreUnavailableError with the fix, and nothing falls back to memory',
    () => {
      const child = fileURLToPath(new URL('./unavailable-child.ts', import.meta.url));
      const result = spawnSync(process.execPath, ['--import', 'tsx', child, `pf-test-unavailable-${process.pid}`], {
        env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/promptforge-test-bus' },
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(result.status, result.stderr).toBe(0);
      const outcome = JSON.parse(result.stdout) as Record<string, { ok: boolean; name?: string; message?: string }>;
      for (const op of ['set', 'get', 'has', 'delete']) {
        expect(outcome[op]?.ok, `${op} must fail`).toBe(false);
        expect(outcome[op]?.name).toBe('SecretStoreUnavailableError');
        expect(outcome[op]?.message).toContain('Install gnome-keyring (or KWallet) and libsecret, and unlock it');
        expect(outcome[op]?.message).toContain(`\n  ${HEADLESS_KEYRING_RECIPE}\n`);
        expect(outcome[op]?.message).not.toContain('sk-canary');
      }
    },
  );

  it('maps backend failures to SecretStoreUnavailableError with per-OS advice (injected backend)', async () => {
    const failing = () => {
      throw new Error('Platform failure: DBus error: Failed to connect to socket');
    };
    const linux = new KeyringSecretStore({ platform: 'linux', createEntry: failing });
    await expect(linux.get('openai')).rejects.toBeInstanceOf(SecretStoreUnavailableError);
    await expect(linux.get('openai')).rejects.toThrow(/DBus error: Failed to connect.*Install gnome-keyring/s);

    const mac = new KeyringSecretStore({
      platform: 'darwin',
      createEntry: () => ({
        getPassword: () => Promise.reject(new Error("Couldn't access platform storage: keychain locked")),
        setPassword: () => Promise.resolve(),
        deleteCredential: () => Promise.resolve(false),
      }),
    });
    await expect(mac.has('openai')).rejects.toThrow(/macOS Keychain is not available.*Unlock your login keychain/s);
    await expect(
      new KeyringSecretStore({ platform: 'win32', createEntry: failing }).set('openai', 'x'),
    ).rejects.toThrow(/Windows Credential Manager is not available/);
  });

  it('reports an ambiguous entry as a plain error, not as "unavailable"', async () => {
    const ambiguous = new KeyringSecretStore({
      createEntry: () => ({
        getPassword: () => Promise.reject(new Error('Entry is matched by 2 credentials: [...]')),
        setPassword: () => Promise.resolve(),
        deleteCredential: () => Promise.resolve(false),
      }),
    });
    const error = await ambiguous.get('openai').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(SecretStoreUnavailableError);
    expect((error as Error).message).toBe('keychain read of "openai" failed: Entry is matched by 2 credentials: [...]');
  });

  it('the Linux advice names what to install and the headless recipe', () => {
    expect(unavailableMessage('linux', 'no bus')).toMatch(
      /^No OS keychain \(Secret Service over D-Bus\) is available \(no bus\)\. Install gnome-keyring \(or KWallet\) and libsecret, and unlock it\. In a headless shell, this line starts both for one command .*:\n {2}dbus-run-session -- sh -c '[^'\\]*'\n/,
    );
  });
});
