import { closeSync, constants, createWriteStream, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { errorMessage } from '../../../common/error-message.js';

/**
 * Reads workspace files (catalogs, transcripts) that anyone may have replaced with something
 * else: a FIFO blocks `open(2)` until a writer comes, `/dev/zero` never ends, a folder cannot be
 * read. Files are opened non-blocking, checked with `fstat` on the open descriptor (so a swap
 * after the check changes nothing), refused unless they are regular files, and read up to a cap.
 */

/** Why a file was refused; the message names the file and says what to do. */
export class FileReadError extends Error {
  constructor(
    readonly file: string,
    readonly reason: 'missing' | 'not-regular' | 'too-large' | 'unreadable',
    /** What is wrong, naming the file (the message without the fix). */
    readonly detail: string,
    readonly fix?: string,
  ) {
    super(fix ? `${detail}; ${fix}` : detail);
    this.name = 'FileReadError';
  }
}

/**
 * The open flags of this platform. Node's types give each one as a number, but a platform without
 * a flag leaves it undefined (Windows has no O_NOFOLLOW, O_NONBLOCK or O_NOCTTY).
 */
export const platformOpenFlags: Partial<typeof constants> = constants;

// O_NONBLOCK: opening a FIFO returns at once instead of waiting for a writer. (Windows has no
// FIFOs in the file system and no such flag.) O_NOCTTY: a terminal device never becomes ours.
const OPEN_FLAGS = constants.O_RDONLY | (platformOpenFlags.O_NONBLOCK ?? 0) | (platformOpenFlags.O_NOCTTY ?? 0);
const CHUNK_BYTES = 1 << 16;
const REPLACE = 'replace it with a regular file';

/** What a non-regular file is, in words. */
export function describeFileType(stats: Stats): string {
  if (stats.isDirectory()) return 'a folder';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isCharacterDevice()) return 'a character device (like /dev/zero)';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** A size in words: `256 MiB`, `12 KiB`, `7 bytes`. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1 << 20 && bytes % (1 << 20) === 0) return `${bytes / (1 << 20)} MiB`;
  if (bytes >= 1 << 10 && bytes % (1 << 10) === 0) return `${bytes / (1 << 10)} KiB`;
  return `${bytes} bytes`;
}

function openError(file: string, what: string, error: unknown): FileReadError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new FileReadError(file, 'missing', `${file}: there is no such ${what}`);
  if (code === 'ENXIO')
    return new FileReadError(
      file,
      'not-regular',
      `${file}: cannot read the ${what}: it is a socket, not a regular file`,
      REPLACE,
    );
  if (code === 'EISDIR')
    return new FileReadError(
      file,
      'not-regular',
      `${file}: cannot read the ${what}: it is a folder, not a regular file`,
      REPLACE,
    );
  return new FileReadError(
    file,
    'unreadable',
    `${file}: cannot read the ${what} (${code ?? errorMessage(error)})`,
    'check that you may read it',
  );
}

function checkStats(file: string, what: string, stats: Stats, maxBytes: number): void {
  if (!stats.isFile())
    throw new FileReadError(
      file,
      'not-regular',
      `${file}: cannot read the ${what}: it is ${describeFileType(stats)}, not a regular file`,
      REPLACE,
    );
  if (stats.size > maxBytes) throw tooLarge(file, what, maxBytes, stats.size);
}

function tooLarge(file: string, what: string, maxBytes: number, size?: number): FileReadError {
  return new FileReadError(
    file,
    'too-large',
    `${file}: the ${what} is ${size === undefined ? 'larger than' : `${formatBytes(size)}, more than`} the ${formatBytes(maxBytes)} PromptForge reads`,
    'split it or remove what is not needed',
  );
}

/**
 * Opens the regular file `file` for reading without blocking (as {@link readRegularFileSync}
 * does) and returns its descriptor with its `fstat`, for readers that read by byte range. The
 * caller closes `fd`. Throws {@link FileReadError} naming the file.
 */
