import { useEffect, useId, useRef, useState } from 'react';
import { actionMatchesQuery, boundActions, type ActionHandlers } from './actions';

/**
 * The command palette (Ctrl/⌘+Shift+P): every window action with its shortcut, filtered as you
 * type. ↑/↓ (and Home/End) pick, Enter runs, Esc closes. Focus goes back where it was before the
 * palette opened, then the action runs (so an action that moves focus, e.g. to the approvals, wins).
 *
 * A modal `<dialog>`: the rest of the window is inert while it is open, so no other shortcut fires.
 * The input is a combobox whose options are the actions (the WAI-ARIA combobox pattern, with
 * `aria-activedescendant`): focus stays in the input while the highlight moves.
 */
export function CommandPalette({ handlers, onClose }: { handlers: ActionHandlers; onClose: () => void }) {
  const actions = boundActions(handlers);
  const dialog = useRef<HTMLDialogElement>(null);
  const input = useRef<HTMLInputElement>(null);
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  const listId = useId();
  const shown = actions.filter((action) => actionMatchesQuery(action.spec, query));
  const current = Math.min(active, Math.max(0, shown.length - 1));

  useEffect(() => {
    const element = dialog.current;
    const returnTo = deepActiveElement();
    if (element && !element.open) element.showModal();
    input.current?.focus();
    return () => {
      element?.close();
      // The dialog was modal: focus goes back to what had it (inside an editor's shadow root too).
      if (returnTo?.isConnected) returnTo.focus();
    };
  }, []);

  const runAt = (index: number): void => {
    const action = shown[index];
    if (!action || action.handler.unavailable) return;
    onClose();
    // After the palette unmounted and focus went back: run in the next task.
    setTimeout(() => action.handler.run(), 0);
  };

  const move = (to: number): void => {
    if (shown.length === 0) return;
    const next = (to + shown.length) % shown.length;
    setActive(next);
    document.getElementById(`${listId}-${next}`)?.scrollIntoView({ block: 'nearest' });
  };

  return (
    <dialog
      ref={dialog}
      className="modal command-palette"
      aria-label="Command palette"
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      <input
        ref={input}
        className="text-input palette-input"
        type="text"
        role="combobox"
        aria-label="Type to filter the actions"
        aria-expanded="true"
        aria-controls={listId}
        aria-autocomplete="list"
        aria-activedescendant={shown.length > 0 ? `${listId}-${current}` : undefined}
        placeholder="Type to filter the actions…"
        spellCheck={false}
        autoComplete="off"
        value={query}
        onChange={(event) => {
          setQuery(event.target.value);
          setActive(0);
        }}
        onKeyDown={(event) => {
          if (event.key === 'ArrowDown') move(current + 1);
          else if (event.key === 'ArrowUp') move(current - 1);
          else if (event.key === 'Home' && event.ctrlKey) move(0);
          else if (event.key === 'End' && event.ctrlKey) move(shown.length - 1);
          else if (event.key === 'Enter') runAt(current);
          else return;
          event.preventDefault();
        }}
      />
      <ul id={listId} className="palette-list" role="listbox" aria-label="Actions">
        {shown.map((action, index) => (
          <li
            key={action.spec.id}
            id={`${listId}-${index}`}
            role="option"
            aria-selected={index === current}
            aria-disabled={action.handler.unavailable ? true : undefined}
            className={`palette-option${index === current ? ' active' : ''}`}
            onMouseMove={() => setActive(index)}
            onClick={() => runAt(index)}
          >
            <span className="palette-title">
              <span className="palette-label">{action.spec.title}</span>
              {action.handler.unavailable ? <span className="palette-why"> ({action.handler.unavailable})</span> : null}
            </span>
            {action.spec.keys ? <kbd className="palette-keys">{action.spec.keys}</kbd> : null}
          </li>
        ))}
      </ul>
      {shown.length === 0 ? (
        <p className="muted palette-empty" role="status">
          No action matches “{query}”.
        </p>
      ) : null}
      <p className="palette-hint small muted">↑ ↓ to pick · Enter to run · Esc to close</p>
    </dialog>
  );
}

/** The element that has focus, looking inside shadow roots (the editors live in them). */
function deepActiveElement(): HTMLElement | null {
  let element: Element | null = document.activeElement;
  while (element?.shadowRoot?.activeElement) element = element.shadowRoot.activeElement;
  return element instanceof HTMLElement ? element : null;
}
