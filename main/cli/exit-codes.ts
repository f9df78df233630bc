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
