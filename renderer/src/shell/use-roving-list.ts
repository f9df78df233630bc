/**
 * One tab stop per list (a roving tabindex): Tab enters a list at its current item (or the one last
 * focused, or the first), ↑ / ↓ move between items, Home / End go to the ends, and a letter moves to
 * the next item whose text starts with it. The explorer's lists use it, so reaching ▶ Run does not
 * take a Tab per agent, tool and run.
 */
import { useRef, useState, type KeyboardEvent } from 'react';

export interface RovingList {
  /** Props for the item with `key`: its tab stop, and what tells the list it has focus. */
  itemProps(key: string): {
    tabIndex: number;
    ref: (element: HTMLElement | null) => void;
    onFocus: () => void;
    'data-roving-key': string;
  };
  /** The list's own key handler (on the element that holds the items). */
  onKeyDown(event: KeyboardEvent<HTMLElement>): void;
}

export function useRovingList(keys: readonly string[], preferred?: string): RovingList {
  const [focused, setFocused] = useState<string | null>(null);
  const elements = useRef(new Map<string, HTMLElement>());
  const stop =
    focused !== null && keys.includes(focused)
      ? focused
      : preferred !== undefined && keys.includes(preferred)
        ? preferred
        : keys[0];

  const move = (key: string | undefined, event: KeyboardEvent<HTMLElement>): void => {
    if (key === undefined) return;
    event.preventDefault();
    elements.current.get(key)?.focus();
  };

  return {
    itemProps: (key) => ({
      tabIndex: key === stop ? 0 : -1,
      ref: (element) => {
        if (element) elements.current.set(key, element);
        else elements.current.delete(key);
      },
      onFocus: () => setFocused(key),
      'data-roving-key': key,
    }),
    onKeyDown: (event) => {
      if (event.altKey || event.ctrlKey || event.metaKey || keys.length === 0) return;
      const from = (event.target as HTMLElement).closest<HTMLElement>('[data-roving-key]')?.dataset['rovingKey'];
      if (from === undefined) return;
      const index = keys.indexOf(from);
      switch (event.key) {
        case 'ArrowDown':
          return move(keys[Math.min(index + 1, keys.length - 1)], event);
        case 'ArrowUp':
          return move(keys[Math.max(index - 1, 0)], event);
        case 'Home':
          return move(keys[0], event);
        case 'End':
          return move(keys.at(-1), event);
        default: {
          // Type-ahead: the next item (after this one, wrapping) whose text starts with the letter.
          if (event.key.length !== 1 || event.key.trim() === '') return;
          const letter = event.key.toLocaleLowerCase();
          for (let step = 1; step <= keys.length; step += 1) {
            const key = keys[(index + step) % keys.length]!;
            // The item's name (its label when it has one: not an icon before it).
            const element = elements.current.get(key);
            const label = element?.querySelector('.item-label') ?? element;
            const text = label?.textContent.trim().toLocaleLowerCase() ?? '';
            if (text.startsWith(letter)) return move(key, event);
          }
        }
      }
    },
  };
}
