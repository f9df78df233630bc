import { type SecretStore, SecretStoreUnavailableError } from './secret-store.js';
import { errorMessage } from '../../../common/error-message.js';

/** The service name every PromptForge keychain entry is filed under. */
export const KEYCHAIN_SERVICE = 'PromptForge Studio';

/** One keychain entry (service + account), as the store uses it. */
export interface KeyringEntry {
  getPassword(): Promise<string | null>;
  setPassword(secret: string): Promise<void>;
  /** Resolves true when something was deleted, false when there was nothing. */
  deleteCredential(): Promise<boolean>;
}

/** Opens the entry for `account`; throws when the OS keychain cannot be reached. */
export type KeyringEntryFactory = (service: string, account: string) => KeyringEntry | Promise<KeyringEntry>;

/** Settings for {@link KeyringSecretStore}; everything but tests should use the defaults. */
export interface KeyringSecretStoreOptions {
  /** Default {@link KEYCHAIN_SERVICE}. */
  service?: string;
  /** Picks the "how to fix it" wording of unavailable errors (default: process.platform). */
  platform?: NodeJS.Platform;
  /** Default: `@napi-rs/keyring`'s AsyncEntry, pinned to Secret Service on Linux. */
  createEntry?: KeyringEntryFactory;
}

/**
 * {@link SecretStore} on the OS keychain via `@napi-rs/keyring`: Keychain on macOS, Credential
 * Manager on Windows, Secret Service (GNOME Keyring, KWallet, KeePassXC) on Linux. One entry per
 * name, under service "PromptForge Studio" with the name (a provider id) as the account.
 *
 * On Linux the binding would silently fall back to the kernel keyutils keyring, which lives in
 * memory and is gone after a reboot: a store that pretends to persist. Entries are therefore
 * pinned to Secret Service (`{ linux: { store: 'secret-service' } }`), which throws instead of
 * falling back. Any failure to reach the keychain is a {@link SecretStoreUnavailableError} whose
 * message says what to install or unlock on this OS.
 */
export class KeyringSecretStore implements SecretStore {
  private readonly service: string;
  private readonly platform: NodeJS.Platform;
  private readonly createEntry: KeyringEntryFactory;

  constructor(options: KeyringSecretStoreOptions = {}) {
    this.service = options.service ?? KEYCHAIN_SERVICE;
    this.platform = options.platform ?? process.platform;
    this.createEntry = options.createEntry ?? openNapiEntry;
  }

  async get(name: string): Promise<string | undefined> {
    const secret = await this.withEntry('read', name, (entry) => entry.getPassword());
    return secret ?? undefined;
  }

  async set(name: string, secret: string): Promise<void> {
    if (secret === '') throw new Error(`refusing to store an empty secret for "${name}"`);
    await this.withEntry('write', name, (entry) => entry.setPassword(secret));
  }

  async delete(name: string): Promise<boolean> {
    return this.withEntry('delete', name, (entry) => entry.deleteCredential());
  }

  async has(name: string): Promise<boolean> {
    return (await this.get(name)) !== undefined;
  }

  private async withEntry<T>(operation: string, name: string, action: (entry: KeyringEntry) => Promise<T>): Promise<T> {
    checkName(name);
    try {
      const entry = await this.createEntry(this.service, name);
      return await action(entry);
    } catch (error) {
      throw this.translate(error, operation, name);
    }
  }

  private translate(error: unknown, operation: string, name: string): Error {
    if (error instanceof SecretStoreUnavailableError) return error;
    const detail = errorMessage(error);
    // These say the keychain answered but this entry is odd; everything else means it could not be used.
    if (
      /ambiguous|matched by \d+ credentials|is invalid|longer than platform limit|not utf-8|bad encoding/i.test(detail)
    ) {
      return new Error(`keychain ${operation} of "${name}" failed: ${detail}`);
    }
    return new SecretStoreUnavailableError(unavailableMessage(this.platform, detail));
  }
}

/** The "no keychain" message for `platform`, with the backend's own reason appended. */
export function unavailableMessage(platform: NodeJS.Platform, detail: string): string {
  const reason = detail ? ` (${detail})` : '';
  switch (platform) {
    case 'darwin':
      return `The macOS Keychain is not available${reason}. Unlock your login keychain in Keychain Access and allow PromptForge Studio to use it. Keys are never stored anywhere else.`;
    case 'win32':
      return `Windows Credential Manager is not available${reason}. Make sure the Credential Manager service (VaultSvc) is running and you are signed in to an interactive session. Keys are never stored anywhere else.`;
    default:
      return (
        `No OS keychain (Secret Service over D-Bus) is available${reason}. ` +
        'Install gnome-keyring (or KWallet) and libsecret, and unlock it. ' +
        'In a headless shell, this line starts both for one command ' +
        '(put your command in place of "promptforge keys status" and your keyring password in place of pw):\n' +
        `  ${HEADLESS_KEYRING_RECIPE}\n` +
        "Keys are never stored in plain text. For headless runs the CLI can also read the provider's environment variable (e.g. OPENAI_API_KEY)."
      );
  }
}

/**
 * A shell line that runs a command inside a private D-Bus session with an unlocked GNOME
 * Keyring. Printed as is in the "no keychain" message, so it must work when pasted.
 */
export const HEADLESS_KEYRING_RECIPE =
  "dbus-run-session -- sh -c 'printf pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null && promptforge keys status'";

function checkName(name: string): void {
  // Control characters would make entries unreadable in the OS keychain UI.
  if (name === '' || name.length > 200 || [...name].some((char) => char < ' ' || char === '\u007f')) {
    throw new Error(
      `invalid secret name ${JSON.stringify(name.slice(0, 200))}: use 1-200 printable characters (a provider id)`,
    );
  }
}

const openNapiEntry: KeyringEntryFactory = async (service, account) => {
  let binding: typeof import('@napi-rs/keyring');
  try {
    // Loaded lazily so that importing core on a platform without a prebuilt binary only fails
    // when a key is actually needed, and then as a clear "unavailable" error.
    binding = await import('@napi-rs/keyring');
  } catch (error) {
    throw new SecretStoreUnavailableError(
      unavailableMessage(process.platform, `the keychain module could not be loaded: ${errorMessage(error)}`),
    );
  }
  // Pinning throws if Secret Service is unreachable instead of silently using the in-memory
  // kernel keyring; the option is ignored on macOS and Windows.
  return new binding.AsyncEntry(service, account, { linux: { store: 'secret-service' } });
};
