/**
 * The person's approval rules as this window knows them (the file in their config folder, never a
 * workspace): one store for the Rules view, its header button, and the notices on the approvals.
 * {@link useRulesFollow} keeps it up to date: it reads `rules:list` when a workspace opens and
 * whenever main says the file (or its usage) changed, and again when the workspace's tools change
 * (a rule's tool may be gone, or back).
 */
import { useEffect, useSyncExternalStore } from 'react';
import type { RulesListing } from '../../../common/rules-schemas.js';
import { call, describeError, useStudioEvent } from '../shell/studio-api';

/** What the store holds, replaced as a whole on every change. */
export interface RulesSnapshot {
  /** The listing; null until read. */
  listing: RulesListing | null;
  /** Why reading it failed. */
  error: string | null;
}

class RulesStore {
  private snapshot: RulesSnapshot = { listing: null, error: null };
  private readonly listeners = new Set<() => void>();
  /** Bumped by every pushed listing: an answer read before it is stale. */
  private generation = 0;

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  readonly getSnapshot = (): RulesSnapshot => this.snapshot;

  private set(patch: Partial<RulesSnapshot>): void {
    this.snapshot = { ...this.snapshot, ...patch };
    for (const listener of this.listeners) listener();
  }

  /** Reads the listing again. */
  async refresh(): Promise<void> {
    const generation = this.generation;
    try {
      const listing = await call('rules:list', {});
      if (generation === this.generation) this.apply(listing);
    } catch (failure) {
      if (generation === this.generation) this.set({ error: describeError(failure) });
    }
  }

  /** A listing main pushed (`rules-changed`) or answered after a change. */
  apply(listing: RulesListing): void {
    this.generation += 1;
    this.set({ listing, error: null });
  }
}

/** The window's rules store. */
export const rulesStore = new RulesStore();

/** The rules listing; re-renders when it changes. */
export function useRules(): RulesSnapshot {
  return useSyncExternalStore(rulesStore.subscribe, rulesStore.getSnapshot);
}

/**
 * Keeps the store up to date (mount once, in the shell) while a workspace is open (`workspaceRoot`):
 * the Rules view and its header button show only then.
 */
export function useRulesFollow(workspaceRoot: string | null): void {
  useEffect(() => {
    if (workspaceRoot !== null) void rulesStore.refresh();
  }, [workspaceRoot]);
  useStudioEvent('rules-changed', (listing) => rulesStore.apply(listing));
  useStudioEvent('workspace-changed', () => void rulesStore.refresh());
  useStudioEvent('mcp-changed', () => void rulesStore.refresh());
}

/** Whether the rules need the person's attention: a file that cannot be read, or files that are ignored. */
export function rulesNeedAttention(listing: RulesListing | null): boolean {
  return listing !== null && (listing.state === 'broken' || listing.state === 'ignored' || listing.warnings.length > 0);
}
