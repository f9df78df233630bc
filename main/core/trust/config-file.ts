import { randomBytes } from 'node:crypto';
import { promises as fs, type Stats } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../catalog/atomic-write.js';
import { errorMessage } from '../../../common/error-message.js';
import { checkPrivate, ensurePrivateFolder, isPrivateFolder } from './config-dir.js';

/** Largest config file read: a bigger one is refused, not parsed. */
const MAX_CONFIG_BYTES = 16 << 20;
/** A lock older than this whose owner is gone is taken over. */
const STALE_LOCK_MS = 30_000;

/** A config file could not be read or written; the message names the file and the fix. */
export class ConfigFileError extends Error {
  /** How the CLI reports it (a setup error naming the file). */
  readonly kind = 'config';
  constructor(message: string) {
    super(message);
    this.name = 'ConfigFileError';
  }
}

/**
 * One JSON file in the user's config folder that the studio and the CLI both change: every update
 * reads, changes and writes it under a lock file (`<file>.lock`, created exclusively), and the
 * write is atomic, so two processes writing at once lose neither update and a crash leaves the old
 * or the new file. Files are owner-only. A missing file reads as `empty()`; an unreadable or
 * invalid one is an error naming it (never silently replaced, so nothing the person decided is lost).
 * A file another user could have written (in a folder others may write, or itself writable by
 * others) is not the person's: it reads as `empty()`, and an update refuses it.
 */
export class ConfigFile<T> {
  constructor(
    readonly file: string,
    private readonly parse: (value: unknown) => T,
    private readonly empty: () => T,
  ) {}

  async read(): Promise<T> {
    return this.readAs('ignore-foreign');
  }

  private async readAs(foreign: 'ignore-foreign' | 'refuse-foreign'): Promise<T> {
    if (foreign === 'ignore-foreign' && !isPrivateFolder(path.dirname(this.file))) return this.empty();
    let text: string;
    try {
      const handle = await fs.open(this.file, 'r');
      try {
        const stat = await handle.stat();
        try {
          checkPrivate(this.file, stat);
        } catch (error) {
          if (foreign === 'ignore-foreign') return this.empty();
          throw error;
        }
        const { size } = stat;
        if (size > MAX_CONFIG_BYTES)
          throw new ConfigFileError(
            `${this.file} is over ${MAX_CONFIG_BYTES} bytes; it is not a PromptForge config file`,
          );
        text = await handle.readFile('utf8');
      } finally {
        await handle.close();
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return this.empty();
      if (error instanceof ConfigFileError || (error as Error).name === 'ConfigDirError') throw error;
      throw new ConfigFileError(`${this.file}: cannot read (${errorMessage(error)})`);
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new ConfigFileError(
        `${this.file}: not valid JSON (${errorMessage(error)}); fix it by hand, or move it away to start afresh`,
      );
    }
    try {
      return this.parse(value);
    } catch (error) {
      throw new ConfigFileError(
        `${this.file}: ${errorMessage(error)}; fix it by hand, or move it away to start afresh`,
      );
    }
  }

  /** Reads, applies `change` and writes, all under the lock. Resolves with the written value. */
  async update(change: (current: T) => T): Promise<T> {
    ensurePrivateFolder(path.dirname(this.file));
    const release = await acquireLock(`${this.file}.lock`);
    try {
      const next = change(await this.readAs('refuse-foreign'));
      await writeFileAtomic(this.file, `${JSON.stringify(next, null, 2)}\n`);
      await fs.chmod(this.file, 0o600).catch(() => undefined);
      return next;
    } finally {
      await release();
    }
  }
}

/** Appends one JSON line to an owner-only log (append-only: never rewritten). */
export async function appendJsonLine(file: string, entry: unknown): Promise<void> {
  ensurePrivateFolder(path.dirname(file));
  const handle = await fs.open(file, 'a', 0o600);
  try {
    await handle.appendFile(`${JSON.stringify(entry)}\n`, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Takes `lock` (created exclusively; a stale one is taken over); resolves with its release. */
export async function acquireLock(lock: string): Promise<() => Promise<void>> {
  const token = `${process.pid} ${randomBytes(6).toString('hex')}`;
  for (let attempt = 0; ; attempt += 1) {
    try {
      const handle = await fs.open(lock, 'wx', 0o600);
      try {
        await handle.writeFile(token, 'utf8');
      } finally {
        await handle.close();
      }
      return async () => {
        const held = await fs.readFile(lock, 'utf8').catch(() => undefined);
        if (held === token) await fs.rm(lock, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (await removedIfStale(lock)) continue;
      if (attempt > 2_000)
        throw new ConfigFileError(
          `${lock} has been held for too long; if no PromptForge studio or CLI is running, delete it`,
        );
      await new Promise((resolve) => setTimeout(resolve, Math.min(50, 2 + attempt)));
    }
  }
}

/**
 * Removes `lock` when it is stale: its process is gone, or it is older than {@link STALE_LOCK_MS}.
 * Its holder and its age are read from one open file, and it is removed only while the path is
 * still that file: a lock another process took meanwhile (a new file) is never judged by the old
 * one's holder, nor removed. True when the caller should try again (removed, or already gone).
 */
async function removedIfStale(lock: string): Promise<boolean> {
  let handle;
  try {
    handle = await fs.open(lock, 'r');
  } catch {
    return true; // Released meanwhile: try to take it.
  }
  let text: string;
  let stat: Stats;
  try {
    stat = await handle.stat();
    text = await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
  if (!holderGone(text) && Date.now() - stat.mtimeMs <= STALE_LOCK_MS) return false;
  const now = await fs.stat(lock).catch(() => undefined);
  if (now === undefined) return true;
  if (now.ino !== stat.ino || now.dev !== stat.dev) return true; // Another lock now: judge that one.
  await fs.rm(lock, { force: true });
  return true;
}

/** Whether the process a lock's text names (`PID token`) is gone. */
function holderGone(text: string): boolean {
  const pid = Number(text.split(' ')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
