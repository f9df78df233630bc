import { useEffect, useRef, type ReactNode } from 'react';
import { stopShortcutLabel } from './keyboard';

/** A modal dialog on the native `<dialog>` element (focus trap and Esc come with it). */
export function Modal({
  title,
  onClose,
  children,
  actions,
}: {
  title: string;
  onClose: () => void;
  children: ReactNode;
  actions: ReactNode;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
    return () => element?.close();
  }, []);
  return (
    <dialog
      ref={dialog}
      className="modal"
      aria-labelledby="modal-title"
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      <h2 id="modal-title">{title}</h2>
      <div className="modal-body">{children}</div>
      <div className="button-row modal-actions">{actions}</div>
    </dialog>
  );
}

/** A yes/no question, e.g. before leaving unsaved edits. */
export function ConfirmDialog({
  title,
  message,
  confirmLabel,
  onConfirm,
  onCancel,
}: {
  title: string;
  message: string;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  return (
    <Modal
      title={title}
      onClose={onCancel}
      actions={
        <>
          <button type="button" className="button" onClick={onCancel} autoFocus>
            Cancel
          </button>
          <button type="button" className="button button-primary" onClick={onConfirm}>
            {confirmLabel}
          </button>
        </>
      }
    >
      <p>{message}</p>
    </Modal>
  );
}

const shortcuts: Array<[keys: string, what: string]> = [
  ['Ctrl/⌘ + Enter', 'Run the agent (the editor’s text, saved or not)'],
  [stopShortcutLabel.replace(/\+/g, ' + '), 'Stop the running agent, from anywhere (Esc never stops a run)'],
  ['Ctrl/⌘ + S', 'Save the agent or catalog file'],
  ['Esc, then Tab', 'Leave the editor (in an editor, Tab indents)'],
  ['A', 'Approve the call (once you clicked or tabbed into its card)'],
  ['E', 'Edit the arguments, then approve'],
  ['D', 'Deny with a reason'],
  ['Shift + L', 'Allow for this run: untainted calls of this tool stop asking'],
  ['↑ / ↓', 'Move between approval cards'],
  ['?', 'Show this list'],
];

/** The keyboard shortcuts, opened with `?` or the header button. */
export function ShortcutsDialog({ onClose }: { onClose: () => void }) {
  return (
    <Modal
      title="Keyboard shortcuts"
      onClose={onClose}
      actions={
        <button type="button" className="button" onClick={onClose} autoFocus>
          Close
        </button>
      }
    >
      <table className="data-table shortcuts-table">
        <tbody>
          {shortcuts.map(([keys, what]) => (
            <tr key={keys}>
              <th scope="row">
                <kbd>{keys}</kbd>
              </th>
              <td>{what}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Modal>
  );
}
