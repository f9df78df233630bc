import { useState } from 'react';
import type { KeyTarget } from '../../../common/contract.js';
import { call, describeError } from '../shell/studio-api';

/** A write-only key field: what was typed, whether it is being stored, and why storing failed. */
export interface KeyEntry {
  key: string;
  setKey: (key: string) => void;
  busy: boolean;
  error: string | null;
  /**
   * Stores the typed key for the target in the keychain. The key leaves the page state at once;
   * only the request carries it (renderer → main). Resolves to whether it replaced a key, or
   * `null` when storing failed (then {@link error} says why).
   */
  submit: () => Promise<{ replaced: boolean } | null>;
}

/**
 * The state of one key field (Credentials, and the no-key offer before a run). `target` is a
 * provider id, or a {@link KeyTarget}.
 */
export function useKeyEntry(target: string | KeyTarget): KeyEntry {
  const [key, setKey] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const submit = async (): Promise<{ replaced: boolean } | null> => {
    const value = key;
    setKey('');
    setBusy(true);
    setError(null);
    try {
      const entry = typeof target === 'string' ? { provider: target } : target;
      return await call('keys:set', { ...entry, key: value });
    } catch (failure) {
      setError(describeError(failure));
      return null;
    } finally {
      setBusy(false);
    }
  };

  return { key, setKey, busy, error, submit };
}
