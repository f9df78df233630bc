import { useEffect, useRef, type ReactNode } from 'react';
import { actionSpecs } from './actions';

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

const shortcutGroupTitles = {
  window: 'Anywhere in the window',
  editor: 'In an editor',
  'approval card': 'On an approval card',
} as const;

/** The keyboard shortcuts (from the one registry in actions.ts), opened with `?` or the header button. */
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
      {(['window', 'editor', 'approval card'] as const).map((scope) => (
        <table key={scope} className="data-table shortcuts-table">
          <caption>{shortcutGroupTitles[scope]}</caption>
          <tbody>
            {actionSpecs
              .filter((spec) => spec.scope === scope && spec.keys !== undefined)
              .map((spec) => (
                <tr key={spec.keys}>
                  <th scope="row">
                    <kbd>{spec.keys}</kbd>
                  </th>
                  <td>{spec.title}</td>
                </tr>
              ))}
          </tbody>
        </table>
      ))}
      <p className="small muted">Every action, with or without a shortcut, is in the command palette.</p>
    </Modal>
  );
}
