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
 */
export interface CardPress {
  /** The card (an `.approval-card`) the button is on. */
  readonly card: Locator;
  /** The button the person presses (with `key`: what is kept in sight while the key is pressed). */
  readonly button: Locator;
  /** A key the person presses where focus is (Enter in a form on the card), instead of a click on `button`. */
  readonly key?: string;
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

export async function pressWhenArmed({ card, button, key, done, advance }: CardPress): Promise<void> {
  const armed = card.and(card.page().locator('[data-armed="true"]'));
  // A press the card ignored: the card says so in its notice (an earlier one said "press again").
  const ignored = card.locator('.arming-notice', { hasText: /^Ignored: this card is arming/ });
  const taken = (): Promise<void> => (done === 'card-gone' ? card.waitFor({ state: 'detached' }) : done.waitFor());
  for (let press = 1; press <= MAX_PRESSES; press += 1) {
    // In sight before it arms: a press scrolls what it presses into view, and a card that moves waits again.
    await button.scrollIntoViewIfNeeded();
    await whileWaiting(armed.waitFor(), advance);
    await whileWaiting(key === undefined ? button.click() : card.page().keyboard.press(key), advance);
    const outcome = await Promise.race([
      taken().then(() => 'taken' as const),
      // Only `done` may fail the wait: a notice that never comes is not an error.
      ignored.waitFor().then(
        () => 'ignored' as const,
        () => new Promise<never>(() => undefined),
      ),
    ]);
    if (outcome === 'taken') return;
  }
  throw new Error(`the card ignored ${MAX_PRESSES} presses in a row: it kept moving after it armed`);
}

/** Waits for `work`, running the paused page clock on (`advance`) meanwhile, if there is one. */
async function whileWaiting<T>(work: Promise<T>, advance: (() => Promise<void>) | undefined): Promise<T> {
  if (advance === undefined) return work;
  let settled = false;
  const watched = work.finally(() => {
    settled = true;
  });
  // The loser of the race is awaited below; its failure is not lost.
  watched.catch(() => undefined);
  while (!settled) await advance();
  return watched;
}
