/**
 * The person at the studio, for the e2e harness (test/e2e/bridge.ts): their answers at main's own
 * dialog (Electron's message box, which Chromium alone cannot show: a STAND-IN the test answers),
 * and the input that reaches the studio window. That input is not made up: it is the page's
 * trusted presses (Playwright's clicks and key presses, which Chromium marks `isTrusted`, as it
 * marks the operating system's), seen by a script in an isolated world the page cannot reach and
 * reported through a binding only that world has. So a page's `dispatchEvent` counts for nothing
 * here, as Electron's `input-event` never reports it in the app.
 */
import type { BrowserContext, CDPSession, Page } from 'playwright';
import {
  PERSON_INPUT_MAX_AGE_MS,
  PersonInputLog,
  personInputClock,
  type PersonInputEvent,
} from '../../main/core/studio/person-input.js';
import type { ConfirmWithPerson, PersonQuestion } from '../../main/core/studio/studio-trust.js';

/**
 * How the person's input reaches the studio window: `'real'` (the default): each trusted press in
 * the page reaches it as it happens, as in the app; `'none'`: no input reaches it; `'other-window'`:
 * every press reaches another window; `'stale'`: every press reaches it dated older than the gate
 * allows. The gate itself (main/core/studio/person-input.ts) judges each call, on a real
 * {@link PersonInputLog}, as in the app.
 */
export type PersonInputStandIn = 'real' | 'none' | 'other-window' | 'stale';

/** The isolated world the press reporter runs in, and the binding only that world gets. */
const PRESS_WORLD = 'promptforge-person-input';
const PRESS_BINDING = '__pfPersonPress';

/**
 * Runs in every frame's isolated world, before the page's own scripts: reports each trusted press
 * (a key, a mouse button, a touch) through the binding. The page's world has neither this listener
 * nor the binding, and events it dispatches are not trusted.
 */
const PRESS_REPORTER = `(() => {
  const report = globalThis.${PRESS_BINDING};
  if (typeof report !== 'function') return;
  const send = (type, isAutoRepeat) => report(JSON.stringify({ type, isAutoRepeat }));
  addEventListener('keydown', (event) => { if (event.isTrusted) send('keyDown', event.repeat); }, true);
  addEventListener('mousedown', (event) => { if (event.isTrusted) send('mouseDown', false); }, true);
  addEventListener('touchstart', (event) => { if (event.isTrusted) send('touchStart', false); }, true);
})();`;

/**
 * The person, a stand-in. At main's own dialog: `asked` records each question (trusting a
 * workspace, sending a key to a new origin, deleting an agent), `answers` are taken in order, then
 * `fallback`. At the keyboard and mouse: what the page's trusted presses (or the test, acting as
 * the person, {@link pressForTest}) deliver, as {@link input} says; approval:decide and main's
 * dialogs need one.
 */
export class PersonStandIn {
  readonly asked: PersonQuestion[] = [];
  readonly answers: boolean[] = [];
  fallback = true;
  /** The presses that reached main, judged by the app's own gate. */
  readonly personInput = new PersonInputLog();
  private mode: PersonInputStandIn = 'real';

  /** `studioWindow`: the studio window's `webContents` id, while it is open. */
  constructor(private readonly studioWindow: () => number | undefined) {}

  /** How input reaches the studio window from now on; what reached it before is forgotten. */
  get input(): PersonInputStandIn {
    return this.mode;
  }
  set input(mode: PersonInputStandIn) {
    this.mode = mode;
    this.forgetInput();
  }

  /** Forgets every press that reached the window so far (as if the person had not touched it lately). */
  forgetInput(): void {
    const window = this.studioWindow();
    if (window !== undefined) {
      this.personInput.forget(window);
      this.personInput.forget(window + 1);
    }
  }

  /** Main's own confirmation dialog, answered by this person. */
  readonly confirm: ConfirmWithPerson = async (question) => {
    this.asked.push(question);
    return this.answers.shift() ?? this.fallback;
  };

  /** A trusted press in the page reached the window (as {@link input} says). */
  pressed(event: PersonInputEvent): void {
    const window = this.studioWindow();
    if (window === undefined || this.mode === 'none') return;
    if (this.mode === 'other-window') this.personInput.record(window + 1, event, personInputClock());
    else if (this.mode === 'stale')
      this.personInput.record(window, event, personInputClock() - PERSON_INPUT_MAX_AGE_MS - 1);
    else this.personInput.record(window, event, personInputClock());
  }

  /**
   * The test, acting as the person, presses before a call it makes itself (`StudioHarness.call`,
   * which no page input comes with): a STAND-IN press, delivered as {@link input} says.
   */
  pressForTest(): void {
    this.pressed({ type: 'mouseDown' });
  }
}

/**
 * Installs the press reporter in `page` (every frame, every document it loads) and hands each
 * trusted press to `onPress`. `flush` resolves once every press the page made before it was
 * called has been handed over: the harness calls it before it passes a page's call to main, so
 * the click that made the call is known when the gate judges it.
 */
export async function watchTrustedPresses(
  context: BrowserContext,
  page: Page,
  onPress: (event: PersonInputEvent) => void,
): Promise<{ flush(): Promise<void> }> {
  const session: CDPSession = await context.newCDPSession(page);
  session.on('Runtime.bindingCalled', (event) => {
    if (event.name !== PRESS_BINDING) return;
    const press = JSON.parse(event.payload) as { type: string; isAutoRepeat: boolean };
    onPress({ type: press.type, isAutoRepeat: press.isAutoRepeat });
  });
  await session.send('Runtime.enable');
  await session.send('Runtime.addBinding', { name: PRESS_BINDING, executionContextName: PRESS_WORLD });
  await session.send('Page.enable');
  await session.send('Page.addScriptToEvaluateOnNewDocument', {
    source: PRESS_REPORTER,
    worldName: PRESS_WORLD,
    runImmediately: true,
  });
  return {
    // A round trip on the same session: its answer comes after every notification sent before it.
    flush: async () => {
      await session.send('Runtime.evaluate', { expression: '0' });
    },
  };
}
