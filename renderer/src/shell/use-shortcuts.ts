import { useEffect, useRef } from 'react';
import { actionForKey, type ActionHandlers } from './actions';
import { isTyping } from './keyboard';

/**
 * The window-wide shortcuts: a key event that is a window action's chord (actions.ts) runs its
 * handler. Skipped: an event a widget already handled (the editors run Ctrl/⌘+Enter and Ctrl/⌘+S
 * themselves and mark the event), everything while `blocked` (a modal dialog is open: it owns the
 * keys), and single keys typed in a text field or an editor.
 */
export function useShortcuts(handlers: ActionHandlers, blocked: boolean): void {
  const latest = useRef(handlers);
  useEffect(() => {
    latest.current = handlers;
  });
  useEffect(() => {
    if (blocked) return;
    const onKeyDown = (event: KeyboardEvent): void => {
      if (event.defaultPrevented || event.repeat) return;
      const spec = actionForKey(event, isTyping(event));
      if (!spec) return;
      const handler = latest.current[spec.id];
      if (!handler) return;
      event.preventDefault();
      if (!handler.unavailable) handler.run();
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, [blocked]);
}
