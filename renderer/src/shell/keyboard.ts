/** Key-event helpers shared by the window shortcuts and the approval cards. */

/** Whether a key event comes from a text field (editors live in shadow roots: look at the real origin). */
export function isTyping(event: Event): boolean {
  const target = event.composedPath()[0];
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}

/** How the stop shortcut is written in hints, tooltips and the shortcuts list. */
export const stopShortcutLabel = 'Ctrl/⌘+Shift+.';

/**
 * The stop shortcut: Ctrl+Shift+. (⌘+Shift+. on macOS). No text is ever typed with it and no
 * editor binds it, so it works from anywhere, while a stray Esc (closing a list, leaving the
 * editor) never stops a run. `code` keeps it on the same key whatever the layout prints there.
 */
export function isStopShortcut(event: KeyboardEvent): boolean {
  return (
    (event.ctrlKey || event.metaKey) &&
    event.shiftKey &&
    !event.altKey &&
    (event.code === 'Period' || event.key === '.' || event.key === '>')
  );
}
