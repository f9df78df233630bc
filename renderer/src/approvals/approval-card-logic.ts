/**
 * The approval cards' pure logic: keys, origins, moves on screen, and which key decides what. No
 * DOM, no React state, no IPC: the hooks (use-card-arming.ts) and the components use these.
 */
import type { KeyboardEvent } from 'react';
import type { PendingApproval } from '../../../common/studio-schemas.js';
import type { RunOrigin } from './run-origins';

/**
 * What a card's lower half shows: the decision buttons, the argument editor, the denial form, or
 * the rule form of "Always allow…".
 */
export type Mode =
  { kind: 'idle' } | { kind: 'edit'; text: string } | { kind: 'deny'; reason: string } | { kind: 'rule' };

/** A card's identity in the list: its run and call. */
export function approvalKey(approval: Pick<PendingApproval, 'runId' | 'callId'>): string {
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
export const personScrollMs = 1000;

/** Keys that scroll the list, or move focus to a card and so scroll it into view. */
export const scrollKeys = new Set(['ArrowUp', 'ArrowDown', 'PageUp', 'PageDown', 'Home', 'End', ' ', 'Tab']);

/** Where a card was on screen when last measured, and how far the list was scrolled then. */
export interface OnScreen {
  top: number;
  left: number;
  scrollTop: number;
  scrollLeft: number;
}

/** Whether the card moved on screen between two measures: by a pixel or more, either way. */
export function movedOnScreen(before: OnScreen, now: OnScreen): boolean {
  return Math.abs(now.top - before.top) >= 1 || Math.abs(now.left - before.left) >= 1;
}

/** Whether the card moved exactly as far as the list scrolled: scrolling alone moved it. */
export function movedByScrollOnly(before: OnScreen, now: OnScreen): boolean {
  return (
    Math.abs(now.top + now.scrollTop - (before.top + before.scrollTop)) < 1 &&
    Math.abs(now.left + now.scrollLeft - (before.left + before.scrollLeft)) < 1
  );
}

/** Counts one more move for each of `keys` (approval keys). */
export function countMoves(
  keys: readonly string[],
): (counts: ReadonlyMap<string, number>) => ReadonlyMap<string, number> {
  return (counts) => {
    const next = new Map(counts);
    for (const key of keys) next.set(key, (next.get(key) ?? 0) + 1);
    return next;
  };
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
export function cardOrigins(
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

/** What a card can do, by key or button ("Always allow…" by button only). */
export interface CardActions {
  approve(): void;
  edit(): void;
  deny(): void;
  allowForRun(): void;
  alwaysAllow(): void;
}

/**
 * Why a card did not act on a press: it is arming (new or moved, see armDelayMs), the press was the
 * second click of a double click, or focus did not come by the person's own act.
 */
export type Ignored = 'arming' | 'double' | 'focus';

/** What the card says about a press it ignored (shown, and read out politely); `armed` is the card's state now. */
export function ignoredNotice(ignored: Ignored, armed: boolean): string {
  switch (ignored) {
    case 'arming':
      return armed ? 'The card is ready now: press again.' : 'Ignored: this card is arming; press again in a moment.';
    case 'double':
      return 'Ignored: the second click of a double click never decides. Click once.';
    case 'focus':
      return 'Ignored: keys decide only after you click or Tab into this card.';
  }
}

/** Keys a focused, armed card acts on; `L` needs Shift, since it allows more than one call. */
export function decisionFor(event: KeyboardEvent<HTMLElement>): Exclude<keyof CardActions, 'alwaysAllow'> | undefined {
  if (event.ctrlKey || event.metaKey || event.altKey || event.repeat) return undefined;
  const key = event.key.toLowerCase();
  if (key === 'l') return event.shiftKey ? 'allowForRun' : undefined;
  if (event.shiftKey) return undefined;
  return ({ a: 'approve', e: 'edit', d: 'deny' } as const)[key];
}

/**
 * Which card an arrow, Home or End key moves focus to, from card `from` (-1: from the panel
 * itself) among `count` cards.
 */
export function cardIndexFor(key: string, from: number, count: number): number {
  if (key === 'Home') return 0;
  if (key === 'End') return count - 1;
  if (from < 0) return 0;
  return Math.min(count - 1, Math.max(0, from + (key === 'ArrowDown' ? 1 : -1)));
}

/** What a card's change notice is about (PendingApproval's `definitionChange.since`). */
export type ChangeSince = NonNullable<PendingApproval['definitionChange']>['since'];

/** The heading of a card's "the tool changed" section. */
export function definitionChangeHeading(since: ChangeSince): string {
  switch (since) {
    case 'allowed':
      return 'This tool changed since you allowed it';
    case 'seen':
      return 'This tool changed since you last saw it';
    case 'open':
      return 'This tool changed while this card was open';
  }
}

/**
 * What the panel's live region says about cards whose tool changed while they were open (each
 * such card was asked again in its place), or '' when there are none.
 */
export function changedWhileOpenNotice(approvals: readonly PendingApproval[]): string {
  return approvals
    .filter((approval) => approval.definitionChange?.since === 'open')
    .map(
      (approval) =>
        `Tool ${approval.alias} changed while card ${approval.callId} was open: the card shows what changed, and waits a moment before it takes a decision.`,
    )
    .join(' ');
}

/** A JSON Schema as the card shows it: pretty-printed, one line per entry. */
export function schemaLines(schema: unknown): string[] {
  // JSON.stringify gives undefined for undefined, a function or a symbol (its type says string).
  return ((JSON.stringify(schema, null, 2) as string | undefined) ?? 'null').split('\n');
}
