/**
 * The renderer's run state, outside React: one {@link ConversationBuilder} per run the person
 * sees, the runs in progress, and the selected run. Components read it through
 * `useSyncExternalStore` (see run-hooks.ts); a stream of events notifies them at most once per
 * animation frame.
 *
 * Bounded: a run that ended and is no longer shown is evicted (opening it again reads it back from
 * its transcript), and a run opened from the history is read page by page (`history:page`), only
 * as far as the person scrolls; beyond {@link AUTO_LOAD_EVENTS} events each further page is asked
 * for explicitly.
 */
import type { ContractRequest, ContractResponse } from '../../../common/contract.js';
import type { RunEvent } from '../../../common/run-events.js';
import type { TranscriptPage } from '../../../common/studio-schemas.js';
import { ConversationBuilder, type ConversationSnapshot } from './conversation-builder.js';

/** Lines asked for when a run is opened: more than a screenful, small enough to paint at once. */
export const FIRST_PAGE_EVENTS = 100;
/** Lines asked for by each later page. */
export const NEXT_PAGE_EVENTS = 5000;
/** Events read without asking; past this, the view offers a button for each further page. */
export const AUTO_LOAD_EVENTS = 20_000;
/** Live events held back while the start of the run is still being read from its transcript. */
const MAX_HELD_EVENTS = 10_000;

/** How far a run opened from its transcript has been read. */
export interface PagingState {
  /** Lines read so far; the next page starts here. */
  next: number;
  /** Lines in the transcript at the last read. */
  total: number;
  /** Nothing more to read right now. */
  complete: boolean;
  loading: boolean;
  /** Why reading stopped: a broken line, a transcript deleted while open. */
  problem?: string;
  /** Whether the next page waits for the person (past {@link AUTO_LOAD_EVENTS}). */
  askFirst: boolean;
}

/** What the views show for one run. */
export interface RunView {
  snapshot: ConversationSnapshot;
  /** Absent for a run that streamed into this window from its start. */
  paging?: PagingState;
}

/** A contract call, as `studio-api.ts` makes it (injected so the store is testable without a window). */
export type StoreCall = <M extends 'history:page'>(
  method: M,
  request: ContractRequest<M>,
) => Promise<ContractResponse<M>>;

interface RunEntry {
  builder: ConversationBuilder;
  paging?: PagingState;
  /** Live events that arrived while the transcript's start was still being read. */
  held: RunEvent[];
  /** The transcript may have grown while a page was in flight: read again after it. */
  stale: boolean;
  view: RunView | undefined;
}

/** The store. One instance per window (see run-hooks.ts); tests make their own. */
export class RunStore {
  private readonly runs = new Map<string, RunEntry>();
  private selected: string | null = null;
  private live: ReadonlySet<string> = new Set();
  private readonly listeners = new Set<() => void>();
  private frame: number | null = null;

  constructor(
    private readonly callContract: StoreCall,
    private readonly describeError: (error: unknown) => string,
    /** Schedules a notification (requestAnimationFrame in the window). */
    private readonly schedule: (flush: () => void) => number,
  ) {}

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  selectedRunId = (): string | null => this.selected;
  liveRunIds = (): ReadonlySet<string> => this.live;
  /** How many runs the store holds (for tests of eviction). */
  heldRunIds = (): string[] => [...this.runs.keys()];

  /** The view of `runId`, the same object until the run changes. */
  run = (runId: string | null): RunView | undefined => {
    if (runId === null) return undefined;
    const entry = this.runs.get(runId);
    if (!entry) return undefined;
    entry.view ??= {
      snapshot: entry.builder.snapshot(),
      ...(entry.paging && { paging: { ...entry.paging } }),
    };
    return entry.view;
  };

  /** A pushed `run-event`. A new run's `run-start` selects it: every run starts from this window. */
  applyEvent(event: RunEvent): void {
    const entry = this.entry(event.runId);
    if (entry.paging && !entry.paging.complete) {
      if (entry.held.length < MAX_HELD_EVENTS) entry.held.push(event);
    } else entry.builder.apply(event);
    if (event.type === 'run-start') {
      this.markLive(event.runId, true);
      this.select(event.runId);
    }
    if (event.type === 'run-end') {
      this.markLive(event.runId, false);
      // Ended and not shown: nothing to keep (opening it reads it back from its transcript).
      if (this.selected !== event.runId) this.runs.delete(event.runId);
    }
    this.changed(entry);
  }

