import { useId, useState, type ReactNode } from 'react';
import { Modal } from '../shell/Dialogs';
import './workspace.css';

/** What the name dialog names: an agent (`agents/NAME.lua`) unless told otherwise. */
interface NamedFile {
  /** The field's label. */
  label: string;
  /** The folder shown before the field, and the extension after it. */
  folder: string;
  extension: string;
  /** What a good name is, under the field. */
  hint: ReactNode;
}

const AGENT_FILE: NamedFile = {
  label: 'Agent name',
  folder: 'agents/',
  extension: '.lua',
  hint: (
    <>
      Letters, digits, - and _ (a dot inside too); the file is <code>agents/NAME.lua</code>.
    </>
  ),
};

/**
 * Asks for a new file's name: an agent's (New agent, Save as, Rename), or another kind's (`file`).
 * The core checks the name; its message (name taken, empty, a slash, reserved…) shows next to
 * the field and the dialog stays open.
 */
export function AgentNameDialog({
  title,
  intro,
  initialName,
  submitLabel,
  onSubmit,
  onClose,
  file = AGENT_FILE,
}: {
  title: string;
  intro: ReactNode;
  initialName: string;
  submitLabel: string;
  /** Resolves to `null` when done (the caller closes the dialog), or to the message to show. */
  onSubmit: (name: string) => Promise<string | null>;
  onClose: () => void;
  file?: NamedFile;
}) {
  const [name, setName] = useState(initialName);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const inputId = useId();
  const errorId = useId();
  const hintId = useId();

  const submit = async (): Promise<void> => {
    setBusy(true);
    setError(null);
    const problem = await onSubmit(name);
    setBusy(false);
    if (problem !== null) setError(problem);
  };

  return (
    <Modal
      title={title}
      onClose={onClose}
      actions={
        <>
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" form={`${inputId}-form`} className="button button-primary" disabled={busy}>
            {submitLabel}
          </button>
        </>
      }
    >
      <div className="agent-name-intro">{intro}</div>
      <form
        id={`${inputId}-form`}
        className="agent-name-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (!busy) void submit();
        }}
      >
        <label htmlFor={inputId}>{file.label}</label>
        <div className="agent-name-field">
          <span className="muted" aria-hidden="true">
            {file.folder}
          </span>
          <input
            id={inputId}
            className="text-input"
            autoFocus
            autoComplete="off"
            spellCheck={false}
            value={name}
            aria-invalid={error !== null}
            aria-describedby={error !== null ? `${errorId} ${hintId}` : hintId}
            onChange={(event) => {
              setName(event.target.value);
              setError(null);
            }}
          />
          <span className="muted" aria-hidden="true">
            {file.extension}
          </span>
        </div>
        <p id={hintId} className="muted small">
          {file.hint}
        </p>
        {error !== null ? (
          <p id={errorId} className="error-text field-error" role="alert">
            {error}
          </p>
        ) : null}
      </form>
    </Modal>
  );
}

/**
 * Deleting an agent when the studio cannot just ask: a run of it is in progress (the core refuses
 * to delete a running agent; this offers to stop the run), or the delete failed. The question
 * itself, which names exactly what goes, is main's own dialog, asked when Delete is pressed: this
 * page never asks it a second time.
 */
export function DeleteAgentDialog({
  path,
  running,
  busy,
  error,
  onStop,
  onDelete,
  onClose,
}: {
  path: string;
  /** A run of this agent is in progress. */
  running: boolean;
  busy: boolean;
  error: string | null;
  onStop: () => void;
  onDelete: () => void;
  onClose: () => void;
}) {
  return (
    <Modal
      title="Delete the agent"
      onClose={onClose}
      actions={
        <>
          <button type="button" className="button" onClick={onClose} autoFocus>
            Cancel
          </button>
          {running ? (
            <button type="button" className="button" onClick={onStop} disabled={busy}>
              {busy ? <span className="spinner" aria-hidden="true" /> : null}
              Stop the run
            </button>
          ) : (
            <button type="button" className="button button-danger" onClick={onDelete} disabled={busy}>
              Delete…
            </button>
          )}
        </>
      }
    >
      {running ? (
        <p className="warning-text" role="status">
          <code>{path}</code> is running now, and a running agent is not deleted. Stop the run first.
        </p>
      ) : (
        <p role="status">
          <code>{path}</code> is not running. Delete… asks you to confirm in the studio&apos;s own dialog, which names
          what is deleted.
        </p>
      )}
      {error !== null ? (
        <p className="error-text" role="alert">
          {error}
        </p>
      ) : null}
    </Modal>
  );
}
