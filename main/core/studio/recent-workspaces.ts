/**
 * The workspaces the person opened lately (through main's folder dialog, or again from this list),
 * kept in the user's config folder: what the empty screen offers, and a source of folders the page
 * may open, as long as each is still the folder that was opened.
 */
import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { RecentWorkspaces as RecentWorkspacesList } from '../../../common/studio-schemas.js';
import { errorMessage } from '../../../common/error-message.js';
import { folderNotYoursBecause } from '../catalog/workspace-root.js';
import { ConfigFile } from '../trust/config-file.js';
import { ContractError } from './contract-error.js';

/** How many workspaces the list keeps; opening another drops the one opened longest ago. */
export const MAX_RECENT_WORKSPACES = 10;

/** The file in the config folder that holds the list. */
export const RECENT_WORKSPACES_FILE = 'recent-workspaces.json';

const EntrySchema = z.strictObject({
  /** The folder's real path when it was opened: the key, and the only spelling that opens it. */
  path: z.string().min(1),
  name: z.string(),
  /** When it was last opened (ISO 8601). */
  lastOpened: z.string(),
  /** The folder's device and inode then: a folder made again at the same path is another folder. */
  dev: z.number(),
  ino: z.number(),
});
type Entry = z.infer<typeof EntrySchema>;

const FileSchema = z.strictObject({
  version: z.literal(1),
  workspaces: z.array(EntrySchema).max(1000),
});
type RecentFile = z.infer<typeof FileSchema>;

/** What `path` is now: its real path and identity, or why it is not there. */
function folderNow(folder: string): { real: string; dev: number; ino: number } | { missing: string } {
  try {
    const real = realpathSync(folder);
    const stat = statSync(real);
    if (!stat.isDirectory()) return { missing: 'is no longer a folder' };
    return { real, dev: stat.dev, ino: stat.ino };
  } catch {
    return { missing: 'no longer exists' };
  }
}

export class RecentWorkspaces {
  private readonly config: ConfigFile<RecentFile>;

  /** The list in `configDirectory` (the user's config folder, where workspace trust is kept too). */
  constructor(configDirectory: string) {
    this.config = new ConfigFile(
      path.join(configDirectory, RECENT_WORKSPACES_FILE),
      (value) => FileSchema.parse(value),
      () => ({ version: 1, workspaces: [] }),
    );
  }

  /** Where the list is kept. */
  get file(): string {
    return this.config.file;
  }

  /** The list, newest first, each with whether it is still the folder that was opened. */
  async list(): Promise<RecentWorkspacesList> {
    let entries: Entry[];
    try {
      entries = (await this.config.read()).workspaces.slice(0, MAX_RECENT_WORKSPACES);
    } catch (error) {
      return { workspaces: [], problem: errorMessage(error) };
    }
    return {
      workspaces: entries.map((entry) => ({
        name: entry.name,
        path: entry.path,
        lastOpened: entry.lastOpened,
        exists: this.sameFolder(entry) === undefined,
      })),
      problem: null,
    };
  }

  /**
   * Records that the folder whose real path is `real` was opened now: first in the list, once,
   * and the list keeps at most {@link MAX_RECENT_WORKSPACES}.
   */
  async record(real: string, now = new Date()): Promise<void> {
    const stat = statSync(real);
    const entry: Entry = {
      path: real,
      name: path.basename(real) || real,
      lastOpened: now.toISOString(),
      dev: stat.dev,
      ino: stat.ino,
    };
    await this.config.update((current) => ({
      version: 1,
      workspaces: [entry, ...current.workspaces.filter((other) => other.path !== real)].slice(0, MAX_RECENT_WORKSPACES),
    }));
  }

  /** Drops `folder` (its path as listed) from the list. */
  async forget(folder: string): Promise<RecentWorkspacesList> {
    await this.config.update((current) => ({
      version: 1,
      workspaces: current.workspaces.filter((entry) => entry.path !== folder),
    }));
    return this.list();
  }

  /**
   * The real path to open for `requested` when it is a recent workspace, spelled exactly as listed,
   * that is still the folder that was opened (same real path, device and inode) and still the
   * user's alone (owned by them, writable by no one else). Undefined when `requested` is not in the
   * list; a {@link ContractError} (`not-chosen`) saying why when it is but no longer qualifies.
   */
  async check(requested: string): Promise<string | undefined> {
    let entries: Entry[];
    try {
      entries = (await this.config.read()).workspaces.slice(0, MAX_RECENT_WORKSPACES);
    } catch {
      return undefined;
    }
    const entry = entries.find((candidate) => candidate.path === requested);
    if (!entry) return undefined;
    const changed = this.sameFolder(entry);
    if (changed !== undefined)
      throw new ContractError(
        'not-chosen',
        `refused to open the recent workspace "${requested}": it ${changed}. Choose the folder again with "Open folder…", or forget it.`,
      );
    const notYours = await folderNotYoursBecause(entry.path);
    if (notYours !== undefined)
      throw new ContractError(
        'not-chosen',
        `refused to open the recent workspace "${requested}": ${notYours}. Or choose it again with "Open folder…" if you mean to.`,
      );
    return entry.path;
  }

  /** Undefined when `entry` is still the folder that was opened; else what changed, as "it ..." would say it. */
  private sameFolder(entry: Entry): string | undefined {
    const now = folderNow(entry.path);
    if ('missing' in now) return now.missing;
    if (now.real !== entry.path) return `resolves to ${now.real} now (a link took its place)`;
    if (now.dev !== entry.dev || now.ino !== entry.ino)
      return 'is another folder than the one you opened (it was deleted and made again)';
    return undefined;
  }
}
