import { useState } from 'react';
import { call, describeError } from '../shell/studio-api';

/** A write-only key field: what was typed, whether it is being stored, and why storing failed. */
export interface KeyEntry {
  key: string;
  setKey: (key: string) => void;
  busy: boolean;
  error: string | null;
  /**
   * Stores the typed key for `provider` in the keychain. The key leaves the page state at once;
   * only the request carries it (renderer → main). Resolves to whether it replaced a key, or
   * `null` when storing failed (then {@link error} says why).
   */
  submit: () => Promise<{ replaced: boolean } | null>;
}

/** The state of one provider's key field (Credentials, and the no-key offer before a run). */
export function useKeyEntry(provider: string): KeyEntry {
  const [key, setKey] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const submit = async (): Promise<{ replaced: boolean } | null> => {
    const value = key;
    setKey('');
    setBusy(true);
    setError(null);
    try {
      return await call('keys:set', { provider, key: value });
    } catch (failure) {
      setError(describeError(failure));
      return null;
    } finally {
      setBusy(false);
    }
  };

  return { key, setKey, busy, error, submit };
}
