/**
 * Tells whether a modal covers an element: a `<dialog>` opened with showModal (the command palette,
 * the shortcuts dialog, every confirmation), or an element shown full screen, that does not contain
 * it. While one is open the rest of the window is inert and mostly hidden behind it, so the person
 * cannot see an approval card there, even though the card is laid out and `checkVisibility()` says
 * it is visible.
 */

/** Every `<dialog>` in the document (a live list: reading it costs nothing). */
const dialogs = document.getElementsByTagName('dialog');

/** Whether a modal that does not contain `element` is open, or `element` is inert. */
export function coveredByModal(element: Element): boolean {
  for (const dialog of dialogs) if (dialog.matches(':modal') && !dialog.contains(element)) return true;
  const fullScreen = document.fullscreenElement;
  if (fullScreen && !fullScreen.contains(element)) return true;
  return element.closest('[inert]') !== null;
}

const listeners = new Set<() => void>();
const onEvent = (): void => check();
let observer: MutationObserver | null = null;
let covered = false;

/** Whether a modal covers the window (the whole of it: an open modal dialog, full screen). */
function windowCovered(): boolean {
  for (const dialog of dialogs) if (dialog.matches(':modal')) return true;
  return document.fullscreenElement !== null;
}

/** Tells every listener when a modal opens or closes, or `inert` changes, anywhere in the document. */
function check(records: readonly MutationRecord[] = []): void {
  const now = windowCovered();
  if (now === covered && !records.some((record) => record.attributeName === 'inert')) return;
  covered = now;
  for (const listener of [...listeners]) listener();
}

/**
 * Calls `listener` whenever a modal opens or closes (a dialog shown or closed with showModal/close,
 * added or removed while open, full screen entered or left, `inert` set or cleared), in the
 * microtask after the change, before the browser paints. Returns the function that stops it.
 */
export function watchModals(listener: () => void): () => void {
  listeners.add(listener);
  if (!observer) {
    covered = windowCovered();
    observer = new MutationObserver((records) => check(records));
    observer.observe(document.documentElement, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ['open', 'inert'],
    });
    document.addEventListener('fullscreenchange', onEvent);
    // A dialog closes with its `close` event (it does not bubble; capture sees it).
    document.addEventListener('close', onEvent, true);
  }
  return () => {
    listeners.delete(listener);
    if (listeners.size > 0 || !observer) return;
    observer.disconnect();
    observer = null;
    document.removeEventListener('fullscreenchange', onEvent);
    document.removeEventListener('close', onEvent, true);
  };
}
