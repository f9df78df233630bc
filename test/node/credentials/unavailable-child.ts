// Run in a child process whose D-Bus session address points nowhere: every keychain operation
// must fail with SecretStoreUnavailableError, and nothing may be kept anywhere else.
import { KeyringSecretStore } from '../../../main/core/credentials/keyring-secret-store.js';

const store = new KeyringSecretStore();
const account = process.argv[2] ?? 'pf-unavailable-probe';
const results: Record<string, { ok: boolean; name?: string; message?: string; value?: unknown }> = {};
for (const [op, action] of [
  ['set', () => store.set(account, 'sk-canary-XXXXXXXXXXXXXXXXXXXXXXXX')],
  ['get', () => store.get(account)],
  ['has', () => store.has(account)],
  ['delete', () => store.delete(account)],
] as const) {
  try {
    const value: unknown = await action();
    results[op] = { ok: true, value };
  } catch (error) {
    results[op] = { ok: false, name: (error as Error).name, message: (error as Error).message };
  }
}
process.stdout.write(JSON.stringify(results));
