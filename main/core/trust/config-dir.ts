import { mkdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The app's name: Electron's `app.setName` in main/app/main.ts, so `userData` ends in it. */
const APP_NAME = 'PromptForge Studio';

/** Overrides the config folder for the studio and the CLI alike (a test, a second profile). */
const CONFIG_DIR_VARIABLE = 'PROMPTFORGE_CONFIG_DIR';

/** What {@link userConfigDir} reads: the platform, the environment and the home folder. */
export interface ConfigDirContext {
  platform: NodeJS.Platform;
  env: Record<string, string | undefined>;
  home: string;
}

/**
 * The user's PromptForge config folder, where workspace trust, approved key origins and their log
 * live: never inside a workspace, so a cloned repository cannot write it. It is Electron's
 * `app.getPath('userData')` for an app named {@link APP_NAME}, resolved the way Electron resolves
 * it (its `appData` folder plus the app name), so the CLI finds the studio's folder without
 * Electron: `%APPDATA%` on Windows, `~/Library/Application Support` on macOS, `$XDG_CONFIG_HOME`
 * or `~/.config` elsewhere. `PROMPTFORGE_CONFIG_DIR` replaces it when set to an absolute path.
 */
export function userConfigDir(context: ConfigDirContext): string {
  const override = context.env[CONFIG_DIR_VARIABLE];
  if (override !== undefined && override !== '') {
    if (!path.isAbsolute(override))
      throw new ConfigDirError(
        `${CONFIG_DIR_VARIABLE}=${override} is not an absolute path; give the full path of a folder`,
      );
    return override;
  }
  const pathApi = context.platform === 'win32' ? path.win32 : path.posix;
  const appData =
    context.platform === 'win32'
      ? (context.env['APPDATA'] ?? pathApi.join(context.home, 'AppData', 'Roaming'))
      : context.platform === 'darwin'
        ? pathApi.join(context.home, 'Library', 'Application Support')
        : context.env['XDG_CONFIG_HOME'] && path.isAbsolute(context.env['XDG_CONFIG_HOME'])
          ? context.env['XDG_CONFIG_HOME']
          : pathApi.join(context.home, '.config');
  return pathApi.join(appData, APP_NAME);
}

/** This process's config folder (see {@link userConfigDir}). */
export function currentConfigDir(): string {
  return userConfigDir({ platform: process.platform, env: process.env, home: os.homedir() });
}

/** The config folder is unusable: `message` names it and the fix. */
export class ConfigDirError extends Error {
  /** How the CLI reports it (a setup error naming the folder). */
  readonly kind = 'config';
  constructor(message: string) {
    super(message);
    this.name = 'ConfigDirError';
  }
}

/**
 * Creates the config folder (owner-only) when missing, and refuses one that another user owns or
 * that others may write: trust recorded there would not be the person's own.
 */
export function ensurePrivateFolder(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  checkPrivate(dir, statSync(dir));
}

/**
 * Whether `dir` (missing, or the user's own and not writable by others) may hold what the person
 * decided: another user could have written a trust decision into any other folder.
 */
export function isPrivateFolder(dir: string): boolean {
  const stat = statSync(dir, { throwIfNoEntry: false });
  if (!stat) return true;
  try {
    checkPrivate(dir, stat);
    return true;
  } catch {
    return false;
  }
}

/**
 * Throws {@link ConfigDirError} when `path` (the config folder or a file in it, as `stat` says) is
 * another user's or writable by others.
 */
export function checkPrivate(file: string, stat: { uid: number; mode: number }): void {
  if (process.platform === 'win32') return;
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid)
    throw new ConfigDirError(
      `${file} belongs to another user (uid ${stat.uid}); PromptForge keeps workspace trust only in a folder of your own. Point ${CONFIG_DIR_VARIABLE} at one, or fix its owner`,
    );
  if ((stat.mode & 0o022) !== 0)
    throw new ConfigDirError(
      `${file} can be written by other users (mode ${(stat.mode & 0o777).toString(8)}); PromptForge keeps workspace trust only where nobody else can write it. Fix it with: chmod go-w '${file}'`,
    );
}
