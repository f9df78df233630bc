import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';

/**
 * Processes still running that belong to this test run (they run in or name the run's temporary
 * folder, or a file under test/), other than vitest's own and its ancestors. Read from /proc
 * (Linux; elsewhere none are found). The global teardown in test/temporary-folder.ts kills them,
 * names them, and fails the run.
 */
export function leftoverProcesses(runFolder: string, repository: string): Array<{ pid: number; description: string }> {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const ancestors = ancestorsOf(process.pid);
  const found: Array<{ pid: number; description: string }> = [];
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (ancestors.has(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // A zombie has finished; only its parent's wait is missing.
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue;
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
      // vitest's own workers end with the run.
      if (command === '' || command.includes('/vitest/dist/')) continue;
      const environment = readFileSync(`/proc/${pid}/environ`, 'utf8');
      let cwd = '';
      try {
        cwd = readlinkSync(`/proc/${pid}/cwd`);
      } catch {
        // Another user's process, or gone: its folder cannot be read.
      }
      const ours =
        environment.includes(`TMPDIR=${runFolder}`) ||
        cwd.startsWith(runFolder) ||
        command.includes(runFolder) ||
        command.includes(`${repository}/test/`);
      if (ours)
        found.push({ pid, description: `pid ${pid}: ${command.slice(0, 300)} (in ${cwd || 'an unreadable folder'})` });
    } catch {
      // The process ended while it was read, or is not ours to read.
    }
  }
  return found;
}

function ancestorsOf(pid: number): Set<number> {
  const ancestors = new Set<number>([pid]);
  let current = pid;
  for (let depth = 0; depth < 64 && current > 1; depth += 1) {
    try {
      const stat = readFileSync(`/proc/${current}/stat`, 'utf8');
      current = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      ancestors.add(current);
    } catch {
      break;
    }
  }
  return ancestors;
}

/**
 * What the tests left in the run's temporary folder `runFolder` (its top level, the run's own
 * config folder `kept` aside), each with the test files that make folders or files of that name
 * (found by the name's stem: a `mkdtemp` prefix, without its six random characters), so the
 * culprit is named. The global teardown in test/temporary-folder.ts reports them and fails the run.
 */
export function leftoverFiles(runFolder: string, kept: ReadonlySet<string>, testRoot: string): string[] {
  let names: string[];
  try {
    names = readdirSync(runFolder);
  } catch {
    return [];
  }
  const left = names
    .filter((name) => !kept.has(name))
    // A test file's own folder that is empty held nothing left behind (a file whose tests were all
    // skipped never ran the hook that deletes it).
    .filter((name) => !(name.startsWith('f-') && isEmptyFolder(path.join(runFolder, name))))
    .sort();
  // The test sources are read only to name the makers of what was left.
  const sources = left.length > 0 ? testSources(testRoot) : [];
  return left.map((name) => {
    const stem = name.replace(/[A-Za-z0-9]{6}$/, '');
    // A test file's own folder (test/file-temporary-folder.ts) is named after the file.
    const fileFolder = /^f-(.+)-$/.exec(stem);
    const makers = fileFolder
      ? sources.filter((source) => fileFolderStem(source.file) === fileFolder[1]).map((source) => source.file)
      : stem.length >= 4
        ? sources.filter((source) => source.text.includes(stem)).map((source) => source.file)
        : [];
    const culprit =
      makers.length > 0 ? `made by ${makers.slice(0, 3).join(', ')}` : 'no test names it: search test/ for it';
    return `${name} (${culprit})`;
  });
}

/**
 * The name part of test file `testFile`'s own temporary folder (`f-STEM-XXXXXX`, made by
 * test/file-temporary-folder.ts): short, so a socket path made inside it (a keyring's control
 * socket) stays under the system's limit of 108 bytes, and messages that shorten long paths still
 * show it whole.
 */
export function fileFolderStem(testFile: string): string {
  return path
    .basename(testFile)
    .replace(/\.test\.ts$/, '')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .slice(0, 14);
}

function testSources(root: string): Array<{ file: string; text: string }> {
  const found: Array<{ file: string; text: string }> = [];
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const full = `${folder}/${entry.name}`;
      if (entry.isDirectory()) walk(full);
      else if (/\.(ts|mjs|js)$/.test(entry.name))
        found.push({ file: full.slice(root.length - 'test'.length), text: readFileSync(full, 'utf8') });
    }
  };
  walk(root);
  return found;
}

function isEmptyFolder(folder: string): boolean {
  try {
    return readdirSync(folder).length === 0;
  } catch {
    return false;
  }
}
