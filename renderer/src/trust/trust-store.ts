/**
 * The open workspace's trust as this window knows it, and whether its review shows. One store for
 * the window: the banner, the review, the MCP servers list and the Trust view read it through
 * {@link useWorkspaceTrust}; {@link WorkspaceTrustHost} keeps it up to date (it reads
 * `trust:status` when a workspace opens and follows `trust-changed`).
 *
 * "Workspace trust" is a decision about a folder. It is not a tool's `trust:` setting nor an
 * output's trust badge, and the words the studio shows keep them apart.
 */
import { useSyncExternalStore } from 'react';
import type { WorkspaceTrustInfo } from '../../../common/trust-schemas.js';
import { call, describeError } from '../shell/studio-api';

/** What the store holds, replaced as a whole on every change. */
export interface TrustSnapshot {
  /** The workspace (its root as `workspace:state` says it) the trust is for; null when none is open. */
  root: string | null;
  /** Its trust; null while it is read (or when reading it failed). */
  trust: WorkspaceTrustInfo | null;
  /** Why reading it failed. */
  error: string | null;
  /** Whether the review dialog shows. */
  reviewOpen: boolean;
}

class TrustStore {
  private snapshot: TrustSnapshot = { root: null, trust: null, error: null, reviewOpen: false };
  private readonly listeners = new Set<() => void>();
  /** Bumped by every event and every change of workspace: an answer read before is stale. */
  private generation = 0;
  /** Where focus goes back when the review closes. */
  private opener: HTMLElement | null = null;

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  readonly getSnapshot = (): TrustSnapshot => this.snapshot;

  private set(patch: Partial<TrustSnapshot>): void {
    this.snapshot = { ...this.snapshot, ...patch };
    for (const listener of this.listeners) listener();
  }

  /** The window shows workspace `root` (null: none): reads its trust when it is another one. */
  follow(root: string | null): void {
    if (root === this.snapshot.root) return;
    this.generation += 1;
    this.set({ root, trust: null, error: null, reviewOpen: false });
    if (root !== null) void this.refresh();
  }

  /** Reads the open workspace's trust again; resolves to it (null when it could not be read). */
  async refresh(): Promise<WorkspaceTrustInfo | null> {
    const generation = this.generation;
    try {
      const trust = await call('trust:status', {});
      // An event (or another workspace) came meanwhile: it is newer than this answer.
      if (generation === this.generation) this.set({ trust, error: null });
      return trust;
    } catch (failure) {
      if (generation === this.generation) this.set({ error: describeError(failure) });
      return null;
    }
  }

  /** `trust-changed` (the open workspace was trusted, revoked, or changed on disk), or a newer answer. */
  apply(trust: WorkspaceTrustInfo): void {
    if (this.snapshot.root === null) return;
    this.generation += 1;
    this.set({ trust, error: null });
  }

  /** Shows the review; focus goes back to `opener` (the button pressed) when it closes. */
  openReview(opener: HTMLElement | null): void {
    this.opener = opener;
    this.set({ reviewOpen: true });
  }

  closeReview(): void {
    this.set({ reviewOpen: false });
  }

  /**
   * Puts focus back where the review was opened from, once the dialog is gone. The button may be
   * gone too (trusting removes the banner): then focus goes to the workspace area, never the page.
   */
  returnFocus(): void {
    const opener = this.opener;
    this.opener = null;
    if (opener?.isConnected && !opener.closest('[hidden]')) {
      opener.focus();
      return;
    }
    const area = document.querySelector<HTMLElement>('main.workspace-area');
    if (area) {
      area.tabIndex = -1;
      area.focus();
    }
  }
}

/** The window's trust store. */
export const trustStore = new TrustStore();

/** The open workspace's trust, and whether its review shows; re-renders when either changes. */
export function useWorkspaceTrust(): TrustSnapshot {
  return useSyncExternalStore(trustStore.subscribe, trustStore.getSnapshot);
}

/** The names of the MCP servers a manifest lists (their ids are `mcp:NAME`). */
export function manifestServerNames(trust: WorkspaceTrustInfo | null): string[] {
  return (trust?.items ?? []).filter((item) => item.kind === 'mcp-server').map((item) => item.id.slice('mcp:'.length));
}
