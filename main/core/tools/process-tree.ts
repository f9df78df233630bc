import { spawn, spawnSync } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';

/** The variable every command tool process gets; its descendants inherit it (see {@link ProcessTree}). */
export const CALL_MARKER_VARIABLE = 'PROMPTFORGE_TOOL_CALL';

/** How many kill passes at most: each pass kills what the previous one found forking. */
const MAX_KILL_PASSES = 20;

interface ProcessInfo {
  pid: number;
  ppid: number;
  pgid: number;
  /** Start time (Linux clock ticks since boot; 0 elsewhere): a pid reused by another process differs. */
  start: number;
  zombie: boolean;
}

/**
 * Every process a command tool started, however it detached: the root, its descendants by
 * parent pid (remembered across snapshots, so a grandchild whose parent exited and that was
 * reparented is still known), its process group, and, on Linux, any process whose environment
 * carries the call's marker (which survives `setsid`, double forks and reparenting; only a
 * process that clears its environment loses it). `kill()` sends SIGKILL to all of them until a
 * pass finds none alive. Windows uses `taskkill /T`, which walks the tree itself.
 */
export class ProcessTree {
  /** Known members by pid, with their start time. */
  private readonly known = new Map<number, number>();
  /**
   * Set once no process is in the command's group: from then on its number could be reused by
   * an unrelated group, so it no longer counts.
   */
  private groupGone = false;
  /** Whether the machine's fork count was seen to rise across the root's own spawn (see {@link snapshot}). */
  private readonly forksCounted: boolean;
  /** The machine's fork count read just before the last full snapshot began. */
  private forksAtSnapshot: number | undefined;

  /**
   * `forksBeforeSpawn`: {@link machineForkCount} read just before the root was spawned. Only when
   * the count is seen to have risen since (the root's own fork) does {@link snapshot} trust it.
   */
  constructor(
    private readonly rootPid: number,
    private readonly marker: string,
    forksBeforeSpawn?: number,
  ) {
    this.known.set(rootPid, 0);
    const forksNow = forksBeforeSpawn === undefined ? undefined : machineForkCount();
    this.forksCounted = forksBeforeSpawn !== undefined && forksNow !== undefined && forksNow > forksBeforeSpawn;
  }

  /**
   * Records the current descendants. Call it now and then while the command runs.
   *
   * A snapshot reads the whole process table, so when the machine's fork count is trusted and no
   * process or thread was created anywhere since the last full snapshot began, it is skipped: no
   * new process exists, a reparented one only moves to an ancestor it already had, so the table
   * would add nobody to the tree (a process that joins the group without forking is still found
   * by {@link kill}, which reads the group and the marker itself).
   */
  snapshot(): void {
    if (process.platform === 'win32') return;
    const forks = this.forksCounted ? machineForkCount() : undefined;
    if (forks !== undefined && forks === this.forksAtSnapshot) return;
    this.members(listProcesses(), false);
    this.forksAtSnapshot = forks;
  }

  /** Kills every member, repeating while new ones appear. Never throws. */
  kill(): void {
    if (process.platform === 'win32') {
      spawn('taskkill', ['/pid', String(this.rootPid), '/T', '/F'], { stdio: 'ignore', windowsHide: true }).on(
        'error',
        () => signal(this.rootPid, 'SIGKILL'),
      );
      return;
    }
    for (let pass = 0; pass < MAX_KILL_PASSES; pass += 1) {
      const table = listProcesses();
      if (table.length === 0) {
        // No process table to read: the command's group is all that can be reached.
        if (!this.groupGone) signal(-this.rootPid, 'SIGKILL');
        signal(this.rootPid, 'SIGKILL');
        return;
      }
      const alive = this.members(table, true).filter((info) => !info.zombie);
      if (alive.length === 0) return;
      for (const info of alive) signal(info.pid, 'SIGKILL');
    }
  }

  /** The live members of the tree in `table`, remembering them. */
  private members(table: ProcessInfo[], withMarker: boolean): ProcessInfo[] {
    const children = new Map<number, ProcessInfo[]>();
    const byPid = new Map<number, ProcessInfo>();
    for (const info of table) {
      byPid.set(info.pid, info);
      const list = children.get(info.ppid);
      if (list) list.push(info);
      else children.set(info.ppid, [info]);
    }
    const found = new Map<number, ProcessInfo>();
    const queue: ProcessInfo[] = [];
    const add = (info: ProcessInfo) => {
      if (found.has(info.pid) || info.pid === process.pid) return;
      found.set(info.pid, info);
      queue.push(info);
    };
    for (const [pid, start] of this.known) {
      const info = byPid.get(pid);
      // A known pid now held by a different process (reused) is not ours.
      if (info && (start === 0 || info.start === start)) add(info);
    }
    if (!this.groupGone) {
      const group = table.filter((info) => info.pgid === this.rootPid);
      if (group.length === 0) this.groupGone = true;
      for (const info of group) add(info);
    }
    if (withMarker && process.platform === 'linux') for (const info of table) if (this.hasMarker(info.pid)) add(info);
    while (queue.length > 0) for (const child of children.get(queue.pop()!.pid) ?? []) add(child);
    for (const info of found.values()) this.known.set(info.pid, info.start);
    return [...found.values()];
  }

