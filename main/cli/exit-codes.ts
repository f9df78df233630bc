import type { RunStatus } from '../../common/run-events.js';

/** The CLI's exit codes; docs/cli.md lists them. */
export const EXIT = {
  ok: 0,
  scriptError: 1,
  usage: 2,
  /** A limit was crossed, or the run was stopped: Ctrl-C, a signal, or its stdout or stderr closed. */
  stopped: 3,
  /** The workspace is not trusted (or a trust question went unanswered) and nothing ran. */
  untrusted: 4,
  /** `run --fail-on-deny`: a tool call was denied (by a rule, a policy, a flag or a person). */
  denied: 5,
} as const;

/**
 * How the CLI reports an error it was stopped by, by the error's `kind` (each such error class
 * carries one): its exit code, and what is printed with its message. `usage` adds the usage hint,
 * `launcher` the launcher's advice, `stopped` says why the command stopped instead. An error
 * without a kind here is an internal error (exit 1, with its stack).
 */
export const EXIT_FOR_KIND = {
  /** The command line is wrong (`UsageError`). */
  usage: { exit: EXIT.usage, says: 'usage' },
  /** A fork step or edit that does not fit the recording is a bad flag value (`ForkError`). */
  fork: { exit: EXIT.usage, says: 'usage' },
  /** The workspace is not trusted and there was no terminal to ask on (`UntrustedError`). */
  untrusted: { exit: EXIT.untrusted, says: 'launcher' },
  /** A command failed in a way the person can act on (`CommandError`). */
  'command-failed': { exit: EXIT.scriptError, says: 'message' },
  /** Ctrl-C, or the output closed, before the command finished (`InterruptedError`). */
  interrupted: { exit: EXIT.stopped, says: 'stopped' },
  // Setup errors are about files and the machine, not the command line: their message says what
  // to fix, and the usage would not help.
  /** The run could not start: models.yaml, the catalog, a key (`RunSetupError`). */
  'run-setup': { exit: EXIT.usage, says: 'message' },
  /** A transcript to replay or fork is missing or invalid (`TranscriptError`). */
  transcript: { exit: EXIT.usage, says: 'message' },
  /** No keychain to read keys from (`SecretStoreUnavailableError`). */
  'secret-store-unavailable': { exit: EXIT.usage, says: 'launcher' },
  /** A folder above that someone else owns or may write is not taken as the workspace (`UnsafeWorkspaceError`). */
  'unsafe-workspace': { exit: EXIT.usage, says: 'message' },
  /** The config folder or a file in it cannot be used (`ConfigDirError`, `ConfigFileError`). */
  config: { exit: EXIT.usage, says: 'message' },
} as const satisfies Record<string, { exit: number; says: 'usage' | 'launcher' | 'message' | 'stopped' }>;

/** The kind of an error the CLI reports by {@link EXIT_FOR_KIND}. */
export type CliErrorKind = keyof typeof EXIT_FOR_KIND;

/**
 * The kind `error` carries, when it is one {@link EXIT_FOR_KIND} lists. Read from the error's
 * `kind` field, never by `instanceof`: the class may come from a module loaded later (or twice).
 */
export function cliErrorKind(error: unknown): CliErrorKind | undefined {
  if (!(error instanceof Error)) return undefined;
  const kind: unknown = (error as { kind?: unknown }).kind;
  return typeof kind === 'string' && Object.hasOwn(EXIT_FOR_KIND, kind) ? (kind as CliErrorKind) : undefined;
}

/**
 * `promptforge test`'s exit codes, the same numbers as a run's: every case passed, a case failed
 * (or could not run), a usage error or a test file with errors (nothing ran), the suite was
 * interrupted (Ctrl-C; the partial report is written), the workspace is not trusted (nothing ran).
 */
export const TEST_EXIT = {
  passed: EXIT.ok,
  failed: EXIT.scriptError,
  usage: EXIT.usage,
  interrupted: EXIT.stopped,
  untrusted: EXIT.untrusted,
} as const;

const BY_STATUS: Record<RunStatus, number> = {
  ok: EXIT.ok,
  error: EXIT.scriptError,
  limit: EXIT.stopped,
  stopped: EXIT.stopped,
};

/** The exit code for a run that ended with `status`: the one place the CLI maps one to the other. */
export function exitCodeFor(status: RunStatus): number {
  return BY_STATUS[status];
}
