import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { main, type CliIo } from '../../../main/cli/cli.js';
import type { SecretStore } from '../../../main/core/credentials/secret-store.js';
import { testPool } from '../run/run-harness.js';
import { mapSecretStore } from '../../fixtures/stubs.js';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
/** The real `promptforge` bin. */
export const bin = path.join(root, 'main/cli/promptforge.mjs');
/** A D-Bus address where nothing listens: every keychain call fails at once. */
export const NO_BUS = 'unix:path=/nonexistent/promptforge-test-bus';

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface SpawnedCli {
  child: ChildProcessWithoutNullStreams;
  /** Resolves when the process has exited and its output is fully read. */
  finished: Promise<Finished>;
  /** Resolves once stdout (or stderr) contains `text`. */
  waitForOutput(text: string, stream?: 'stdout' | 'stderr'): Promise<void>;
}

export interface SpawnOptions {
  cwd: string;
  /** Replaces the whole environment when given (PATH and HOME are kept unless overridden). */
  env?: NodeJS.ProcessEnv;
  /** Written to stdin, which is then closed. */
  stdin?: string;
  /** Start the CLI in its own process group, so a signal can be sent to the whole tree. */
  detached?: boolean;
  /** Run this command instead of `node bin` (e.g. `npx`); args follow it. */
  command?: [string, ...string[]];
}

/** Starts the real CLI as a child process, as a person's shell would. */
export function spawnCli(args: string[], options: SpawnOptions): SpawnedCli {
  const [command, ...prefix] = options.command ?? [process.execPath, bin];
  const env = options.env ?? { ...process.env, DBUS_SESSION_BUS_ADDRESS: NO_BUS };
  const child = spawn(command, [...prefix, ...args], {
    cwd: options.cwd,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PROMPTFORGE_CONFIG_DIR: process.env.PROMPTFORGE_CONFIG_DIR,
      ...env,
    },
    detached: options.detached ?? false,
  });
  child.stdin.end(options.stdin ?? '');
  const text = { stdout: '', stderr: '' };
  const waiters: { text: string; stream: 'stdout' | 'stderr'; resolve: () => void }[] = [];
  const check = () => {
    for (const waiter of [...waiters])
      if (text[waiter.stream].includes(waiter.text)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
  };
  child.stdout.on('data', (chunk: Buffer) => {
    text.stdout += chunk.toString('utf8');
    check();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    text.stderr += chunk.toString('utf8');
    check();
  });
  const finished = new Promise<Finished>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, ...text })),
  );
  return {
    child,
    finished,
    waitForOutput: (wanted, stream = 'stdout') =>
      new Promise<void>((resolve, reject) => {
        waiters.push({ text: wanted, stream, resolve });
        check();
        void finished.then((end) => {
          if (!end[stream].includes(wanted))
            reject(
              new Error(
                `the CLI exited (${end.code ?? end.signal}) without printing ${JSON.stringify(wanted)}:\n${end.stderr}`,
              ),
            );
        });
      }),
  };
}

/** Runs the CLI to the end. */
export function runCli(args: string[], options: SpawnOptions): Promise<Finished> {
  return spawnCli(args, options).finished;
}

/** What may never reach a terminal raw (see main/cli/terminal-text.ts). */
export const UNSAFE_FOR_TERMINAL =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]|\r(?!\n)/;

/** The first unsafe character in `text` and where, for a readable failure. */
export function firstUnsafe(text: string): string | undefined {
  const match = UNSAFE_FOR_TERMINAL.exec(text);
  if (!match) return undefined;
  return `U+${match[0].charCodeAt(0).toString(16).padStart(4, '0')} at ${match.index}: ${JSON.stringify(text.slice(Math.max(0, match.index - 30), match.index + 30))}`;
}

/**
 * Runs the CLI inside a private D-Bus session with a fresh, unlocked GNOME Keyring kept under
 * `home`: real Secret Service, and a person's own keys are never touched. Its runtime folder is
 * its own too: `gnome-keyring-daemon --unlock` finds a running daemon through
 * `$XDG_RUNTIME_DIR/keyring`, and would otherwise hand its password to the test suite's keyring.
 */
export function inPrivateKeyring(home: string, env: NodeJS.ProcessEnv = {}): Pick<SpawnOptions, 'command' | 'env'> {
  const runtime = path.join(home, 'run');
  mkdirSync(runtime, { recursive: true, mode: 0o700 });
  return {
    command: [
      'dbus-run-session',
      '--',
      'sh',
      '-c',
      'printf pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null && exec "$@"',
      'sh',
      process.execPath,
      bin,
    ],
    env: {
      HOME: home,
      XDG_DATA_HOME: path.join(home, 'share'),
      XDG_CONFIG_HOME: path.join(home, 'config'),
      XDG_RUNTIME_DIR: runtime,
      ...env,
    },
  };
}

/**
 * The CLI in this process, with `stdin` (default empty) already ended and no Ctrl-C: its exit
 * code and what it printed. Runs borrow the test file's worker pool (the spawned bin starts its own).
 */
export async function runCliInProcess(
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; secrets?: SecretStore; stdin?: string },
): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const stdin = new PassThrough();
  stdin.end(options.stdin ?? '');
  const secrets = options.secrets ?? mapSecretStore();
  const io: CliIo = {
    stdin,
    stdout,
    stderr,
    // This test run's config folder (workspace trust), never the person's.
    env: { PROMPTFORGE_CONFIG_DIR: process.env['PROMPTFORGE_CONFIG_DIR'], ...options.env },
    cwd: options.cwd,
    onInterrupt: () => () => undefined,
    secrets: () => secrets,
    pool: testPool(),
  };
  const code = await main(args, io);
  return { code, stdout: out, stderr: err };
}
