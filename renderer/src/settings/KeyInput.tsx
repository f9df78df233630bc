import type { InputHTMLAttributes } from 'react';
import type { KeyEntry } from './use-key-entry';

/**
 * The write-only field of a {@link KeyEntry} (Credentials, and the no-key offer before a run): a
 * password input the browser neither fills in nor spell-checks. The page holds what is typed only
 * until it is stored.
 */
export function KeyInput({
  entry,
  ...attributes
}: { entry: Pick<KeyEntry, 'key' | 'setKey'> } & Omit<
  InputHTMLAttributes<HTMLInputElement>,
  'type' | 'value' | 'onChange' | 'className' | 'autoComplete' | 'spellCheck'
>) {
  return (
    <input
      {...attributes}
      type="password"
      className="text-input"
      autoComplete="off"
      spellCheck={false}
      value={entry.key}
      onChange={(event) => entry.setKey(event.target.value)}
    />
  );
}