  /** A run this window started; `ended` when its run-end already came (a short replay). */
  started(runId: string): void {
    const entry = this.entry(runId);
    if (!entry.builder.hasEnded) this.markLive(runId, true);
    this.select(runId);
    this.changed(entry);
  }

  /** Shows `runId` (or nothing), and evicts the runs that ended and are no longer shown. */
  select(runId: string | null): void {
    if (this.selected === runId) return;
    this.selected = runId;
    for (const [id, entry] of this.runs)
      if (id !== runId && !this.live.has(id) && (entry.builder.hasEnded || entry.paging)) this.runs.delete(id);
    this.notify();
  }

  /** Opens a run from its transcript: shows it at once and reads its first page. */
  async open(runId: string): Promise<void> {
    const known = this.runs.get(runId);
    this.select(runId);
    if (known) return;
    const entry = this.entry(runId);
    entry.paging = { next: 0, total: 0, complete: false, loading: false, askFirst: false };
    this.changed(entry);
    await this.loadMore(runId, FIRST_PAGE_EVENTS);
  }

  /**
   * Reads the next page of an opened run. Without `explicit`, stops at {@link AUTO_LOAD_EVENTS}
   * (the person asks for more). Reads again a run whose transcript may have grown.
   */
  async loadMore(runId: string, count = NEXT_PAGE_EVENTS, explicit = false): Promise<void> {
    const entry = this.runs.get(runId);
    const paging = entry?.paging;
    if (!entry || !paging || paging.loading || paging.problem !== undefined) return;
    if (paging.askFirst && !explicit) return;
    paging.loading = true;
    this.changed(entry);
    let page: TranscriptPage;
    try {
      page = await this.callContract('history:page', { runId, from: paging.next, count });
    } catch (error) {
      paging.loading = false;
      paging.complete = true;
      paging.problem = this.describeError(error);
      this.release(entry);
      this.changed(entry);
      return;
    }
    if (this.runs.get(runId) !== entry) return; // evicted meanwhile
    for (const event of page.events) entry.builder.apply(event);
    paging.loading = false;
    paging.next = page.next;
    paging.total = page.total;
    paging.complete = page.complete;
    if (page.stoppedAt)
      paging.problem = `The transcript is damaged at line ${page.stoppedAt.line} (${page.stoppedAt.reason}); the events before it are shown.`;
    paging.askFirst = !page.complete && page.next >= AUTO_LOAD_EVENTS;
    if (page.complete) this.release(entry);
    this.changed(entry);
    if (entry.stale) {
      entry.stale = false;
      await this.refreshSelected();
    }
  }

  /** Reads on where an open run's transcript may have grown (it has no run-end and is not live here). */
  async refreshSelected(): Promise<void> {
    const runId = this.selected;
    const entry = runId === null ? undefined : this.runs.get(runId);
    if (!entry?.paging || entry.paging.problem !== undefined || this.live.has(runId!)) return;
    if (entry.builder.hasEnded) return;
    if (entry.paging.loading) {
      entry.stale = true;
      return;
    }
    entry.paging.complete = false;
    await this.loadMore(runId!);
  }

  /** Applies the live events held back while the transcript was read (duplicates are skipped). */
  private release(entry: RunEntry): void {
    entry.held.sort((a, b) => a.seq - b.seq);
    for (const event of entry.held) entry.builder.apply(event);
    entry.held = [];
  }

  private entry(runId: string): RunEntry {
    let entry = this.runs.get(runId);
    if (!entry) {
      entry = { builder: new ConversationBuilder(runId), held: [], stale: false, view: undefined };
      this.runs.set(runId, entry);
    }
    return entry;
  }

  private markLive(runId: string, live: boolean): void {
    if (this.live.has(runId) === live) return;
    const next = new Set(this.live);
    if (live) next.add(runId);
    else next.delete(runId);
    this.live = next;
  }

  private changed(entry: RunEntry): void {
    entry.view = undefined;
    this.notify();
  }

  private notify(): void {
    if (this.frame !== null) return;
    this.frame = this.schedule(() => {
      this.frame = null;
      for (const listener of [...this.listeners]) listener();
    });
  }
}
