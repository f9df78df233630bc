import { json as jsonLanguage } from '@codemirror/lang-json';
import {
  useCallback,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type KeyboardEvent,
  type MouseEvent,
} from 'react';
import { flushSync } from 'react-dom';
import type { PendingApproval, StudioDecision } from '../../../common/studio-schemas.js';
import { call, describeError } from '../shell/studio-api';
import { CodeEditor } from '../editor/CodeEditor';
import { allowForRunScope, scopeSentence } from './approval-scope';
import { coveredByModal, watchModals } from './covering-modal';
import { focusWasDeliberate, watchPersonInput } from './deliberate-focus';
import { useRunOrigins, type RunOrigin } from './run-origins';
import { useArgumentsCheck } from './use-arguments-check';
import { isTyping } from '../shell/keyboard';
import { TaintedJson } from '../run/TaintedJson';
import type { Theme } from '../shell/theme';
import './approvals.css';

type Mode = { kind: 'idle' } | { kind: 'edit'; text: string } | { kind: 'deny'; reason: string };

function approvalKey(approval: Pick<PendingApproval, 'runId' | 'callId'>): string {
  return `${approval.runId}/${approval.callId}`;
}

/**
 * How long a new card ignores keys and clicks, like a browser's permission prompt: a key or click
 * meant for something else, in flight when the card appears, lands on nothing. The arming bar in
 * approvals.css (`.arm-bar`) runs for the same time.
 *
 * The wait starts only once the card can be seen (the run panel is open, the window is not hidden,
 * and no modal dialog covers it), and starts again whenever the card moves on screen for a reason
 * other than the person scrolling the list (a card above it goes away, cards reorder, a card above
 * grows, the list gets shorter and the browser pulls its scroll position back, the app scrolls),
 * whenever it is shown again, and when the window comes back to the front: each time, what is
 * under the pointer or behind a notification may be a card the person has not seen yet.
 */
export const armDelayMs = 800;

/**
 * How long after the person's last scrolling input (wheel, touch, a scrolling key, letting go of
 * the scroll bar) a scroll of the list still counts as theirs: long enough for a smooth scroll to
 * end. Any other scroll moves the cards as much as a layout change does.
 */
const personScrollMs = 1000;

/** Keys that scroll the list, or move focus to a card and so scroll it into view. */
const scrollKeys = new Set(['ArrowUp', 'ArrowDown', 'PageUp', 'PageDown', 'Home', 'End', ' ', 'Tab']);

/** Where a card was on screen when last measured, and how far the list was scrolled then. */
interface OnScreen {
  top: number;
  left: number;
  scrollTop: number;
  scrollLeft: number;
}

/** Whether the card moved on screen between two measures: by a pixel or more, either way. */
function movedOnScreen(before: OnScreen, now: OnScreen): boolean {
  return Math.abs(now.top - before.top) >= 1 || Math.abs(now.left - before.left) >= 1;
}

/** Whether the card moved exactly as far as the list scrolled: scrolling alone moved it. */
function movedByScrollOnly(before: OnScreen, now: OnScreen): boolean {
  return (
    Math.abs(now.top + now.scrollTop - (before.top + before.scrollTop)) < 1 &&
    Math.abs(now.left + now.scrollLeft - (before.left + before.scrollLeft)) < 1
  );
}

/** Counts one more move for each of `keys` (approval keys). */
function countMoves(keys: readonly string[]): (counts: ReadonlyMap<string, number>) => ReadonlyMap<string, number> {
  return (counts) => {
    const next = new Map(counts);
    for (const key of keys) next.set(key, (next.get(key) ?? 0) + 1);
    return next;
  };
}

/**
 * Whether the person can see the card: laid out (the run panel is open) in a window not hidden,
 * and not behind a modal dialog (the command palette, the shortcuts dialog, a confirmation).
 */
function canBeSeen(element: HTMLElement): boolean {
  return document.visibilityState === 'visible' && element.checkVisibility() && !coveredByModal(element);
}

