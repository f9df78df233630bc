import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

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
        environment.includes(`TMPDIR=${runFolder}\0`) ||
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
