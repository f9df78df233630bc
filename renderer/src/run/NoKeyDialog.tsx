import { useId } from 'react';
import { Modal } from '../shell/Dialogs';
import { KeyInput } from '../settings/KeyInput';
import { useKeyEntry } from '../settings/use-key-entry';
import '../settings/settings.css';
import type { MissingKey } from './key-check';

/**
 * Shown when a live run stopped because its model has no key: set the key right here (write-only,
 * as in Credentials) and run again, or run the agent's recording offline when it has one.
 */
export function NoKeyDialog({
  missing,
  agent,
  onRunWithKey,
  onRunOffline,
  onClose,
}: {
  missing: MissingKey;
  /** The agent's name, as the tabs show it. */
  agent: string;
  /** The key is stored: start the live run again. */
  onRunWithKey: () => void;
  /** Replay the agent's recording instead; absent when it has none. */
  onRunOffline: (() => void) | undefined;
  onClose: () => void;
}) {
  const entry = useKeyEntry(missing.provider);
  const inputId = useId();
  const hintId = useId();
  const submit = async (): Promise<void> => {
    if (entry.key.trim() === '') return;
    if (await entry.submit()) onRunWithKey();
  };
  return (
    <Modal
      title={`No ${missing.label} key`}
      onClose={onClose}
      actions={
        <>
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          {onRunOffline ? (
            <button type="button" className="button" onClick={onRunOffline}>
              Run the recording offline
            </button>
          ) : null}
          <button
            type="submit"
            form={`${inputId}-form`}
            className="button button-primary"
            disabled={entry.busy || entry.key.trim() === ''}
          >
            Set key and run again
          </button>
        </>
      }
    >
      <p>
        <strong>{agent}</strong> runs with the model <code>{missing.alias}</code> ({missing.label}{' '}
        <code>{missing.modelId}</code>), and the keychain holds no {missing.label} key, so the run stopped before the
        model was asked anything.
      </p>
      <form
        id={`${inputId}-form`}
        className="key-form no-key-form"
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
      >
        <label htmlFor={inputId}>{missing.label} API key</label>
        <KeyInput id={inputId} entry={entry} autoFocus aria-describedby={hintId} placeholder="paste key" />
      </form>
      <p id={hintId} className="muted small">
        The key goes to the OS keychain, as in Credentials; the studio never shows it again.
        {onRunOffline
          ? ' Or run the recording that ships with this agent: offline, with no key, answered as it was recorded.'
          : ' This agent has no recording to run offline.'}
      </p>
      {entry.error ? (
        <p className="error-text" role="alert">
          {entry.error}
        </p>
      ) : null}
    </Modal>
  );
}
