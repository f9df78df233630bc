import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** The runtime versions `app:info` reports; `electron` and `chrome` are absent outside Electron. */
export interface RuntimeVersions {
  node: string;
  v8: string;
  electron: string | null;
  chrome: string | null;
}

/** The versions read: Node's own, and Electron's and Chromium's, which only Electron has. */
type ProcessVersionsRead = Pick<NodeJS.ProcessVersions, 'node' | 'v8'> & { electron?: string; chrome?: string };

/** Picks the versions the studio reports from `process.versions` (or a stand-in, for tests). */
export function collectRuntimeVersions(versions: ProcessVersionsRead = process.versions): RuntimeVersions {
  return {
    node: versions.node,
    v8: versions.v8,
    electron: versions.electron ?? null,
    chrome: versions.chrome ?? null,
  };
}

/**
 * The `version` field of an installed package's package.json, or `null` when the package cannot
 * be found. Resolves from this module, so it works from the source tree, from the bundle in
 * out/main and from inside an asar archive.
 */
export function readInstalledPackageVersion(packageName: string): string | null {
  const require = createRequire(import.meta.url);
  let directory: string;
  try {
    directory = path.dirname(require.resolve(packageName));
  } catch {
    return null;
  }
  // Walk up from the package's entry file: not every package exports ./package.json.
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(path.join(directory, 'package.json'), 'utf8')) as {
        name?: unknown;
        version?: unknown;
      };
      if (manifest.name === packageName && typeof manifest.version === 'string') return manifest.version;
    } catch {
      // No package.json at this level: keep walking.
    }
    const parent = path.dirname(directory);
    if (parent === directory) return null;
    directory = parent;
  }
}
