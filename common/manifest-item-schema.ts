/**
 * The shape of one item of a workspace's trust manifest, built on first use: the trust store
 * checks its file with it, and the trust shapes of the IPC contract (trust-schemas.ts) include it.
 */
import { z } from 'zod';
import { lazy } from './lazy.js';

/**
 * One thing a trusted workspace would run, or a place a key or secret would go, or a policy of its
 * own that restricted mode ignores. `details` say in words the facts the manifest's digest covers.
 */
export const manifestItemSchema = lazy(() =>
  z.object({
    /** Stable within a workspace: `command:ALIAS`, `mcp:NAME`, `key-origin:ALIAS`, `secret:NAME`, `policy:…`. */
    id: z.string(),
    kind: z.enum(['command', 'mcp-server', 'key-origin', 'secret', 'policy']),
    /** One line: what it is, e.g. `Command tool "build"`. */
    title: z.string(),
    /** Facts, each a short "label: value" line, in a fixed order. */
    details: z.array(z.string()),
    /** Things to look at twice: a loader variable, an unpinned package runner, a key leaving its provider. */
    warnings: z.array(z.string()),
    /** Where it is written (`tools.yaml:12`); not part of the digest, so moving an entry keeps trust. */
    source: z.string(),
  }),
);

/** One item of a workspace's trust manifest. */
export type ManifestItem = z.infer<ReturnType<typeof manifestItemSchema>>;
