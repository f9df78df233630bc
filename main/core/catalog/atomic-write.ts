import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';

/**
 * Replaces `filePath` with `text` so that a crash leaves either the old or the new file, never half
 * of one: write a temporary file in the same folder (same filesystem, so rename is atomic), fsync
 * it, rename it over the target, then fsync the folder so the rename itself is durable. The
 * temporary file is removed on any failure. Keeps the old file's permission bits.
 */
export async function writeFileAtomic(filePath: string, text: string): Promise<void> {
  const target = path.resolve(filePath);
  const dir = path.dirname(target);
  const temp = path.join(dir, `.${path.basename(target)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  let mode = 0o666;
  try {
    mode = (await fs.stat(target)).mode & 0o7777;
  } catch {
    // New file: default mode (minus umask).
  }
  const handle = await fs.open(temp, 'wx', mode);
  try {
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(temp, target);
  } catch (error) {
    await fs.rm(temp, { force: true });
    throw error;
  }
  await syncDirectory(dir);
}

async function syncDirectory(dir: string): Promise<void> {
  // Windows cannot open a folder for fsync; the rename there is already as durable as it gets.
  if (process.platform === 'win32') return;
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(dir, 'r');
    await handle.sync();
  } catch {
    // Some filesystems refuse fsync on folders; the data itself is already synced.
  } finally {
    await handle?.close();
  }
}
