/**
 * A modal list to pick from by typing: the command palette (Ctrl/⌘+Shift+P) and quick open
 * (Ctrl/⌘+P) are both one. ↑/↓ (and Ctrl+Home/End) pick, Enter chooses, Esc closes; focus goes back
 * where it was before the dialog opened, then the choice runs (so a choice that moves focus wins).
 *
 * A modal `<dialog>`: the rest of the window is inert while it is open, so no other shortcut fires.
 * The input is a combobox whose options are the items (the WAI-ARIA combobox pattern, with
 * `aria-activedescendant`): focus stays in the input while the highlight moves.
 */
import { useEffect, useId, useRef, useState } from 'react';

/** One item of the list. */
export interface PickerItem {
  key: string;
  /** What the item is called (the part the query matches first). */
  label: string;
  /** Shown after the label, muted: what kind of thing it is, where it is. */
  detail?: string;
  /** A chord shown on the right. */
  keys?: string;
  /** Why it cannot be chosen now; it is then listed greyed with the reason. */
  unavailable?: string | null;
}

export function PickerDialog({
  label,
  inputLabel,
  noun,
  items,
  filter,
  onPick,
  onClose,
  hint = '↑ ↓ to pick · Enter to run · Esc to close',
  optionClassName,
}: {
  /** The dialog's accessible name. */
  label: string;
  inputLabel: string;
  /** What the items are, for "No … matches". */
  noun: string;
  items: readonly PickerItem[];
  /** The items shown for `query`, in order (the caller ranks them). */
  filter: (items: readonly PickerItem[], query: string) => PickerItem[];
  onPick: (item: PickerItem) => void;
  onClose: () => void;
  hint?: string;
  /** Extra class of each option (its look), e.g. per kind of item. */
  optionClassName?: (item: PickerItem) => string;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const input = useRef<HTMLInputElement>(null);
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  const listId = useId();
  const shown = filter(items, query);
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

  const pickAt = (index: number): void => {
    const item = shown[index];
    if (!item || item.unavailable) return;
    onClose();
    // After the dialog unmounted and focus went back: run in the next task.
    setTimeout(() => onPick(item), 0);
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
      aria-label={label}
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
        aria-label={inputLabel}
        aria-expanded="true"
        aria-controls={listId}
        aria-autocomplete="list"
        aria-activedescendant={shown.length > 0 ? `${listId}-${current}` : undefined}
        placeholder={`${inputLabel}…`}
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
          else if (event.key === 'Enter') pickAt(current);
          else return;
          event.preventDefault();
        }}
      />
      <ul id={listId} className="palette-list" role="listbox" aria-label={noun}>
        {shown.map((item, index) => (
          <li
            key={item.key}
            id={`${listId}-${index}`}
            role="option"
            aria-selected={index === current}
            aria-disabled={item.unavailable ? true : undefined}
            className={`palette-option${index === current ? ' active' : ''}${optionClassName ? ` ${optionClassName(item)}` : ''}`}
            onMouseMove={() => setActive(index)}
            onClick={() => pickAt(index)}
          >
            <span className="palette-title">
              <span className="palette-label">{item.label}</span>
              {item.detail ? <span className="palette-detail muted small">{item.detail}</span> : null}
              {item.unavailable ? <span className="palette-why"> ({item.unavailable})</span> : null}
            </span>
            {item.keys ? <kbd className="palette-keys">{item.keys}</kbd> : null}
          </li>
        ))}
      </ul>
      {shown.length === 0 ? (
        <p className="muted palette-empty" role="status">
          No {noun.toLowerCase().replace(/s$/, '')} matches “{query}”.
        </p>
      ) : null}
      <p className="palette-hint small muted">{hint}</p>
    </dialog>
  );
}

/** The element that has focus, looking inside shadow roots (the editors live in them). */
function deepActiveElement(): HTMLElement | null {
  let element: Element | null = document.activeElement;
  while (element?.shadowRoot?.activeElement) element = element.shadowRoot.activeElement;
  return element instanceof HTMLElement ? element : null;
}
