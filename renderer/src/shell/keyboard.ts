/** Key-event helpers shared by the window shortcuts and the approval cards. */

/** Whether a key event comes from a text field (editors live in shadow roots: look at the real origin). */
export function isTyping(event: Event): boolean {
  const target = event.composedPath()[0];
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}

// The stop chord lives in the one shortcut registry; re-exported for the editors and cards.
export { stopShortcutLabel } from './actions';