/** Which run a card belongs to, in words: the agent, and when several of its runs wait, which one. */
export interface CardOrigin {
  agent: string | undefined;
  /** Set when another run of the same agent waits too. */
  startedAt?: string;
  /** Set when that start time, as shown, does not tell the runs apart either. */
  runId?: string;
}

/** The origin line of each waiting run (by run id). */
function cardOrigins(
  approvals: readonly PendingApproval[],
  originOf: (runId: string) => RunOrigin | undefined,
): Map<string, CardOrigin> {
  const runIds = [...new Set(approvals.map((approval) => approval.runId))];
  const byAgent = new Map<string, string[]>();
  for (const runId of runIds) {
    const agent = originOf(runId)?.agent ?? '';
    byAgent.set(agent, [...(byAgent.get(agent) ?? []), runId]);
  }
  const result = new Map<string, CardOrigin>();
  for (const runId of runIds) {
    const origin = originOf(runId);
    const siblings = byAgent.get(origin?.agent ?? '') ?? [];
    if (!origin) {
      result.set(runId, { agent: undefined, runId });
      continue;
    }
    if (siblings.length < 2) {
      result.set(runId, { agent: origin.agent });
      continue;
    }
    const startedAt = shownTime(origin.startedAt);
    const sameTime = siblings.filter((other) => shownTime(originOf(other)?.startedAt ?? '') === startedAt);
    result.set(runId, { agent: origin.agent, startedAt, ...(sameTime.length > 1 && { runId }) });
  }
  return result;
}

function shownTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleTimeString();
}

/** Keys a focused, armed card acts on; `L` needs Shift, since it allows more than one call. */
function decisionFor(event: KeyboardEvent<HTMLElement>): keyof CardActions | undefined {
  if (event.ctrlKey || event.metaKey || event.altKey || event.repeat) return undefined;
  const key = event.key.toLowerCase();
  if (key === 'l') return event.shiftKey ? 'allowForRun' : undefined;
  if (event.shiftKey) return undefined;
  return ({ a: 'approve', e: 'edit', d: 'deny' } as const)[key];
}

