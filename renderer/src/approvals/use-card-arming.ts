/**
 * Arming and motion tracking of the approval cards: a card takes keys and clicks only once it has
 * been seen, in its place, for armDelayMs (see approval-card-logic.ts), and the panel counts every
 * move of a card on screen so that it waits again.
 */
import { useCallback, useEffect, useLayoutEffect, useRef, useState, type RefObject } from 'react';
import { flushSync } from 'react-dom';
import {
  approvalKey,
  armDelayMs,
  countMoves,
  movedByScrollOnly,
  movedOnScreen,
  personScrollMs,
  scrollKeys,
  type OnScreen,
} from './approval-card-logic';
import { coveredByModal, watchModals } from './covering-modal';
import { focusWasDeliberate } from './deliberate-focus';

/**
 * Whether the person can see the card: laid out (the run panel is open) in a window not hidden,
 * and not behind a modal dialog (the command palette, the shortcuts dialog, a confirmation).
 */
function canBeSeen(element: HTMLElement): boolean {
  return document.visibilityState === 'visible' && element.checkVisibility() && !coveredByModal(element);
}

/** A card's arming, from {@link useCardArming}. */
export interface CardArming {
  /** Whether the card takes keys and clicks now. */
  armed: boolean;
  /** The token armed for: it changes (and the card waits again) on every reason to arm again. */
  arming: string;
  /** Whether the person can see the card. */
  shown: boolean;
}

/**
 * Arms the card in `card` once it has been seen, in its place, for armDelayMs. Arming belongs to
 * one `arming` token (the asking `askedAt`, the cards above `place`, the panel's count of its
 * moves `moved`, and how often it was shown or the window came back): when the call is asked
 * anew or the card moves, it is disarmed in the same render, with no window in which an old
 * `armed` could take a key or a click.
 */
export function useCardArming(
  card: RefObject<HTMLElement | null>,
  askedAt: string,
  place: string,
  moved: number,
): CardArming {
  const [armedFor, setArmedFor] = useState<string | null>(null);
  /** Whether the person can see the card; \`times\` counts how often it was shown. */
  const [sight, setSight] = useState({ shown: false, times: 0 });
  /** Bumped when the window came back to the front (moves on screen come from the panel: `moved`). */
  const [moves, setMoves] = useState(0);
  const arming = `${askedAt} ${place} ${sight.times} ${moves} ${moved}`;
  const armed = sight.shown && armedFor === arming;

  // Armed once the card has been seen, in its place, for armDelayMs (see armDelayMs).
  useEffect(() => {
    if (!sight.shown) return;
    const timer = window.setTimeout(() => setArmedFor(arming), armDelayMs);
    return () => window.clearTimeout(timer);
  }, [arming, sight.shown]);
  // Seen or not: the run panel opened or collapsed (the card's box appears or goes), the window
  // shown or hidden, a modal dialog opened or closed over it. The window coming back to the front
  // (a click on it, a notification) arms again too. Updated at once (flushSync), before a click
  // that follows can land.
  useLayoutEffect(() => {
    const element = card.current;
    if (!element) return;
    const look = (): void => {
      const shown = canBeSeen(element);
      setSight((sight) => (sight.shown === shown ? sight : { shown, times: sight.times + (shown ? 1 : 0) }));
    };
    const now = (update: () => void) => () => flushSync(update);
    const onResize = now(look);
    const onVisibility = now(() => {
      look();
      if (document.visibilityState === 'visible') setMoves((count) => count + 1);
    });
    const onFocus = now(() => setMoves((count) => count + 1));
    look();
    const observer = new ResizeObserver(onResize);
    observer.observe(element);
    const stopWatchingModals = watchModals(onResize);
    document.addEventListener('visibilitychange', onVisibility);
    window.addEventListener('focus', onFocus);
    return () => {
      observer.disconnect();
      stopWatchingModals();
      document.removeEventListener('visibilitychange', onVisibility);
      window.removeEventListener('focus', onFocus);
    };
    // `card` is a ref: the same element for the card's life.
  }, [card]);
  return { armed, arming, shown: sight.shown };
}

/** The panel's side of arming, from {@link useCardMotion}. */
export interface CardMotion {
  /** For the panel element (the person's scrolling input is watched there). */
  panel: RefObject<HTMLDivElement | null>;
  /** For the scrolling list whose direct children are the cards. */
  list: RefObject<HTMLDivElement | null>;
  /** How often each card (by approval key) moved on screen. */
  moved: ReadonlyMap<string, number>;
}

/**
 * How often the panel saw each card (by approval key) move on screen. Each card's place is
 * measured before the browser paints after anything that can move it: a render of the panel (a
 * card came or went; the list got shorter and the browser pulled its scroll position back),
 * something in the list changing size (a card above grew, the panel got narrower, scroll anchoring
 * followed), the window resizing, any scroll. A card that moved counts one more move and so waits
 * again, before it is drawn in its new place. The one exception: the person scrolling the list,
 * when the card moved exactly as far as the list scrolled.
 *
 * `shape` changes whenever the list's cards or the lines above them change; `hasList` says the
 * list is shown.
 */
