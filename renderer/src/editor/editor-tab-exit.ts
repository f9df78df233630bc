import { completionStatus } from '@codemirror/autocomplete';
import type { Extension } from '@codemirror/state';
import { EditorView, showPanel, type Panel } from '@codemirror/view';

/** The hint shown under a focused editor, and after Esc. */
const tabHint = 'Tab indents · Esc then Tab leaves the editor';
const tabLeavesHint = 'Tab now leaves the editor (Shift+Tab goes back) · any other key keeps editing';

// Keys that do not end the "Esc was pressed" state (Shift for Shift+Tab, and the other modifiers).
const modifierKeys = new Set(['Shift', 'Control', 'Alt', 'Meta', 'CapsLock', 'Escape', 'Tab']);

/**
 * Tab indents in the editor, so Tab alone cannot leave it. Esc then Tab (or Shift+Tab) moves focus
 * on, with no time limit: Esc switches CodeMirror's tab-focus mode on until the next other key or
 * until focus leaves. (CodeMirror's own Esc arms it for two seconds only; Ctrl+M toggles it for
 * good.) A bottom panel says so whenever the editor has focus; `data-tab-leaves` on the editor
 * tells whether the next Tab leaves.
 */
export function tabExit(hintId: string): Extension {
  let escArmed = false;
  let panelDom: HTMLElement | null = null;
  const render = (view: EditorView): void => {
    view.dom.dataset['tabLeaves'] = escArmed ? 'true' : 'false';
    if (!panelDom) return;
    panelDom.hidden = !view.hasFocus;
    panelDom.textContent = escArmed ? tabLeavesHint : tabHint;
  };
  const disarm = (view: EditorView): void => {
    if (!escArmed) return;
    escArmed = false;
    view.setTabFocusMode(false);
    render(view);
  };
  const panel = (view: EditorView): Panel => {
    const dom = document.createElement('div');
    dom.className = 'cm-tab-hint';
    dom.id = hintId;
    panelDom = dom;
    return {
      dom,
      mount: () => render(view),
      update: (update) => {
        if (update.focusChanged && !update.view.hasFocus) disarm(update.view);
        render(update.view);
      },
    };
  };
  return [
    showPanel.of(panel),
    EditorView.contentAttributes.of({ 'aria-describedby': hintId }),
    // An observer sees every key, also those a key binding handles (undo, completion, ...).
    EditorView.domEventObservers({
      keydown(event, view) {
        if (event.key === 'Escape') {
          // Esc that closes the completion list only closes it, as in CodeMirror itself.
          if (completionStatus(view.state) === 'active') return;
          escArmed = true;
          view.setTabFocusMode(true);
          render(view);
        } else if (!modifierKeys.has(event.key)) disarm(view);
      },
    }),
    EditorView.theme({
      '.cm-tab-hint': {
        padding: '2px 8px',
        fontSize: '11px',
        color: 'var(--color-text-muted)',
        borderTop: '1px solid var(--color-border)',
        backgroundColor: 'var(--color-surface-raised)',
      },
      '.cm-tab-hint[hidden]': { display: 'none' },
    }),
  ];
}
