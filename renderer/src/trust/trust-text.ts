/**
 * The words of workspace trust, in one place: the banner's line, the review's groups and the
 * sentences the studio says after a decision. Pure, so the e2e logic tests can check them.
 */
import type { ManifestItem, WorkspaceTrustInfo } from '../../../common/trust-schemas.js';

type ManifestKind = ManifestItem['kind'];

/** What restricted mode turns off, as the banner says it. */
export const RESTRICTED_LINE =
  "this workspace's command tools, MCP servers and secrets are off, and every tool call asks.";

/** The review's groups, in the order it shows them, with their headings. */
const MANIFEST_GROUPS: ReadonlyArray<{ kind: ManifestKind; title: string }> = [
  { kind: 'command', title: 'Commands it runs' },
  { kind: 'mcp-server', title: 'MCP servers it starts' },
  { kind: 'key-origin', title: 'Where keys would go' },
  { kind: 'secret', title: 'Secrets it sends' },
  { kind: 'policy', title: 'Its own policies that restricted mode ignores' },
];

/** The manifest's items by group, empty groups left out, in {@link MANIFEST_GROUPS} order. */
export function groupManifest(
  items: readonly ManifestItem[],
): Array<{ kind: ManifestKind; title: string; items: ManifestItem[] }> {
  return MANIFEST_GROUPS.map((group) => ({ ...group, items: items.filter((item) => item.kind === group.kind) })).filter(
    (group) => group.items.length > 0,
  );
}

/** How many warnings the manifest holds. */
export function warningCount(trust: WorkspaceTrustInfo): number {
  return trust.items.reduce((sum, item) => sum + item.warnings.length, 0);
}

/** `1 change` / `3 changes`. */
export function countOf(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** The banner's note on what changed, or null when nothing did (or it was never trusted). */
export function changesNote(trust: WorkspaceTrustInfo): string | null {
  const changes = trust.changes ?? [];
  if (changes.length === 0) return null;
  return `${countOf(changes.length, 'change')} since you trusted it`;
}

/** What a screen reader hears when the open workspace's trust changes under it (null: say nothing). */
export function trustAnnouncement(before: WorkspaceTrustInfo | null, now: WorkspaceTrustInfo): string | null {
  if (before === null || before.path !== now.path || before.state === now.state) return null;
  if (now.state === 'restricted') {
    const note = changesNote(now);
    return `Restricted mode: ${RESTRICTED_LINE}${note ? ` ${note}.` : ''}`;
  }
  if (now.state === 'trusted') return 'This workspace is trusted now: its command tools and MCP servers can run.';
  return null;
}

/** The short hash shown next to a covered file. */
export function shortHash(sha256: string): string {
  return sha256.slice(0, 12);
}
