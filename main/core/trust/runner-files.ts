// The workspace files a command tool or an MCP server runs, found as runners find them (a module's
// suffixes and folder entries, the words of a shell string, a package runner's local copy), and
// their hashes, bounded: what the trust digest covers and what a trusted run pins.
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readFileSync, readSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { McpServerSpec } from '../catalog/mcp-spec.js';
import type { ToolSpec } from '../tools/tool-spec.js';
import { isInside } from '../tools/workspace-path.js';
import { visible } from './manifest-words.js';

/** Package runners that fetch and run a package by name. */
const PACKAGE_RUNNERS: Record<string, { skip: number }> = {
  npx: { skip: 0 },
  bunx: { skip: 0 },
  uvx: { skip: 0 },
  pnpx: { skip: 0 },
};
const PACKAGE_RUNNER_SUBCOMMANDS: Record<string, string> = {
  pnpm: 'dlx',
  yarn: 'dlx',
  bun: 'x',
  pipx: 'run',
  npm: 'exec',
};

/** A workspace file a command or server runs, by its bytes. */
export interface ManifestFile {
  /** Workspace-relative, with `/`. */
  path: string;
  /** sha256 of its bytes; null when it could not be read (too big, not a regular file). */
  sha256: string | null;
}

/** Largest workspace file hashed into the digest; a bigger one is named with no hash. */
const MAX_HASHED_FILE_BYTES = 256 << 20;

/**
 * The workspace files a stdio MCP server runs (its command, arguments, literal variables, and a
 * package runner's local copy), by their bytes now; `warnings` gets the local-copy warnings.
 */
export function mcpServerFiles(
  root: string,
  server: McpServerSpec,
  budget = hashBudget(),
  warnings: string[] = [],
): ManifestFile[] {
  if (server.transport.type !== 'stdio') return [];
  const realRoot = safeRealpath(root) ?? root;
  const transport = server.transport;
  const cwd = path.resolve(realRoot, transport.cwd ?? '.');
  const argv = [transport.command, ...transport.args];
  const local = localRunnerPackages(argv, cwd, realRoot);
  warnings.push(...local.warnings);
  const literal = Object.values(transport.env).filter((value): value is string => typeof value === 'string');
  return namedFiles(realRoot, cwd, [...argv, ...literal, ...local.folders], budget);
}

/**
 * The workspace files a command tool runs (named in its argv), by their bytes now: what a trusted
 * run pins when it starts (see pinned-runner.ts).
 */
export function commandToolFiles(root: string, tool: ToolSpec): ManifestFile[] {
  if (tool.settings.kind !== 'command') return [];
  const realRoot = safeRealpath(root) ?? root;
  const cwd = path.resolve(realRoot, tool.settings.cwd ?? '.');
  const local = localRunnerPackages(tool.settings.command, cwd, realRoot);
  return namedFiles(realRoot, cwd, [...tool.settings.command, ...local.folders]);
}

/** Warnings for a package runner given a package name with no exact version. */
export function packageRunnerWarnings(argv: readonly string[]): string[] {
  const { program, packages } = runnerPackages(argv);
  return packages
    .filter((spec) => !isPinned(spec))
    .map(
      (spec) =>
        `${program} fetches and runs "${visible(spec)}" with no exact version: whatever its registry serves that day runs`,
    );
}

/**
 * A package runner's own copy in the workspace: `npx pkg@1.2.3` runs `node_modules/pkg` from its
 * folder or any folder above it before it fetches anything, so a pinned, official-looking name
 * can run the repository's code. Returns the warnings and the folders to hash.
 */
export function localRunnerPackages(
  argv: readonly string[],
  cwd: string,
  realRoot: string,
): { warnings: string[]; folders: string[] } {
  const result = { warnings: [] as string[], folders: [] as string[] };
  for (const spec of runnerPackages(argv).packages) {
    const at = spec.lastIndexOf('@');
    const name = at > 0 ? spec.slice(0, at) : spec;
    if (name === '' || name.startsWith('.') || name.startsWith('/')) continue;
    for (let folder = cwd; isInside(realRoot, folder) || folder === realRoot; folder = path.dirname(folder)) {
      const copy = path.join(folder, 'node_modules', ...name.split('/'));
      if (isDirectory(copy)) {
        result.warnings.push(
          `runs the workspace's own copy of "${visible(name)}" in ${visible(path.relative(realRoot, copy).split(path.sep).join('/'))}, not the registry's`,
        );
        result.folders.push(copy);
        break;
      }
      if (folder === realRoot) break;
    }
  }
  return result;
}

