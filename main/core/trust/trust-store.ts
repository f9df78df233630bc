import { realpathSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { lazy } from '../../../common/lazy.js';
import { manifestItemSchema } from '../../../common/manifest-item-schema.js';
import type { Workspace } from '../catalog/workspace.js';
import { appendJsonLine, ConfigFile, ConfigFileError } from './config-file.js';
import type { ManifestChange } from '../../../common/trust-schemas.js';
import { manifestDiff } from './manifest-words.js';
import { manifestDigest, manifestIsEmpty, workspaceManifest, type WorkspaceManifest } from './workspace-manifest.js';

/** The file of trusted workspaces and approved key origins, in the config folder. */
export const TRUST_FILE = 'workspace-trust.json';
/** The append-only log of every trust decision, in the config folder. */
export const TRUST_LOG_FILE = 'trust-log.jsonl';

/** The trust file's shape, built the first time the file is read. */
const trustFileSchema = lazy(() =>
  z.object({
    version: z.literal(1),
    workspaces: z.array(
      z.object({
        path: z.string(),
        digest: z.string(),
        manifest: z.object({
          items: z.array(manifestItemSchema()),
          files: z.array(z.object({ path: z.string(), sha256: z.string().nullable() })),
        }),
        trustedAt: z.string(),
      }),
    ),
    keyOrigins: z.array(z.object({ provider: z.string(), origin: z.string(), approvedAt: z.string() })),
  }),
);

/** The trust file's contents. */
export type TrustFileContents = z.infer<ReturnType<typeof trustFileSchema>>;

/** Who made a decision: the studio's confirmation, the terminal's prompt, or the CLI's `--yes` (the person's act in a script). */
export type TrustVia = 'studio' | 'terminal' | 'cli --yes';

/** A workspace's trust as of now. */
export interface WorkspaceTrust {
  /** `trusted`: a person trusted this manifest here. `empty`: nothing to trust. `restricted`: neither. */
  state: 'trusted' | 'empty' | 'restricted';
  /** The workspace's real path: what trust is keyed by. */
  path: string;
  manifest: WorkspaceManifest;
  digest: string;
  /** When the person trusted another manifest here: what changed since. */
  changes?: ManifestChange[];
}

/** The manifest shown to the person no longer matches the workspace: show the new one and ask again. */
export class TrustChangedError extends Error {
  constructor(
    message: string,
    readonly current: WorkspaceTrust,
  ) {
    super(message);
    this.name = 'TrustChangedError';
  }
}

/**
 * Workspace trust and approved key origins, kept in the user's config folder (never in a
 * workspace), with every decision appended to a log. A workspace is trusted for one real path and
 * one manifest digest: a moved or copied folder, or any change to what it would run, is restricted
 * again. The studio and the CLI share the file (see {@link ConfigFile}).
 */
export class TrustStore {
  private readonly config: ConfigFile<TrustFileContents>;
  readonly logFile: string;

  constructor(readonly configDir: string) {
    this.config = new ConfigFile(
      path.join(configDir, TRUST_FILE),
      (value) => trustFileSchema().parse(value),
      emptyTrustFile,
    );
    this.logFile = path.join(configDir, TRUST_LOG_FILE);
  }

  get file(): string {
    return this.config.file;
  }

  read(): Promise<TrustFileContents> {
    return this.config.read();
  }

  /** The workspace's trust now: its manifest compared with the one a person trusted at its real path. */
  async workspaceTrust(workspace: Workspace): Promise<WorkspaceTrust> {
    const manifest = workspaceManifest(workspace);
    return this.judge(workspace.root, manifest, await this.read());
  }

  private judge(root: string, manifest: WorkspaceManifest, contents: TrustFileContents): WorkspaceTrust {
    const real = realPath(root);
    const digest = manifestDigest(manifest);
    if (manifestIsEmpty(manifest)) return { state: 'empty', path: real, manifest, digest };
    const entry = contents.workspaces.find((candidate) => candidate.path === real);
    // A file that could not be hashed (too big) could change unseen: such a manifest is never trusted.
    if (entry?.digest === digest && unhashable(manifest).length === 0)
      return { state: 'trusted', path: real, manifest, digest };
    return {
      state: 'restricted',
      path: real,
      manifest,
      digest,
      ...(entry && { changes: manifestDiff(entry.manifest, manifest) }),
    };
  }

  /**
   * Trusts `workspace` as the person saw it: `shownDigest` is the digest of the manifest they were
   * shown. The workspace is read again first; if it changed meanwhile, nothing is trusted and a
   * {@link TrustChangedError} carries the new manifest and its difference.
   */
  async trust(workspace: Workspace, shownDigest: string, via: TrustVia): Promise<WorkspaceTrust> {
    const manifest = workspaceManifest(workspace);
    const real = realPath(workspace.root);
    const unseen = unhashable(manifest);
    if (unseen.length > 0)
      throw new ConfigFileError(
        `${real} cannot be trusted: ${unseen.join(', ')} ${unseen.length === 1 ? 'is' : 'are'} too big to cover (PromptForge hashes at most 256 MiB a file and 1 GiB in all), so ${unseen.length === 1 ? 'it' : 'they'} could change unseen. Make the tool run smaller files`,
      );
    let result: WorkspaceTrust | undefined;
    await this.config.update((contents) => {
      const now = this.judge(workspace.root, manifest, contents);
      if (now.digest !== shownDigest) {
        const shown = contents.workspaces.find((entry) => entry.path === real);
        throw new TrustChangedError(
          `${real} changed while you were deciding: nothing was trusted. Look at the changes and decide again`,
          {
            ...now,
            state: now.state === 'empty' ? 'empty' : 'restricted',
            ...(shown && { changes: manifestDiff(shown.manifest, manifest) }),
          },
        );
      }
      result = { state: now.state === 'empty' ? 'empty' : 'trusted', path: real, manifest, digest: now.digest };
      return {
        ...contents,
        workspaces: [
          ...contents.workspaces.filter((entry) => entry.path !== real),
          { path: real, digest: now.digest, manifest, trustedAt: new Date().toISOString() },
        ],
      };
    });
    await appendJsonLine(this.logFile, {
      at: new Date().toISOString(),
      action: 'trust-workspace',
      path: real,
      digest: shownDigest,
      via,
    });
    return result!;
  }

  /** Forgets the trust of the workspace at `folder` (any path to it). Resolves whether it was trusted. */
  async revokeWorkspace(folder: string, via: TrustVia): Promise<boolean> {
    const real = realPathOrSelf(folder);
    // Set inside the update (TypeScript cannot see the callback run, so the type is kept wide).
    let found = false as boolean;
    await this.config.update((contents) => {
      found = contents.workspaces.some((entry) => entry.path === real || entry.path === folder);
      return {
        ...contents,
        workspaces: contents.workspaces.filter((entry) => entry.path !== real && entry.path !== folder),
      };
    });
    if (found)
      await appendJsonLine(this.logFile, { at: new Date().toISOString(), action: 'revoke-workspace', path: real, via });
    return found;
  }

  /** Whether the person approved `origin` for `provider`'s key. */
  async keyOriginApproved(provider: string, origin: string): Promise<boolean> {
    const contents = await this.read();
    return contents.keyOrigins.some((entry) => entry.provider === provider && entry.origin === origin);
  }

  /** Records that the person lets `provider`'s key go to `origin`. */
  async approveKeyOrigin(provider: string, origin: string, via: TrustVia): Promise<void> {
    await this.config.update((contents) => ({
      ...contents,
      keyOrigins: [
        ...contents.keyOrigins.filter((entry) => entry.provider !== provider || entry.origin !== origin),
        { provider, origin, approvedAt: new Date().toISOString() },
      ],
    }));
    await appendJsonLine(this.logFile, {
      at: new Date().toISOString(),
      action: 'approve-key-origin',
      provider,
      origin,
      via,
    });
  }

  /** Withdraws an approved key origin. Resolves whether it was approved. */
  async revokeKeyOrigin(provider: string, origin: string, via: TrustVia): Promise<boolean> {
    // Set inside the update (TypeScript cannot see the callback run, so the type is kept wide).
    let found = false as boolean;
    await this.config.update((contents) => {
      found = contents.keyOrigins.some((entry) => entry.provider === provider && entry.origin === origin);
      return {
        ...contents,
        keyOrigins: contents.keyOrigins.filter((entry) => entry.provider !== provider || entry.origin !== origin),
      };
    });
    if (found)
      await appendJsonLine(this.logFile, {
        at: new Date().toISOString(),
        action: 'revoke-key-origin',
        provider,
        origin,
        via,
      });
    return found;
  }
}

/** The files of `manifest` that could not be hashed. */
function unhashable(manifest: WorkspaceManifest): string[] {
  return manifest.files.filter((file) => file.sha256 === null).map((file) => file.path);
}

function emptyTrustFile(): TrustFileContents {
  return { version: 1, workspaces: [], keyOrigins: [] };
}

function realPath(folder: string): string {
  return realpathSync(folder);
}

function realPathOrSelf(folder: string): string {
  try {
    return realpathSync(folder);
  } catch {
    return path.resolve(folder);
  }
}