export function useCardMotion(
  shape: string,
  hasList: boolean,
  options: {
    /**
     * The box whose scrolling the person does (default: the list itself): a card shown inside a
     * bigger view (the conversation, a tool trial) scrolls with that view. Its own scroll input
     * (wheel, touch, scrolling keys) is watched there too.
     */
    scroller?: () => HTMLElement | null;
  } = {},
): CardMotion {
  const panel = useRef<HTMLDivElement>(null);
  const list = useRef<HTMLDivElement>(null);
  const onScreen = useRef(new Map<string, OnScreen>());
  const [moved, setMoved] = useState<ReadonlyMap<string, number>>(new Map());
  const scrollerOption = useRef(options.scroller);
  useEffect(() => {
    scrollerOption.current = options.scroller;
  });
  /** The box the person scrolls: the view's, or the list. */
  const scrollBox = useCallback((): HTMLElement | null => scrollerOption.current?.() ?? list.current, []);
  const measure = useCallback(
    (byPerson: boolean): string[] => {
      const element = list.current;
      const scrolled = scrollBox();
      const now = new Map<string, OnScreen>();
      const movedNow: string[] = [];
      for (const card of element?.querySelectorAll<HTMLElement>(':scope > .approval-card') ?? []) {
        const key = approvalKey({ runId: card.dataset['runId'] ?? '', callId: card.dataset['callId'] ?? '' });
        const box = card.getBoundingClientRect();
        const place = {
          top: box.top,
          left: box.left,
          scrollTop: scrolled?.scrollTop ?? 0,
          scrollLeft: scrolled?.scrollLeft ?? 0,
        };
        const before = onScreen.current.get(key);
        if (before && movedOnScreen(before, place) && !(byPerson && movedByScrollOnly(before, place)))
          movedNow.push(key);
        now.set(key, place);
      }
      onScreen.current = now;
      return movedNow;
    },
    [scrollBox],
  );
  /** Measures, and counts a move for each card that moved, committed at once (before a paint). */
  const measureNow = useCallback(
    (byPerson: boolean): void => {
      const movedNow = measure(byPerson);
      if (movedNow.length > 0) flushSync(() => setMoved(countMoves(movedNow)));
    },
    [measure],
  );
  useLayoutEffect(() => {
    const movedNow = measure(false);
    // A measure of the layout, before paint: what a layout effect is for.
    // eslint-disable-next-line react-hooks/set-state-in-effect
    if (movedNow.length > 0) setMoved(countMoves(movedNow));
  }, [shape, measure]);
  useLayoutEffect(() => {
    const element = list.current;
    if (!element) return;
    const observer = new ResizeObserver(() => measureNow(false));
    observer.observe(element);
    for (const child of element.children) observer.observe(child);
    return () => observer.disconnect();
  }, [shape, measureNow]);
  // Whether the person is scrolling the list: a wheel, a touch, a scrolling key in the panel, focus
  // they moved into it, or the scroll bar held (a press on the list itself, not on a card), within
  // personScrollMs. Only a scroll of the list that moves each card exactly as far as the list
  // scrolled is excused; a card that moved any other way, or at any other time, waits again.
  useEffect(() => {
    const element = scrollerOption.current?.() ?? panel.current;
    if (!element || !hasList) return;
    let lastScrollInput = Number.NEGATIVE_INFINITY;
    let scrollBarHeld = false;
    const scrolling = (): void => {
      lastScrollInput = performance.now();
    };
    const onKey = (event: globalThis.KeyboardEvent): void => {
      if (scrollKeys.has(event.key)) scrolling();
    };
    // Focus the person moved into the panel (Tab from outside it, a click) scrolls its target into view.
    const onFocusIn = (): void => {
      if (focusWasDeliberate(element)) scrolling();
    };
    const onPress = (event: PointerEvent): void => {
      if (event.target === scrollBox() || event.button === 1) scrollBarHeld = true;
    };
    const onRelease = (): void => {
      if (!scrollBarHeld) return;
      scrollBarHeld = false;
      scrolling();
    };
    const byPerson = (): boolean => scrollBarHeld || performance.now() - lastScrollInput < personScrollMs;
    // Any scroll in the window (captured: scroll events do not bubble) may move the cards; only
    // the list's own can be the person's.
    const onScroll = (event: Event): void => measureNow(event.target === scrollBox() && byPerson());
    const onResize = (): void => measureNow(false);
    // One signal removes every listener below when the effect ends.
    const stop = new AbortController();
    const { signal } = stop;
    const passive = { capture: true, passive: true, signal } as const;
    element.addEventListener('wheel', scrolling, passive);
    element.addEventListener('touchmove', scrolling, passive);
    element.addEventListener('keydown', onKey, { capture: true, signal });
    element.addEventListener('focusin', onFocusIn, { signal });
    element.addEventListener('pointerdown', onPress, { capture: true, signal });
    window.addEventListener('pointerup', onRelease, { capture: true, signal });
    window.addEventListener('pointercancel', onRelease, { capture: true, signal });
    window.addEventListener('scroll', onScroll, passive);
    window.addEventListener('resize', onResize, { signal });
    return () => stop.abort();
  }, [hasList, measureNow, scrollBox]);
  return { panel, list, moved };
}