function runnerPackages(argv: readonly string[]): { program: string; packages: string[] } {
  const program = path
    .basename(argv[0] ?? '')
    .replace(/\.(cmd|exe|bat)$/i, '')
    .toLowerCase();
  let rest: readonly string[] | undefined;
  if (Object.hasOwn(PACKAGE_RUNNERS, program)) rest = argv.slice(1);
  else if (Object.hasOwn(PACKAGE_RUNNER_SUBCOMMANDS, program) && argv[1] === PACKAGE_RUNNER_SUBCOMMANDS[program])
    rest = argv.slice(2);
  const packages: string[] = [];
  if (!rest) return { program, packages };
  for (let index = 0; index < rest.length; index += 1) {
    const arg = rest[index]!;
    if (arg === '--') {
      if (rest[index + 1] !== undefined && packages.length === 0) packages.push(rest[index + 1]!);
      break;
    }
    if (arg === '-p' || arg === '--package' || arg === '--from' || arg === '--with') {
      if (rest[index + 1] !== undefined) packages.push(rest[index + 1]!);
      index += 1;
      continue;
    }
    const joined = /^--(package|from|with)=(.+)$/.exec(arg);
    if (joined) {
      packages.push(joined[2]!);
      continue;
    }
    if (arg.startsWith('-')) continue;
    if (packages.length === 0) packages.push(arg);
    break;
  }
  return { program, packages };
}

/** `name@1.2.3`, `@scope/name@1.2.3`, `name==1.2.3`: an exact version. A local path counts as pinned. */
function isPinned(spec: string): boolean {
  if (spec.startsWith('.') || spec.startsWith('/') || spec.includes('\\')) return true;
  const python = /==\s*\d+(\.\d+)*$/.test(spec);
  if (python) return true;
  const at = spec.lastIndexOf('@');
  if (at <= 0) return false;
  return /^v?\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/.test(spec.slice(at + 1));
}

/** How many bytes one manifest hashes at most; past it, files are named unhashed (and cannot be trusted). */
const MAX_MANIFEST_HASHED_BYTES = 1 << 30;
/** Extensions and folder entries Node (and most runners) try for a bare module path. */
const MODULE_SUFFIXES = ['', '.js', '.mjs', '.cjs', '.json', '.node', '.ts', '.py', '.sh'];

/**
 * Workspace files named by `tokens` (argv items, `--require=./x.cjs`, the words of a shell string
 * or of `NODE_OPTIONS`, quoted or not): each word, or its part after `=`, that is a file inside the
 * workspace from `cwd` or the root, tried as Node resolves a module (`tool` finds `tool.js`, a
 * folder its package.json `main` or `index.js`). A name inside the workspace whose link leads
 * outside it is named by its real path and hashed too. Hashed by content, once each, within a cap.
 */
export function namedFiles(
  realRoot: string,
  cwd: string,
  tokens: readonly string[],
  budget = hashBudget(),
): ManifestFile[] {
  const found = new Map<string, ManifestFile>();
  for (const word of tokens.flatMap(wordsOf)) {
    if (word === '' || word.length > 4096 || word.includes('\0')) continue;
    for (const base of new Set([cwd, realRoot])) {
      const lexical = path.resolve(base, word);
      if (!isInside(realRoot, lexical) && !isInside(realRoot, budget.realpath(lexical) ?? lexical)) continue;
      for (const real of budget.moduleFiles(lexical)) {
        if (real === realRoot) continue;
        const shown = isInside(realRoot, real)
          ? path.relative(realRoot, real).split(path.sep).join('/')
          : `${path.relative(realRoot, lexical).split(path.sep).join('/')} -> ${real} (outside the workspace)`;
        if (found.has(shown)) continue;
        const hash = budget.hash(real);
        if (hash === 'not-a-file') continue;
        found.set(shown, { path: shown, sha256: hash });
      }
    }
  }
  return [...found.values()];
}

