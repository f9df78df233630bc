import type { Locator } from 'playwright';

/**
 * The person's press on a button of an approval card (or of an MCP server's question card), made
 * as a person makes it: wait until the card is armed, press, and press again if the card ignored
 * the press.
 *
 * A card that moves after it armed waits again: a row above it was measured, another card came or
 * went, the window came to the front (a screenshot brings it there). On a busy machine that can
 * happen between the moment the card is seen armed and the moment the press lands, and the card
 * then ignores the press and says so ("Ignored: this card is arming; press again in a moment.").
 * The person presses again once it is ready; so does this helper, and it stops as soon as `done`
 * shows the press was taken. Nothing here waits for a time: each step waits for the card's state.
 *
 * The card says "Ignored" only until it is armed again (then: "The card is ready now: press
 * again."), which may be sooner than a wait polling from here would see it: so the card is watched
 * from inside the page, from just before each press, and marked (`data-press-ignored`) when it
 * says it ignored one. A card that ignored a press for another reason (a key while focus did not
 * come by the person's act, the second click of a double click) is not pressed again: that is the
 * test's mistake, and the wait for `done` then fails naming what the card said.
 */
export interface CardPress {
  /** The card the button is on (an approval card, or an MCP server's question card): one element. */
  readonly card: Locator;
  /** The button the person presses (with `key` or `act`: what is kept in sight while they press). */
  readonly button: Locator;
  /** A key the person presses where focus is (Enter in a form on the card, `a` on a focused card), instead of a click on `button`. */
  readonly key?: string;
  /**
   * The press itself, when it is neither a click on `button` nor `key`: e.g. a click at a point on
   * the screen the test keeps (`page.mouse.click`), made again on each try. The paused clock does
   * not run on while it is made.
   */
  readonly act?: () => Promise<void>;
  /** What shows the press was taken: an element that appears, or the card leaving (`'card-gone'`). */
  readonly done: Locator | 'card-gone';
  /**
   * Runs a paused page clock on by one step (the card arms on a page timer): called for as long
   * as the card is not armed or the press waits for its button. Omit it when the clock runs.
   */
  readonly advance?: () => Promise<void>;
}

/** How many presses the card may ignore before the helper gives up: each one means it moved again. */
const MAX_PRESSES = 6;

/**
 * How the card's notice begins when it ignored a press because it was arming: the words of
 * `ignoredNotice('arming', false)` in renderer/src/approvals/approval-card-logic.ts (a module for
 * the page, which this Node code cannot import).
 */
const IGNORED_ARMING = 'Ignored: this card is arming';

export async function pressWhenArmed({ card, button, key, act, done, advance }: CardPress): Promise<void> {
  const page = card.page();
  const armed = card.and(page.locator('[data-armed="true"]'));
  // Waited for once, across every press: a press the card took may show only after the helper
  // thought it ignored (the card still said "Ignored" from an earlier press, then moved): every
  // wait below ends as soon as it shows, so nothing is pressed on a card that has gone.
  const taken = (done === 'card-gone' ? card.waitFor({ state: 'detached' }) : done.waitFor()).then(
    () => 'taken' as const,
    async (error: unknown) => {
      const notices = await card.locator('.arming-notice').allTextContents();
      const said = notices.join(' ').trim();
      throw new Error(
        `the press on ${button.toString()} was not taken${said === '' ? '' : `; the card says: "${said}"`}`,
        { cause: error },
      );
    },
  );
  // Read below at each step; its failure (the timeout) is thrown from there.
  taken.catch(() => undefined);
  try {
    for (let press = 1; press <= MAX_PRESSES; press += 1) {
      // Before the first press, `done` is not looked at: a test whose `done` shows already still presses.
      const orTaken = <T>(wait: () => Promise<T>): Promise<T | 'taken'> =>
        press === 1 ? wait() : firstOf(taken, wait);
      // In sight before it arms: a press scrolls what it presses into view, and a card that moves waits again.
      if ((await orTaken(() => button.scrollIntoViewIfNeeded())) === 'taken') return;
      // The paused clock runs on only when the card is not armed yet.
      const ready = (await armed.isVisible())
        ? 'ready'
        : await whileWaiting(
            orTaken(() => armed.waitFor()),
            advance,
          );
      if (ready === 'taken') return;
      await watchForIgnored(card, press);
      if (act !== undefined) await act();
      else await whileWaiting(key === undefined ? button.click() : page.keyboard.press(key), advance);
      const ignored = card.and(page.locator(`[data-press-ignored="${press}"]`));
      const outcome = await firstOf(taken, async () => {
        await ignored.waitFor();
        return 'ignored' as const;
      });
      if (outcome === 'taken') return;
    }
  } finally {
    await stopWatching(card);
  }
  throw new Error(`the card ignored ${MAX_PRESSES} presses in a row: it kept moving after it armed`);
}

