/** The process around the CLI (streams, environment, signals, keychain) and the only way it prints. */
import type { Readable, Writable } from 'node:stream';
import { KeyringSecretStore } from '../core/credentials/keyring-secret-store.js';
import type { SecretStore } from '../core/credentials/secret-store.js';
import type { WorkerPool } from '../core/run/worker-pool.js';
import { terminalSafe } from './terminal-text.js';

/** The process around the CLI, injectable for tests. */
export interface CliIo {
  stdin: Readable & { isTTY?: boolean; setRawMode?: (mode: boolean) => unknown };
  stdout: Writable;
  stderr: Writable;
  env: Record<string, string | undefined>;
  cwd: string;
  /** Subscribes to Ctrl-C; returns an unsubscribe function. */
  onInterrupt(listener: () => void): () => void;
  secrets(): SecretStore;
  /**
   * Lua workers already warming (the bin starts them before it loads the CLI; tests share one per
   * file). Whoever made the pool closes it. Default: `run` starts a pool of its own.
   */
  pool?: WorkerPool;
}

/** The only way the CLI prints: every line is made terminal-safe first. */
export interface Printer {
  /** A line on stdout. */
  out(text: string): void;
  /** A line on stderr. */
  err(text: string): void;
  /** `promptforge: text` on stderr. */
  say(text: string): void;
}

/**
 * Calls `onClosed` (once per stream) when stdout or stderr can no longer be written: the reader
 * of a pipe went away (EPIPE) or the stream failed otherwise. The error is handled here, so a
 * closed pipe never becomes an unhandled 'error' event with a stack trace. The listeners stay for
 * the life of the stream: a late write after the command ended is handled too.
 */
export function watchOutput(
  io: Pick<CliIo, 'stdout' | 'stderr'>,
  onClosed: (stream: 'stdout' | 'stderr') => void,
): void {
  for (const name of ['stdout', 'stderr'] as const) {
    let told = false;
    io[name].on('error', () => {
      if (told) return;
      told = true;
      onClosed(name);
    });
  }
}

export function printer(io: CliIo): Printer {
  const out = (text: string) => void io.stdout.write(`${terminalSafe(text)}\n`);
  const err = (text: string) => void io.stderr.write(`${terminalSafe(text)}\n`);
  return { out, err, say: (text) => err(`promptforge: ${text}`) };
}

/** The signals that stop a run the way Ctrl-C does (Windows delivers only SIGINT and SIGHUP). */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** The real process's streams, environment, signals and OS keychain. */
export function defaultIo(): CliIo {
  return {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    onInterrupt(listener) {
      // Ctrl-C, and also `kill`, `timeout`, a CI job's cancel (SIGTERM) and a closed terminal
      // (SIGHUP): each stops the run cleanly, so its tools' process trees die and run-end is written.
      for (const signal of STOP_SIGNALS) process.on(signal, listener);
      return () => {
        for (const signal of STOP_SIGNALS) process.off(signal, listener);
      };
    },
    secrets: () => new KeyringSecretStore(),
  };
}

/**
 * `text` with each `promptforge ...` command in it written as `npx promptforge ...` when the CLI
 * was started through npx (or an npm script), where `promptforge` alone may not be on the PATH.
 */
export function forLauncher(text: string, env: CliIo['env']): string {
  if (env.npm_command !== 'exec' && !env.npm_lifecycle_event) return text;
  // Idempotent: a text already rewritten (a message built with it, then printed) keeps one `npx`.
  return text.replace(/(?<![\w./-]|npx )promptforge (?=keys |run |trust |mcp |test )/g, 'npx promptforge ');
}
