import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** test/fixtures/catalogs */
export const CATALOG_FIXTURES = fileURLToPath(new URL('../../fixtures/catalogs/', import.meta.url));

/** A fresh temporary folder; remove it with {@link removeTempDir}. */
export async function makeTempDir(prefix = 'pf-catalog-'): Promise<string> {
  return mkdtemp(path.join(tmpdir(), prefix));
}

/** A temporary copy of a fixture folder. */
export async function copyFixture(name: string): Promise<string> {
  const dir = await makeTempDir();
  await cp(path.join(CATALOG_FIXTURES, name), dir, { recursive: true });
  return dir;
}

export async function removeTempDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/** Polls `check` until it returns a value (not undefined), or fails after `timeoutMs`. */
export async function waitFor<T>(
  check: () => T | undefined | Promise<T | undefined>,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