export function openRegularFileSync(
  file: string,
  maxBytes: number,
  what = 'file',
  shown = file,
): { fd: number; stats: Stats } {
  let fd: number;
  try {
    fd = openSync(file, OPEN_FLAGS);
  } catch (error) {
    throw openError(shown, what, error);
  }
  try {
    const stats = fstatSync(fd);
    checkStats(shown, what, stats, maxBytes);
    return { fd, stats };
  } catch (error) {
    closeSync(fd);
    if (error instanceof FileReadError) throw error;
    throw openError(shown, what, error);
  }
}

/**
 * The bytes of the regular file `file`, at most `maxBytes` of them. Never blocks on a FIFO or a
 * device; throws {@link FileReadError} naming the file for anything else. `what` names the file's
 * role in messages ("transcript", "catalog file"), `shown` the name messages use for it.
 */
export function readRegularFileSync(file: string, maxBytes: number, what = 'file', shown = file): Buffer {
  let fd: number;
  try {
    fd = openSync(file, OPEN_FLAGS);
  } catch (error) {
    throw openError(shown, what, error);
  }
  try {
    checkStats(shown, what, fstatSync(fd), maxBytes);
    const chunks: Buffer[] = [];
    let total = 0;
    // The file may grow after fstat (a run still writing it): read to the end, up to the cap.
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, maxBytes + 1 - total));
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) break;
      chunks.push(read === chunk.length ? chunk : chunk.subarray(0, read));
      total += read;
      if (total > maxBytes) throw tooLarge(shown, what, maxBytes);
    }
    return Buffer.concat(chunks, total);
  } catch (error) {
    if (error instanceof FileReadError) throw error;
    throw openError(shown, what, error);
  } finally {
    closeSync(fd);
  }
}

/** The asynchronous form of {@link readRegularFileSync}, as UTF-8 text. */
export async function readRegularFileText(
  file: string,
  maxBytes: number,
  what = 'file',
  shown = file,
): Promise<string> {
  const handle = await open(file, OPEN_FLAGS).catch((error: unknown) => {
    throw openError(shown, what, error);
  });
  try {
    checkStats(shown, what, await handle.stat(), maxBytes);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, maxBytes + 1 - total));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      total += bytesRead;
      if (total > maxBytes) throw tooLarge(shown, what, maxBytes);
    }
    return Buffer.concat(chunks, total).toString('utf8');
  } catch (error) {
    if (error instanceof FileReadError) throw error;
    throw openError(shown, what, error);
  } finally {
    await handle.close();
  }
}

/**
 * Copies the regular file `file` to `target` as a stream: any size, in bounded memory. The source
 * is opened as {@link readRegularFileSync} opens it (never blocks on a FIFO; {@link FileReadError}
 * naming it). The copy is written under a temporary name beside `target`, then renamed into place,
 * so `target` is never left half-written. A file still growing is copied as far as it reaches
 * when the copy gets there.
 */
export async function copyRegularFile(file: string, target: string, what = 'file', shown = file): Promise<void> {
  const handle = await open(file, OPEN_FLAGS).catch((error: unknown) => {
    throw openError(shown, what, error);
  });
  const partial = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.partial`);
  try {
    checkStats(shown, what, await handle.stat(), Number.POSITIVE_INFINITY);
    await pipeline(handle.createReadStream({ autoClose: false }), createWriteStream(partial, { flags: 'wx' }));
    await rename(partial, target);
  } catch (error) {
    await rm(partial, { force: true });
    if (error instanceof FileReadError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new Error(`${target}: cannot save the copy there (${code ?? errorMessage(error)}); choose another place`);
  } finally {
    await handle.close();
  }
}

/**
 * Up to `limit` bytes from the start of an open file, read in chunks as they come (nothing is
 * allocated for what the file does not hold); a file growing meanwhile is cut at `limit`. Pass one
 * byte more than a cap to tell a file over it.
 */
export async function readAtMost(handle: FileHandle, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  while (total < limit) {
    const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, limit - total));
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, total);
    if (bytesRead === 0) break;
    chunks.push(chunk.subarray(0, bytesRead));
    total += bytesRead;
  }
  return Buffer.concat(chunks, total);
}
