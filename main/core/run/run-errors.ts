/** An error the script receives as a catchable Lua error, raised at the calling line. */
export class ScriptError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScriptError';
  }
}

/**
 * An error that ends the run at once, uncatchable by the script: a replay that diverged from its
 * recording, or a broken host invariant. The message says where.
 */
export class FatalRunError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FatalRunError';
  }
}

/**
 * A per-run limit the host checks (the spending cap) ends the run at once with status `limit`:
 * uncatchable by the script, which gets no reply. `kind` is the run-end's error kind.
 */
export class RunLimitError extends Error {
  constructor(
    readonly kind: 'budget',
    message: string,
  ) {
    super(message);
    this.name = 'RunLimitError';
  }
}

/**
 * A fork that cannot start: its step is past the end of the recording or names an event that is
 * not a step, its edit does not fit the step, or its script changed since the recording (without
 * `force`). `code` is stable (the studio passes it on); the message says what to change.
 */
export class ForkError extends Error {
  /** How the CLI reports it (a bad flag value). */
  readonly kind = 'fork';
  constructor(
    readonly code: 'fork-past-end' | 'fork-not-a-step' | 'fork-bad-edit' | 'script-changed',
    message: string,
  ) {
    super(message);
    this.name = 'ForkError';
  }
}

/**
 * The advice that ends a replay divergence past a fork's step, in the studio's words (a model is
 * chosen there). The CLI puts its own flags in place of it.
 */
export const FORK_GO_LIVE_ADVICE = 'choose a model to go on live from there';
