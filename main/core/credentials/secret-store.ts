/**
 * Where provider keys live. The one real implementation is the OS keychain. There is no
 * plaintext or in-memory fallback: an unavailable keychain is a {@link SecretStoreUnavailableError}.
 * Only the main process (and the CLI) may hold a SecretStore; the renderer sees `set` / `not-set`.
 */
export interface SecretStore {
  /** The secret for `name` (e.g. `openai`), or undefined when none is stored. */
  get(name: string): Promise<string | undefined>;
  /** Stores or replaces the secret for `name`. */
  set(name: string, secret: string): Promise<void>;
  /** Deletes it; resolves true when something was deleted. */
  delete(name: string): Promise<boolean>;
  /** Whether a secret is stored, without revealing it. */
  has(name: string): Promise<boolean>;
}

/** The OS keychain cannot be reached; `message` says what to install or unlock. */
export class SecretStoreUnavailableError extends Error {
  /** How the CLI reports it (with the launcher's advice). */
  readonly kind = 'secret-store-unavailable';
  constructor(message: string) {
    super(message);
    this.name = 'SecretStoreUnavailableError';
  }
}
