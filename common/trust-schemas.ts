/**
 * The shapes of workspace trust on the IPC contract: a workspace's manifest (what trusting it
 * would let it run, and where its keys and secrets would go), what changed since it was trusted,
 * and the lists of trusted workspaces and approved key origins. Workspace trust is a decision
 * about a folder; it is not a tool's `trust:` setting nor an output's trust badge.
 *
 * @module
 */
import { z } from 'zod';
import { manifestItemSchema } from './manifest-item-schema.js';

export type { ManifestItem } from './manifest-item-schema.js';

/** One line of a manifest's difference, in words. */
const ManifestChangeSchema = z.object({
  change: z.enum(['added', 'removed', 'changed']),
  id: z.string(),
  /** A sentence, read as it is by a screen reader, e.g. `Added: Command tool "build". runs: node build.mjs.` */
  text: z.string(),
});

/** The open workspace's trust: its state, its manifest, and what changed since a person trusted it. */
export const WorkspaceTrustSchema = z.object({
  /** `trusted`, `empty` (nothing to trust), or `restricted` (not trusted, or changed since). */
  state: z.enum(['trusted', 'empty', 'restricted']),
  /** The folder's real path: what trust is kept for. */
  path: z.string(),
  /** The manifest's digest: `trust:grant` names the one the person was shown. */
  digest: z.string(),
  items: z.array(manifestItemSchema()),
  files: z.array(z.object({ path: z.string(), sha256: z.string().nullable() })),
  /** What changed since the person trusted this folder last; null when it was never trusted. */
  changes: z.array(ManifestChangeSchema).nullable(),
});

/** Every trusted workspace and approved key origin, each revocable. */
export const TrustListSchema = z.object({
  /** Where trust is kept (the user's config folder). */
  configDirectory: z.string(),
  /** The append-only log of every decision. */
  logFile: z.string(),
  workspaces: z.array(z.object({ path: z.string(), trustedAt: z.string(), items: z.number().int().nonnegative() })),
  keyOrigins: z.array(
    z.object({ provider: z.string(), label: z.string(), origin: z.string(), approvedAt: z.string() }),
  ),
  /**
   * The open workspace's models that send requests to an origin that is neither their provider's
   * own nor approved for it (none without a workspace). `declined`: the person said no to it in
   * this session, so runs do not ask again until the person allows it here.
   */
  wantedKeyOrigins: z.array(
    z.object({
      model: z.string(),
      provider: z.string(),
      label: z.string(),
      origin: z.string(),
      declined: z.boolean(),
    }),
  ),
});

export type ManifestChange = z.infer<typeof ManifestChangeSchema>;
export type WorkspaceTrustInfo = z.infer<typeof WorkspaceTrustSchema>;
export type TrustList = z.infer<typeof TrustListSchema>;
