import { promises as fs, type Stats } from 'node:fs';
import path from 'node:path';
import { CATALOG_FILES } from './catalog-files.js';

/**
 * The nearest folder at or above `startDir` found holding promptforge.yaml, tools.yaml or
 * models.yaml was refused as a workspace: it, or a catalog file in it, belongs to another user or
 * others can write to it. The message names the folder (or file), says why and what to do.
 */
export class UnsafeWorkspaceError extends Error {
  /** How the CLI reports it (a setup error). */
  readonly kind = 'unsafe-workspace';
  constructor(
    /** The refused folder or catalog file. */
    readonly refused: string,
    message: string,
  ) {
    super(message);
    this.name = 'UnsafeWorkspaceError';
  }
}

/** Who the current user is, for the ownership check; undefined where there is none (Windows). */
function currentUser(): { uid: number; gid: number } | undefined {
  if (process.platform === 'win32' || !process.getuid || !process.getgid) return undefined;
  return { uid: process.getuid(), gid: process.getgid() };
}

/**
 * Why a folder or file that would choose this run's tools and models cannot be trusted to, said
 * of it (`belongs to user 1001, ...`), or undefined when it can: it must belong to the current
 * user, and no one else may write to it (world-writable, or group-writable for a group other than
 * the user's own primary group, which on systems with a group per user holds the user alone).
 * `owner: false` skips the first rule; `sticky` accepts a sticky folder others can write to (no one
 * else can replace a file of yours in it).
 */
function unsafeBecause(
  stat: Stats,
  user: { uid: number; gid: number },
  options: { owner: boolean; sticky: boolean },
): { why: string; fix: (target: string) => string } | undefined {
  if (options.owner && stat.uid !== user.uid)
    return {
      why: `belongs to user ${stat.uid}, not to you (user ${user.uid})`,
      fix: (target) => `make it yours (as root: chown ${user.uid} ${target})`,
    };
  if (options.sticky && (stat.mode & 0o1000) !== 0) return undefined;
  const mode = `mode ${(stat.mode & 0o7777).toString(8).padStart(4, '0')}`;
  if ((stat.mode & 0o002) !== 0)
    return { why: `can be written by anyone (${mode})`, fix: (target) => `take that away (chmod o-w ${target})` };
  if ((stat.mode & 0o020) !== 0 && stat.gid !== user.gid)
    return {
      why: `can be written by the members of group ${stat.gid}, which is not your own group ${user.gid} (${mode})`,
      fix: (target) => `take that away (chmod g-w ${target})`,
    };
  return undefined;
}

async function statOrUndefined(file: string): Promise<Stats | undefined> {
  try {
    return await fs.stat(file);
  } catch {
    return undefined;
  }
}

/**
 * Why folder `dir` is not the user's alone (see {@link unsafeBecause}), as a sentence with its
 * fix, or undefined when it is (and always on Windows, which has no such check).
 */
export async function folderNotYoursBecause(dir: string): Promise<string | undefined> {
  const user = currentUser();
  if (!user) return undefined;
  const stat = await fs.stat(dir);
  const problem = unsafeBecause(stat, user, { owner: true, sticky: false });
  return problem && `it ${problem.why}; ${problem.fix(dir)}`;
}

/**
 * The nearest folder at or above `startDir` that holds promptforge.yaml, tools.yaml or models.yaml;
 * undefined when there is none up to the filesystem root. Loads nothing but `node:fs`, so a command
 * can look for a workspace before it decides to load one.
 *
 * A workspace chooses the tools and models a run uses, so on POSIX systems the folder found must be
 * the user's alone, as git's safe.directory requires since CVE-2022-24765: it, and each catalog
 * file in it, must belong to the current user and be writable by no one else (see
 * {@link unsafeBecause}; a catalog file that is a symbolic link is judged by the file it leads to,
 * and by that file's folder). Otherwise the walk stops there with an {@link UnsafeWorkspaceError}
 * that names the folder, says why and how to fix it: nothing above it is tried, since a folder
 * someone else controls must not decide which workspace is used. Folders without a catalog file
 * are passed through whoever owns them (they choose nothing). Naming a folder explicitly
 * (`--workspace DIR`, the studio's Open) skips the check. On Windows there is no such check.
 */
export async function findWorkspaceRoot(startDir: string): Promise<string | undefined> {
  const user = currentUser();
  let dir = path.resolve(startDir);
  for (;;) {
    // The folder's catalog files are looked up together; markers keep CATALOG_FILES' order.
    const found = await Promise.all(
      CATALOG_FILES.map(async (name) => {
        const file = path.join(dir, name);
        return { file, stat: await statOrUndefined(file) };
      }),
    );
    const markers = found.filter((marker): marker is { file: string; stat: Stats } => marker.stat?.isFile() === true);
    if (markers.length > 0) {
      if (user) await checkCandidate(dir, markers, user);
      return dir;
    }
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** Refuses `dir` unless it and its catalog files are the user's alone. */
async function checkCandidate(
  dir: string,
  markers: { file: string; stat: Stats }[],
  user: { uid: number; gid: number },
): Promise<void> {
  const dirStat = await fs.stat(dir);
  const problem = unsafeBecause(dirStat, user, { owner: true, sticky: false });
  if (problem)
    throw refusal(dir, `it holds ${path.basename(markers[0]!.file)}, but it ${problem.why}`, problem.fix(dir));
  for (const { file, stat } of markers) await checkCatalogFile(dir, file, stat, user);
}

/** Refuses `dir` when its catalog `file` (or, for a link, the file it leads to) is not the user's alone. */
async function checkCatalogFile(
  dir: string,
  file: string,
  stat: Stats,
  user: { uid: number; gid: number },
): Promise<void> {
  const name = path.basename(file);
  const link = (await fs.lstat(file)).isSymbolicLink();
  const target = link ? await fs.realpath(file) : file;
  const subject = link ? `its ${name} is a symbolic link to ${target}, which` : `its ${name}`;
  const problem = unsafeBecause(stat, user, { owner: true, sticky: false });
  if (problem) throw refusal(dir, `${subject} ${problem.why}`, problem.fix(target));
  if (!link) return;
  // Whoever can write to the folder the link leads into can replace the file.
  const folder = path.dirname(target);
  const folderStat = await statOrUndefined(folder);
  const folderProblem = folderStat && unsafeBecause(folderStat, user, { owner: false, sticky: true });
  if (folderProblem)
    throw refusal(
      dir,
      `its ${name} is a symbolic link into ${folder}, which ${folderProblem.why}`,
      folderProblem.fix(folder),
    );
}

function refusal(dir: string, why: string, fix: string): UnsafeWorkspaceError {
  return new UnsafeWorkspaceError(
    dir,
    `${dir} was not taken as the workspace: ${why}, so someone else could choose the tools and models this run uses. ` +
      `If you trust it, name it: --workspace ${dir}; otherwise ${fix}, or run from a folder of your own.`,
  );
}
