/** The errors a command throws to end with a message and an exit code, and the Ctrl-C race. */

/** The command line is wrong: the message and the usage hint are printed, exit code 2. */
export class UsageError extends Error {
  readonly kind = 'usage';
}

/** Ctrl-C arrived before the command could finish. */
export class InterruptedError extends Error {
  readonly kind = 'interrupted';
}

/**
 * The reason a command's interrupt signal carries when its output closed (`promptforge run … |
 * head -1`, a pager quit early): nobody reads what it prints, so it stops as on Ctrl-C.
 */
export class OutputClosed {
  constructor(readonly stream: 'stdout' | 'stderr') {}
  get text(): string {
    return `${this.stream} was closed (nothing reads the output any more)`;
  }
}

/** Why `signal` stopped a command, in the words the CLI prints after the script's name. */
export function stopText(signal: AbortSignal): string {
  return signal.reason instanceof OutputClosed ? `stopped: ${signal.reason.text}` : 'interrupted (Ctrl-C)';
}

/** A command failed in a way the person can act on: the message is printed, exit code 1. */
export class CommandError extends Error {
  readonly kind = 'command-failed';
}

/** Settles like `promise`, or rejects with {@link InterruptedError} when `signal` aborts first. */
export function untilInterrupted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new InterruptedError());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new InterruptedError());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** The line after every usage error. */
export const USAGE_HINT = 'Run `promptforge --help` for usage.';
