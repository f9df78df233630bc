/**
 * Tells whether focus reached an element through a person's own act: a pointer press inside it, or
 * a keyboard navigation key (Tab, arrows, Home/End). The approval cards accept single-key decisions
 * only then, so focus that lands on a card any other way (a program, a re-render, typing
 * elsewhere) never turns letters into approvals.
 */

const navigationKeys = new Set(['Tab', 'ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight', 'Home', 'End']);

interface LastInput {
  kind: 'pointer' | 'navigation' | 'other';
  /** The innermost element the pointer pressed (inside shadow roots too). */
  target: EventTarget | null;
}

let lastInput: LastInput = { kind: 'other', target: null };
let installed = false;

/** Starts watching the window's input (capture phase, before any handler moves focus). Idempotent. */
export function watchPersonInput(win: Window = window): void {
  if (installed) return;
  installed = true;
  win.addEventListener(
    'pointerdown',
    (event) => {
      lastInput = { kind: 'pointer', target: event.composedPath()[0] ?? null };
    },
    true,
  );
  win.addEventListener(
    'keydown',
    (event) => {
      const navigation = navigationKeys.has(event.key) && !event.ctrlKey && !event.metaKey && !event.altKey;
      lastInput = { kind: navigation ? 'navigation' : 'other', target: null };
    },
    true,
  );
}

/** Whether focus that just entered `element` was moved there by the person (see the module note). */
export function focusWasDeliberate(element: Element): boolean {
  if (lastInput.kind === 'navigation') return true;
  return lastInput.kind === 'pointer' && lastInput.target instanceof Node && element.contains(lastInput.target);
}
