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