function ApprovalCard({
  approval,
  origin,
  place,
  moved,
  theme,
  onDecided,
  onFocusLost,
}: {
  approval: PendingApproval;
  origin: CardOrigin;
  /** The cards above this one: when it changes, the card moved. */
  place: string;
  /** How often the panel saw the card move on screen (see ApprovalsPanel): each move arms again. */
  moved: number;
  theme: Theme;
  onDecided: (announcement: string) => void;
  /** The card is going away (decided elsewhere or here) while focus is inside it. */
  onFocusLost: () => void;
}) {
  const [mode, setMode] = useState<Mode>({ kind: 'idle' });
  // The busy state belongs to one asking of the call (\`askedAt\`), and arming to one \`arming\`
  // token (that asking, the cards above, and every other reason to arm again): when the call is
  // asked anew (an edit the core refused comes back as the same card with \`rejectedEdit\`) or the
  // card moves, it is disarmed in the same render, with no window in which an old \`armed\` could
  // take a key or a click.
  const [busyFor, setBusyFor] = useState<string | null>(null);
  const [armedFor, setArmedFor] = useState<string | null>(null);
  /** Whether the person can see the card; \`times\` counts how often it was shown. */
  const [sight, setSight] = useState({ shown: false, times: 0 });
  /** Bumped when the window came back to the front (moves on screen come from the panel: `moved`). */
  const [moves, setMoves] = useState(0);
  const arming = `${approval.askedAt} ${place} ${sight.times} ${moves} ${moved}`;
  const busy = busyFor === approval.askedAt;
  const armed = sight.shown && armedFor === arming;
  const [error, setError] = useState<string | null>(null);
  const denyInput = useRef<HTMLInputElement>(null);
  const card = useRef<HTMLElement>(null);
  /** Focus came in by the person's click or Tab/arrow, and has not left the card since. */
  const deliberate = useRef(false);
  const key = approvalKey(approval);
  const originalText = useMemo(() => JSON.stringify(approval.arguments, null, 2), [approval.arguments]);
  // The core's verdict (the validator the dispatcher runs for this run), asked while the person types.
  const check = useArgumentsCheck(approval.alias, mode.kind === 'edit' ? mode.text : undefined, approval.runId);
  // The run's own taint check (from the core), not the workspace's current tools.yaml.
  const taintCheck = approval.taintCheck;
  const scope = allowForRunScope(approval.alias, taintCheck || approval.reason === 'tainted', undefined);
  const focusLost = useRef(onFocusLost);
  useEffect(() => {
    focusLost.current = onFocusLost;
  });

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
  }, []);
  useLayoutEffect(() => {
    const element = card.current;
    return () => {
      if (element?.contains(document.activeElement)) focusLost.current();
    };
  }, []);

  const decide = async (decision: StudioDecision, announcement: string): Promise<void> => {
    setBusyFor(approval.askedAt);
    setError(null);
    try {
      await call('approval:decide', { runId: approval.runId, callId: approval.callId, decision });
      onDecided(announcement);
    } catch (failure) {
      setError(describeError(failure));
      setBusyFor(null);
    }
  };

  const idleAgain = (): void => {
    setMode({ kind: 'idle' });
    card.current?.focus();
  };

  const actions: CardActions = {
    approve: () => void decide({ kind: 'approve' }, `Approved by you: ${approval.alias} ${approval.callId}.`),
    edit: () => setMode({ kind: 'edit', text: originalText }),
    deny: () => setMode({ kind: 'deny', reason: '' }),
    allowForRun: () =>
      void decide(
        { kind: 'allow-for-run' },
        scopeSentence(allowForRunScope(approval.alias, taintCheck || approval.reason === 'tainted', 'by you')),
      ),
  };
  useEffect(() => {
    if (mode.kind === 'deny') denyInput.current?.focus();
  }, [mode.kind]);

  /**
   * A button's click acts only on an armed card, and never as the second click of a double click:
   * the first click may have decided the card that was here, and this one is in its place now.
   */
  const onClick =
    (act: () => void) =>
    (event: MouseEvent<HTMLButtonElement>): void => {
      if (event.detail > 1 || !armed || busy) return;
      act();
    };

  const onKeyDown = (event: KeyboardEvent<HTMLElement>): void => {
    const decision = decisionFor(event);
    if (decision === undefined || mode.kind !== 'idle' || isTyping(event.nativeEvent)) return;
    // Keys count only when the person put focus here, and only once the card is armed.
    event.preventDefault();
    if (!deliberate.current || !armed || busy) return;
    actions[decision]();
  };

  const taintSources = [...new Set(approval.taint.map((span) => span.sourceOutputId))];
  const titleId = `approval-${approval.runId}-${approval.callId}`;
  return (
    <article
      ref={card}
      className={`approval-card${armed ? '' : ' arming'}`}
      aria-labelledby={`${titleId} ${titleId}-origin`}
      aria-describedby={`${titleId}-keys`}
      data-call-id={approval.callId}
      data-run-id={approval.runId}
      data-armed={armed ? 'true' : 'false'}
      data-shown={sight.shown ? 'true' : 'false'}
      tabIndex={0}
      onKeyDown={onKeyDown}
      onFocus={(event) => {
        deliberate.current = deliberate.current || focusWasDeliberate(event.currentTarget);
      }}
      onBlur={(event) => {
        if (!(event.relatedTarget instanceof Node && event.currentTarget.contains(event.relatedTarget)))
          deliberate.current = false;
      }}
    >
      {armed ? null : (
        <div
          className="arm-bar"
          aria-hidden="true"
          title="This new or moved card accepts keys and clicks in a moment"
          // The bar fills while the card waits; it starts again each time the card arms again.
          key={arming}
        />
      )}
      <p id={`${titleId}-keys`} className="visually-hidden">
        {armed
          ? 'Keys: A approve, E edit, D deny, Shift+L allow for this run.'
          : 'New or moved card: keys and buttons wake up a moment after it is shown.'}
      </p>
      <header className="card-header">
        <h3 id={titleId}>
          <code>{approval.alias}</code> <span className="muted small">{approval.callId}</span>
        </h3>
        <span className={`reason-badge reason-${approval.reason}`}>
          {approval.reason === 'tainted' ? 'tainted arguments' : 'policy: ask'}
        </span>
      </header>
      <p id={`${titleId}-origin`} className="approval-origin small">
        {origin.agent !== undefined ? (
          <>
            Agent <code>{origin.agent}</code>
            {origin.startedAt !== undefined ? `, run started ${origin.startedAt}` : ''}
            {origin.runId !== undefined ? ` (${origin.runId})` : ''}
          </>
        ) : (
          <>
            Run <code>{origin.runId}</code>
          </>
        )}
      </p>
      <p className="approval-description">{approval.description}</p>
      {taintSources.length > 0 ? (
        <p className="taint-note">tainted by {taintSources.map((id) => `output ${id}`).join(', ')}</p>
      ) : null}
      {mode.kind === 'edit' ? (
        <div className="edit-arguments">
          <label className="small muted" htmlFor={`${titleId}-editor`}>
            Edit the arguments (JSON), checked against the tool&apos;s parameters
          </label>
          <div id={`${titleId}-editor`} className="json-editor">
            <CodeEditor
              documentKey={`${key}-edit`}
              initialText={originalText}
              theme={theme}
              ariaLabel={`Edited arguments for ${approval.alias}`}
              language={jsonLanguage()}
              onChange={(text) => setMode({ kind: 'edit', text })}
            />
          </div>
          {check.state === 'invalid' ? (
            <ul className="problem-list" aria-live="polite" aria-label="Argument problems">
              {check.problems.map((problem) => (
                <li key={problem} className="error-text small">
                  {problem}
                </li>
              ))}
            </ul>
          ) : check.state === 'valid' ? (
            <p className="ok-text small">The arguments fit the tool&apos;s parameters.</p>
          ) : (
            <p className="muted small">Checking the arguments…</p>
          )}
          <div className="button-row">
            <button
              type="button"
              className="button button-primary"
              disabled={busy || !armed || check.state !== 'valid'}
              onClick={onClick(() => {
                if (check.state === 'valid')
                  void decide(
                    { kind: 'approve-edited', arguments: check.value },
                    `Approved with edited arguments by you: ${approval.alias} ${approval.callId}.`,
                  );
              })}
            >
              Approve edited
            </button>
            <button type="button" className="button" onClick={idleAgain}>
              Cancel edit
            </button>
          </div>
        </div>
      ) : (
        <TaintedJson value={approval.arguments} taint={approval.taint} />
      )}
      {approval.rejectedEdit ? (
        <p className="error-text small">Previous edit refused: {approval.rejectedEdit}</p>
      ) : null}
      {mode.kind === 'deny' ? (
        <form
          className="deny-form"
          onSubmit={(event) => {
            event.preventDefault();
            const reason = mode.reason.trim();
            if (reason !== '' && armed && !busy)
              void decide({ kind: 'deny', reason }, `Denied by you: ${approval.alias} ${approval.callId}.`);
          }}
        >
          <label htmlFor={`${titleId}-reason`}>Reason for denying (required; the script sees it)</label>
          <div className="button-row">
            <input
              id={`${titleId}-reason`}
              ref={denyInput}
              className="text-input"
              value={mode.reason}
              onChange={(event) => setMode({ kind: 'deny', reason: event.target.value })}
              onKeyDown={(event) => {
                if (event.key === 'Escape') {
                  event.stopPropagation();
                  idleAgain();
                }
              }}
            />
            <button
              type="submit"
              className="button button-danger"
              disabled={busy || !armed || mode.reason.trim() === ''}
              onClick={(event) => {
                // Never the second click of a double click (see onClick).
                if (event.detail > 1) event.preventDefault();
              }}
            >
              Deny
            </button>
            <button type="button" className="button" onClick={idleAgain}>
              Cancel
            </button>
          </div>
        </form>
      ) : null}
      {mode.kind === 'idle' ? (
        <>
          <div className="button-row" role="group" aria-label={`Decide ${approval.alias} ${approval.callId}`}>
            <button
              type="button"
              className="button button-primary"
              disabled={busy || !armed}
              onClick={onClick(actions.approve)}
            >
              <kbd>A</kbd> Approve
            </button>
            <button type="button" className="button" disabled={busy || !armed} onClick={onClick(actions.edit)}>
              <kbd>E</kbd> Edit then approve
            </button>
            <button
              type="button"
              className="button button-danger"
              disabled={busy || !armed}
              onClick={onClick(actions.deny)}
            >
              <kbd>D</kbd> Deny…
            </button>
            <button
              type="button"
              className="button"
              disabled={busy || !armed}
              onClick={onClick(actions.allowForRun)}
              aria-describedby={`${titleId}-scope`}
            >
              <kbd>Shift+L</kbd> Allow for this run
            </button>
          </div>
          <p id={`${titleId}-scope`} className="allow-scope small muted">
            {scope.before}
            <code>{scope.alias}</code>
            {scope.after}
          </p>
        </>
      ) : null}
      {error ? (
        <p role="alert" className="error-text small">
          {error}
        </p>
      ) : null}
    </article>
  );
}