  private hasMarker(pid: number): boolean {
    try {
      return readFileSync(`/proc/${pid}/environ`, 'latin1').includes(`${CALL_MARKER_VARIABLE}=${this.marker}\0`);
    } catch {
      return false;
    }
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone, or not ours to signal.
  }
}

/** The buffer /proc files are read through. */
const procBuffer = Buffer.allocUnsafe(8192);

/** A /proc file's text, read to its end (`readFileSync` grows its buffer for these zero-sized files: slower). */
function readProcFile(file: string): string {
  const fd = openSync(file, 'r');
  try {
    let text = '';
    for (;;) {
      const got = readSync(fd, procBuffer, 0, procBuffer.length, null);
      if (got === 0) return text;
      text += procBuffer.toString('latin1', 0, got);
    }
  } finally {
    closeSync(fd);
  }
}

/** The most of /proc/stat read (it holds a line per CPU and a count per interrupt). */
const MAX_PROC_STAT_BYTES = 4 * 1024 * 1024;
/** /proc/stat, kept open, and the buffer it is read into (grown until the whole text fits). */
let procStat: { fd: number; buffer: Buffer } | undefined;

/**
 * The text of /proc/stat, read from offset 0 of a descriptor kept open: one syscall instead of
 * open, read, read and close, as the count is read at the start and end of every MCP call. The
 * kernel writes the text anew on each read from offset 0.
 */
function readProcStat(): string {
  procStat ??= { fd: openSync('/proc/stat', 'r'), buffer: Buffer.allocUnsafe(8192) };
  const stat = procStat;
  try {
    for (;;) {
      const got = readSync(stat.fd, stat.buffer, 0, stat.buffer.length, 0);
      if (got < stat.buffer.length) return stat.buffer.toString('latin1', 0, got);
      if (stat.buffer.length >= MAX_PROC_STAT_BYTES) throw new Error('/proc/stat is larger than expected');
      stat.buffer = Buffer.allocUnsafe(stat.buffer.length * 2);
    }
  } catch (error) {
    procStat = undefined;
    closeQuietly(stat.fd);
    throw error;
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Already closed.
  }
}

/**
 * How many processes and threads the machine created since it booted (the `processes` line of
 * /proc/stat, raised by every fork and clone, in any container); undefined off Linux, or when it
 * cannot be read or reads 0 (some sandboxed kernels do not count).
 */
export function machineForkCount(): number | undefined {
  if (process.platform !== 'linux') return undefined;
  let text: string;
  try {
    text = readProcStat();
  } catch {
    return undefined;
  }
  const match = /^processes (\d+)$/m.exec(text);
  const count = match ? Number(match[1]) : 0;
  return Number.isSafeInteger(count) && count > 0 ? count : undefined;
}

/** The process table: /proc on Linux, `ps` elsewhere (macOS, BSD). */
function listProcesses(): ProcessInfo[] {
  return process.platform === 'linux' ? listFromProc() : listFromPs();
}

function listFromProc(): ProcessInfo[] {
  const out: ProcessInfo[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return listFromPs();
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readProcFile(`/proc/${entry}/stat`);
    } catch {
      continue; // exited meanwhile
    }
    // "pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
    // cutime cstime priority nice threads itrealvalue starttime ..."; comm may hold spaces and ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    out.push({
      pid: Number(entry),
      ppid: Number(fields[1]),
      pgid: Number(fields[2]),
      start: Number(fields[19]),
      zombie: fields[0] === 'Z' || fields[0] === 'X',
    });
  }
  return out;
}

function listFromPs(): ProcessInfo[] {
  const result = spawnSync('ps', ['-A', '-o', 'pid=,ppid=,pgid=,stat='], { encoding: 'utf8', timeout: 5000 });
  if (result.status !== 0 || typeof result.stdout !== 'string') return [];
  return result.stdout.split('\n').flatMap((line) => {
    const [pid, ppid, pgid, state] = line.trim().split(/\s+/);
    if (!pid || !ppid || !pgid) return [];
    return [
      { pid: Number(pid), ppid: Number(ppid), pgid: Number(pgid), start: 0, zombie: (state ?? '').startsWith('Z') },
    ];
  });
}