/**
 * `taken`, or `wait` if it comes first. A wait that loses keeps going (a Playwright wait cannot be
 * called off): its failure, once `taken` came, is not an error, and it must not act, so only
 * waits and scrolls go here, never a press.
 */
async function firstOf<T>(taken: Promise<'taken'>, wait: () => Promise<T>): Promise<T | 'taken'> {
  const waiting = wait();
  const result = await Promise.race([
    taken,
    waiting.catch(async (error: unknown) => {
      // A wait that fails once the press was taken (the card left meanwhile) yields to `taken`.
      if ((await Promise.race([taken, Promise.resolve('not yet' as const)])) === 'taken') return 'taken' as const;
      throw error;
    }),
  ]);
  waiting.catch(() => undefined);
  return result;
}

/** The little of the DOM the watch uses in the page (the tests' TypeScript has no DOM types). */
interface WatchedCard {
  querySelector(selector: string): { textContent: string | null } | null;
  setAttribute(name: string, value: string): void;
  removeAttribute(name: string): void;
  /** The watch on this card, kept on the element itself while a press is made. */
  pressWatch?: { disconnect(): void };
}
type Observer = new (callback: () => void) => {
  observe(target: unknown, options: { subtree: boolean; childList: boolean; characterData: boolean }): void;
  disconnect(): void;
};

/**
 * From now on, marks `card` with `data-press-ignored="press"` once its notice says it ignored a
 * press because it was arming (or says so already: the press about to be made lands on a card
 * that is not armed). Only the page's own observer sees a notice that lasts less than a poll.
 */
async function watchForIgnored(card: Locator, press: number): Promise<void> {
  await card.evaluate(
    (element, { press, ignored }) => {
      const watched = element as unknown as WatchedCard;
      watched.pressWatch?.disconnect();
      watched.removeAttribute('data-press-ignored');
      const check = (): void => {
        const notice = watched.querySelector('.arming-notice')?.textContent ?? '';
        if (notice.startsWith(ignored)) watched.setAttribute('data-press-ignored', String(press));
      };
      const observer = new (globalThis as unknown as { MutationObserver: Observer }).MutationObserver(check);
      observer.observe(element, { subtree: true, childList: true, characterData: true });
      watched.pressWatch = observer;
      check();
    },
    { press, ignored: IGNORED_ARMING },
  );
}

/** Stops watching `card` (if it is still there) and takes its mark away. */
async function stopWatching(card: Locator): Promise<void> {
  await card
    .evaluateAll((elements) => {
      for (const element of elements as unknown as WatchedCard[]) {
        element.pressWatch?.disconnect();
        element.removeAttribute('data-press-ignored');
      }
    })
    // A page that closed took the card and its watch with it; the press's own error says more.
    .catch(() => undefined);
}

/** Waits for `work`, running the paused page clock on (`advance`) meanwhile, if there is one. */
async function whileWaiting<T>(work: Promise<T>, advance: (() => Promise<void>) | undefined): Promise<T> {
  if (advance === undefined) return work;
  // An object, so that the loop reads what the callback wrote (a `let` reads as never changing to the linter).
  const state = { settled: false };
  const watched = work.finally(() => {
    state.settled = true;
  });
  // Awaited below; its failure is not lost.
  watched.catch(() => undefined);
  while (!state.settled) await advance();
  return watched;
}