/** A token's words: itself, its value after `=`, and the words of a shell string or option list, unquoted. */
function wordsOf(token: string): string[] {
  const words = new Set<string>([token]);
  for (const part of token.split(/[\s;&|()<>`]+/)) {
    const unquoted = part.replace(/^['"]+|['"]+$/g, '');
    if (unquoted === '') continue;
    words.add(unquoted);
    const equals = unquoted.indexOf('=');
    if (equals >= 0) words.add(unquoted.slice(equals + 1).replace(/^['"]+|['"]+$/g, ''));
  }
  return [...words];
}

/** The real files `lexical` may load as a module: itself, with a suffix, or a folder's entry. */
function moduleFiles(lexical: string): string[] {
  const files: string[] = [];
  for (const suffix of MODULE_SUFFIXES) {
    const real = safeRealpath(lexical + suffix);
    if (real && isRegularFile(real)) {
      files.push(real);
      break;
    }
  }
  const folder = safeRealpath(lexical);
  if (folder && isDirectory(folder)) {
    const entries = ['package.json', 'index.js', 'index.mjs', 'index.cjs', 'index.ts', '__main__.py', '__init__.py'];
    try {
      const pkg = JSON.parse(readSmallText(path.join(folder, 'package.json'))) as { main?: unknown; bin?: unknown };
      if (typeof pkg.main === 'string') entries.push(pkg.main, `${pkg.main}.js`, path.join(pkg.main, 'index.js'));
      // What a package runner runs: its `bin` entries.
      if (typeof pkg.bin === 'string') entries.push(pkg.bin);
      else if (pkg.bin && typeof pkg.bin === 'object')
        for (const bin of Object.values(pkg.bin)) if (typeof bin === 'string') entries.push(bin);
    } catch {
      // No package.json, or not JSON: the index files are what a runner tries.
    }
    for (const entry of entries) {
      const real = safeRealpath(path.join(folder, entry));
      if (real && isRegularFile(real) && !files.includes(real)) files.push(real);
    }
  }
  return files;
}

/**
 * One manifest's reading of the disk: hashes files once each by real path, and stops hashing past
 * {@link MAX_MANIFEST_HASHED_BYTES}; finds the files a path names once each (the same words, such
 * as `npx` or `-y`, recur across hundreds of servers). It lives for one manifest, so a file
 * changed later is read again by the next.
 */
export function hashBudget(): {
  hash(file: string): string | null | 'not-a-file';
  moduleFiles(lexical: string): readonly string[];
  realpath(file: string): string | undefined;
} {
  const done = new Map<string, string | null | 'not-a-file'>();
  const modules = new Map<string, readonly string[]>();
  const reals = new Map<string, string | undefined>();
  let spent = 0;
  return {
    moduleFiles(lexical) {
      let files = modules.get(lexical);
      if (files === undefined) modules.set(lexical, (files = moduleFiles(lexical)));
      return files;
    },
    realpath(file) {
      if (!reals.has(file)) reals.set(file, safeRealpath(file));
      return reals.get(file);
    },
    hash(file) {
      const known = done.get(file);
      if (known !== undefined) return known;
      let size = 0;
      try {
        size = statSync(file).size;
      } catch {
        // Reported as not a file below.
      }
      const result = spent + size > MAX_MANIFEST_HASHED_BYTES ? null : hashRegularFile(file);
      spent += size;
      done.set(file, result);
      return result;
    },
  };
}

function isRegularFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

function isDirectory(file: string): boolean {
  try {
    return statSync(file).isDirectory();
  } catch {
    return false;
  }
}

function readSmallText(file: string): string {
  if (!isRegularFile(file) || statSync(file).size > 1 << 20) throw new Error('not a small file');
  return readFileSync(file, 'utf8');
}

function hashRegularFile(file: string): string | null | 'not-a-file' {
  let fd: number | undefined;
  try {
    // Only regular files are opened, and without blocking: a FIFO named in argv must not hang it.
    if (!statSync(file).isFile()) return 'not-a-file';
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
    const stat = fstatSync(fd);
    if (!stat.isFile()) return 'not-a-file';
    if (stat.size > MAX_HASHED_FILE_BYTES) return null;
    const hash = createHash('sha256');
    const buffer = Buffer.allocUnsafe(1 << 16);
    for (;;) {
      const read = readSync(fd, buffer, 0, buffer.length, null);
      if (read === 0) break;
      hash.update(buffer.subarray(0, read));
    }
    return hash.digest('hex');
  } catch {
    return 'not-a-file';
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

export function safeRealpath(file: string): string | undefined {
  try {
    return realpathSync.native(file);
  } catch {
    return undefined;
  }
}
