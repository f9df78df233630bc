import { childSearchPath } from './child-path.js';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { JsonObject } from '../../../common/json.js';
import { tail } from './bounded-text.js';
import { ToolFailure } from './tool-spec.js';
import { CALL_MARKER_VARIABLE, ProcessTree } from './process-tree.js';
import { checkInsideWorkspace } from './workspace-path.js';

/** Default milliseconds before a command tool's process group is killed. */
const DEFAULT_COMMAND_TIMEOUT_MS = 30_000;
/** Default largest stdout of a command tool, in bytes. */
const DEFAULT_COMMAND_MAX_OUTPUT_BYTES = 1024 * 1024;
const STDERR_KEEP_BYTES = 8 * 1024;
/** How often the process tree is snapshotted while a command runs. */
const SNAPSHOT_INTERVAL_MS = 100;
/** After the command exits, how long its pipes may stay open before the call ends anyway. */
const DRAIN_AFTER_EXIT_MS = 2_000;

/** Settings of one command run (the `command` kind's settings, defaults applied by the caller). */
export interface CommandRunOptions {
  command: string[];
  /** Working directory relative to the workspace root. */
  cwd?: string;
  env?: string[];
  timeoutMs?: number;
  maxOutputBytes?: number;
}

/**
 * Runs argv with no shell in its own process group, writes `args` as JSON to stdin and resolves
 * with stdout. The whole process tree (see {@link ProcessTree}: descendants by parent, the group,
 * and anything carrying the call's marker variable, so `setsid` and double forks do not escape) is
 * killed with SIGKILL on timeout, on abort, when stdout passes the cap, and when the command exits,
 * so no descendant outlives the call. Timeouts fire on their own timer: a descendant holding
 * stdout open cannot delay them. Only PATH, the allow-listed variables and the marker reach the
 * environment.
 */
export async function runCommand(
  workspaceRoot: string | undefined,
  options: CommandRunOptions,
  args: JsonObject,
  signal: AbortSignal,
): Promise<string> {
  if (workspaceRoot === undefined) throw new ToolFailure('command tools need an open workspace');
  const [program, ...argv] = options.command;
  if (!program) throw new ToolFailure('the command is empty');
  const rootReal = await fs.realpath(workspaceRoot);
  const cwd = await resolveCwd(rootReal, options.cwd);
  // A program written with a slash is a file in the workspace; a bare name is looked up on PATH.
  const executable = program.includes('/') || program.includes('\\') ? path.resolve(rootReal, program) : program;
  const timeoutMs = options.timeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  const maxOutputBytes = options.maxOutputBytes ?? DEFAULT_COMMAND_MAX_OUTPUT_BYTES;
  if (signal.aborted) throw new ToolFailure('cancelled before it started');

  const env: NodeJS.ProcessEnv = {};
  const searchPath = childSearchPath(process.env['PATH']);
  if (searchPath !== undefined) env['PATH'] = searchPath;
  // Windows cannot start most programs without SystemRoot.
  if (process.platform === 'win32' && process.env['SystemRoot'] !== undefined)
    env['SystemRoot'] = process.env['SystemRoot'];
  for (const name of options.env ?? []) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }

  // Descendants inherit this marker, so even one that detached (setsid, double fork) is found.
  const marker = randomBytes(12).toString('hex');
  env[CALL_MARKER_VARIABLE] = marker;

  return new Promise<string>((resolve, reject) => {
    const child = spawn(executable, argv, {
      cwd,
      env,
      shell: false,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    const tree = child.pid === undefined ? undefined : new ProcessTree(child.pid, marker);
    tree?.snapshot();
    // Parents are remembered across snapshots, so a grandchild whose parent exits is still known.
    const watch = setInterval(() => tree?.snapshot(), SNAPSHOT_INTERVAL_MS);
    watch.unref();
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    let stderr = Buffer.alloc(0);
    let failure: ToolFailure | undefined;
    let settled = false;
    let exited = false;
    let exitCode: number | null = null;
    let exitSignal: NodeJS.Signals | null = null;
    let drain: NodeJS.Timeout | undefined;

    // Settles without waiting for the pipes to close (a descendant may hold them open forever):
    // the whole tree is killed and the pipes are destroyed, whatever ended the call.
    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(drain);
      clearInterval(watch);
      signal.removeEventListener('abort', onAbort);
      tree?.kill();
      child.stdout.destroy();
      child.stderr.destroy();
      child.stdin.destroy();
      if (failure) return reject(failure);
      if (!exited) return reject(new ToolFailure('ended without an exit status'));
      if (exitCode !== 0) {
        const reason = exitSignal ? `was killed by ${exitSignal}` : `exited with code ${exitCode}`;
        const detail = tail(stderr.toString('utf8'));
        return reject(detail ? new ToolFailure(`${reason}: ${detail}`, detail) : new ToolFailure(reason));
      }
      resolve(Buffer.concat(stdout).toString('utf8'));
    };
    const failWith = (message: string) => {
      failure ??= new ToolFailure(message);
      finish();
    };

    const timer = setTimeout(
      () => failWith(`timed out after ${timeoutMs} ms (the process and its children were killed)`),
      timeoutMs,
    );
    const onAbort = () => failWith('cancelled (the process and its children were killed)');
    signal.addEventListener('abort', onAbort, { once: true });

    child.on('error', (error: NodeJS.ErrnoException) =>
      failWith(
        error.code === 'ENOENT'
          ? `cannot start "${program}": not found`
          : `cannot start "${program}": ${error.code ?? error.message}`,
      ),
    );
    child.stdout.on('data', (chunk: Buffer) => {
      if (settled) return;
      stdoutBytes += chunk.byteLength;
      if (stdoutBytes > maxOutputBytes) return failWith(`output exceeded ${maxOutputBytes} bytes`);
      stdout.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = Buffer.concat([stderr, chunk]);
      if (stderr.byteLength > STDERR_KEEP_BYTES) stderr = stderr.subarray(stderr.byteLength - STDERR_KEEP_BYTES);
    });
    // A command that never reads stdin closes the pipe early; that is not an error.
    child.stdin.on('error', () => undefined);
    child.stdout.on('error', () => undefined);
    child.stderr.on('error', () => undefined);
    child.on('exit', (code, exitedBy) => {
      exited = true;
      exitCode = code;
      exitSignal = exitedBy;
      // The tool is done: kill anything it left running, so its pipes close and nothing leaks.
      tree?.kill();
      // What the command wrote is read before 'close'; a pipe still held open after the kill
      // (by a process that escaped the tree) does not keep the call waiting.
      drain = setTimeout(finish, DRAIN_AFTER_EXIT_MS);
    });
    child.on('close', finish);
    child.stdin.end(JSON.stringify(args));
  });
}

async function resolveCwd(rootReal: string, cwd: string | undefined): Promise<string> {
  if (cwd === undefined) return rootReal;
  const checked = checkInsideWorkspace(rootReal, cwd, { missing: 'refuse' });
  if (checked.ok) return checked.real;
  switch (checked.problem) {
    case 'outside':
      throw new ToolFailure(`working directory "${cwd}" is outside the workspace`);
    case 'missing':
      throw new ToolFailure(`working directory "${cwd}" does not exist`);
    case 'link-outside':
      throw new ToolFailure(`working directory "${cwd}" leads outside the workspace`);
  }
}
