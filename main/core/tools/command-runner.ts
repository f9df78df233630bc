import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { JsonObject } from '../../../common/json.js';
import { tail } from './bounded-text.js';
import { ToolFailure } from './tool-spec.js';
import { isInside } from './workspace-path.js';

/** Default milliseconds before a command tool's process group is killed. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 30_000;
/** Default largest stdout of a command tool, in bytes. */
export const DEFAULT_COMMAND_MAX_OUTPUT_BYTES = 1024 * 1024;
const STDERR_KEEP_BYTES = 8 * 1024;

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
 * with stdout. The whole group (the command and anything it started) is killed with SIGKILL on
 * timeout, on abort, when stdout passes the cap, and after the command exits, so no grandchild
 * outlives the call. Only PATH and the allow-listed variables reach the environment.
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
  if (process.env['PATH'] !== undefined) env['PATH'] = process.env['PATH'];
  // Windows cannot start most programs without SystemRoot.
  if (process.platform === 'win32' && process.env['SystemRoot'] !== undefined)
    env['SystemRoot'] = process.env['SystemRoot'];
  for (const name of options.env ?? []) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }

  return new Promise<string>((resolve, reject) => {
    const child = spawn(executable, argv, {
      cwd,
      env,
      shell: false,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    let stderr = Buffer.alloc(0);
    let failure: ToolFailure | undefined;
    let settled = false;
    let exitCode: number | null = null;
    let exitSignal: NodeJS.Signals | null = null;

    const killGroup = () => {
      if (child.pid === undefined) return;
      if (process.platform === 'win32') {
        // Windows has no process groups to signal: taskkill /T walks the tree of child processes.
        // (Not exercised by the Linux test suite.)
        spawn('taskkill', ['/pid', String(child.pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true }).on(
          'error',
          () => child.kill('SIGKILL'),
        );
        return;
      }
      try {
        // Negative pid: the whole process group that `detached` gave the command.
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone (ESRCH): make sure the direct child is too.
        try {
          child.kill('SIGKILL');
        } catch {
          // Nothing left to kill.
        }
      }
    };
    const failWith = (message: string) => {
      failure ??= new ToolFailure(message);
      killGroup();
    };

    const timer = setTimeout(
      () => failWith(`timed out after ${timeoutMs} ms (the process and its children were killed)`),
      timeoutMs,
    );
    const onAbort = () => failWith('cancelled (the process and its children were killed)');
    signal.addEventListener('abort', onAbort, { once: true });

    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      if (failure) return reject(failure);
      if (exitCode !== 0) {
        const reason = exitSignal ? `was killed by ${exitSignal}` : `exited with code ${exitCode}`;
        const detail = tail(stderr.toString('utf8'));
        return reject(new ToolFailure(detail ? `${reason}: ${detail}` : reason));
      }
      resolve(Buffer.concat(stdout).toString('utf8'));
    };

    child.on('error', (error: NodeJS.ErrnoException) => {
      failure ??= new ToolFailure(
        error.code === 'ENOENT'
          ? `cannot start "${program}": not found`
          : `cannot start "${program}": ${error.code ?? error.message}`,
      );
      finish();
    });
    child.stdout.on('data', (chunk: Buffer) => {
      stdoutBytes += chunk.byteLength;
      if (stdoutBytes > maxOutputBytes) {
        failWith(`output exceeded ${maxOutputBytes} bytes`);
        return;
      }
      stdout.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = Buffer.concat([stderr, chunk]);
      if (stderr.byteLength > STDERR_KEEP_BYTES) stderr = stderr.subarray(stderr.byteLength - STDERR_KEEP_BYTES);
    });
    // A command that never reads stdin closes the pipe early; that is not an error.
    child.stdin.on('error', () => undefined);
    child.on('exit', (code, exitedBy) => {
      exitCode = code;
      exitSignal = exitedBy;
      // The tool is done: kill anything it left running so its pipes close and nothing leaks.
      killGroup();
    });
    child.on('close', finish);
    child.stdin.end(JSON.stringify(args));
  });
}

async function resolveCwd(rootReal: string, cwd: string | undefined): Promise<string> {
  if (cwd === undefined) return rootReal;
  const candidate = path.resolve(rootReal, cwd);
  if (!isInside(rootReal, candidate)) throw new ToolFailure(`working directory "${cwd}" is outside the workspace`);
  let real: string;
  try {
    real = await fs.realpath(candidate);
  } catch {
    throw new ToolFailure(`working directory "${cwd}" does not exist`);
  }
  if (!isInside(rootReal, real)) throw new ToolFailure(`working directory "${cwd}" leads outside the workspace`);
  return real;
}