interface CardActions {
  approve(): void;
  edit(): void;
  deny(): void;
  allowForRun(): void;
}

/**
 * Every call waiting for a decision. Nothing here ever moves focus on its own when a card arrives:
 * the person clicks or Tabs into a card (arrow keys move between cards), and a card acts on
 * A / E / D / Shift+L only then, and only once it is armed (`data-armed`). Each card names the
 * agent whose run asks (and, when several runs of one agent wait, when its run started).
 */
export function ApprovalsPanel({ approvals, theme }: { approvals: PendingApproval[]; theme: Theme }) {
  const panel = useRef<HTMLDivElement>(null);
  const list = useRef<HTMLDivElement>(null);
  const [lastDecision, setLastDecision] = useState('');
  useEffect(() => watchPersonInput(), []);
  const origins = cardOrigins(approvals, useRunOrigins());
  const keys = approvals.map(approvalKey);

  // Where each card is on screen (the viewport), measured before the browser paints after anything
  // that can move it: a render of the panel (a card came or went; the list got shorter and the
  // browser pulled its scroll position back), something in the list changing size (a card above
  // grew, the panel got narrower, scroll anchoring followed), the window resizing, any scroll. A
  // card that moved counts one more move (`moved`) and so waits again, before it is drawn in its
  // new place. The one exception: the person scrolling the list (`byPerson`), when the card moved
  // exactly as far as the list scrolled.
  const onScreen = useRef(new Map<string, OnScreen>());
  const [moved, setMoved] = useState<ReadonlyMap<string, number>>(new Map());
  const measure = useCallback((byPerson: boolean): string[] => {
    const element = list.current;
    const now = new Map<string, OnScreen>();
    const movedNow: string[] = [];
    for (const card of element?.querySelectorAll<HTMLElement>(':scope > .approval-card') ?? []) {
      const key = approvalKey({ runId: card.dataset['runId'] ?? '', callId: card.dataset['callId'] ?? '' });
      const box = card.getBoundingClientRect();
      const place = { top: box.top, left: box.left, scrollTop: element!.scrollTop, scrollLeft: element!.scrollLeft };
      const before = onScreen.current.get(key);
      if (before && movedOnScreen(before, place) && !(byPerson && movedByScrollOnly(before, place))) movedNow.push(key);
      now.set(key, place);
    }
    onScreen.current = now;
    return movedNow;
  }, []);
  /** Measures, and counts a move for each card that moved, committed at once (before a paint). */
  const measureNow = useCallback(
    (byPerson: boolean): void => {
      const movedNow = measure(byPerson);
      if (movedNow.length > 0) flushSync(() => setMoved(countMoves(movedNow)));
    },
    [measure],
  );
  const shape = `${keys.join(' ')}|${lastDecision !== ''}`;
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
  const hasList = approvals.length > 0;
  useEffect(() => {
    const element = panel.current;
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
      if (event.target === list.current || event.button === 1) scrollBarHeld = true;
    };
    const onRelease = (): void => {
      if (!scrollBarHeld) return;
      scrollBarHeld = false;
      scrolling();
    };
    const byPerson = (): boolean => scrollBarHeld || performance.now() - lastScrollInput < personScrollMs;
    // Any scroll in the window (captured: scroll events do not bubble) may move the cards; only
    // the list's own can be the person's.
    const onScroll = (event: Event): void => measureNow(event.target === list.current && byPerson());
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
  }, [hasList, measureNow]);

  const moveBetweenCards = (event: KeyboardEvent<HTMLDivElement>): void => {
    if (!['ArrowDown', 'ArrowUp', 'Home', 'End'].includes(event.key) || isTyping(event.nativeEvent)) return;
    if (event.ctrlKey || event.metaKey || event.altKey || event.shiftKey) return;
    const cards = [...(panel.current?.querySelectorAll<HTMLElement>('.approval-card') ?? [])];
    if (cards.length === 0) return;
    const from = cards.findIndex((card) => card === event.target);
    const to =
      event.key === 'Home'
        ? 0
        : event.key === 'End'
          ? cards.length - 1
          : from < 0
            ? 0
            : Math.min(cards.length - 1, Math.max(0, from + (event.key === 'ArrowDown' ? 1 : -1)));
    // Only from the panel itself or from a card, so arrows inside an argument editor stay its own.
    if (from < 0 && event.target !== panel.current && event.target !== event.currentTarget) return;
    event.preventDefault();
    cards[to]!.focus();
  };

  return (
    <div
      ref={panel}
      className="approvals-panel"
      role="region"
      aria-label="Pending approvals"
      tabIndex={-1}
      onKeyDown={moveBetweenCards}
    >
      <p className="visually-hidden" role="status">
        {lastDecision}
      </p>
      {approvals.length === 0 ? (
        <div className="panel-empty">
          <p className="muted">No call is waiting for a decision.</p>
          <p className="muted small">
            Tools whose policy is <code>ask</code>, and calls whose arguments carry untrusted text, pause here.
          </p>
          {lastDecision !== '' ? <p className="last-decision small">Last decision: {lastDecision}</p> : null}
        </div>
      ) : (
        <div ref={list} className="approvals-list">
          <p className="muted small keyboard-hint">
            Click or Tab into a card, then: <kbd>A</kbd> approve · <kbd>E</kbd> edit · <kbd>D</kbd> deny ·{' '}
            <kbd>Shift+L</kbd> allow for this run. A new or moved card waits a moment before it accepts keys and clicks.
          </p>
          {lastDecision !== '' ? <p className="last-decision small">Last decision: {lastDecision}</p> : null}
          {approvals.map((approval, index) => (
            <ApprovalCard
              key={approvalKey(approval)}
              approval={approval}
              origin={origins.get(approval.runId) ?? { agent: undefined, runId: approval.runId }}
              place={keys.slice(0, index).join(' ')}
              moved={moved.get(approvalKey(approval)) ?? 0}
              theme={theme}
              onDecided={setLastDecision}
              onFocusLost={() => panel.current?.focus()}
            />
          ))}
        </div>
      )}
    </div>
  );
}
