/** One structured log line: a short message plus fields that never hold a payload or a secret. */
export type StudioLogFields = Readonly<Record<string, string | number | boolean | null>>;

/**
 * Where the studio's main-side code reports what it refused or what went wrong. Injected so
 * tests can record the lines and the app can send them to the console (later: a log file).
 */
export interface StudioLogger {
  /** Something normal worth a line (window created, handler registered). */
  info(message: string, fields?: StudioLogFields): void;
  /** A refusal: unknown IPC method, bad payload, foreign sender, blocked navigation. */
  warn(message: string, fields?: StudioLogFields): void;
  /** A defect: a handler threw, a response did not match the contract. */
  error(message: string, fields?: StudioLogFields): void;
}

/** A logger that writes `[promptforge] message {fields}` lines to the console. */
export function createConsoleLogger(prefix = '[promptforge]'): StudioLogger {
  const format = (message: string, fields?: StudioLogFields): string =>
    fields === undefined ? `${prefix} ${message}` : `${prefix} ${message} ${JSON.stringify(fields)}`;
  return {
    info: (message, fields) => console.info(format(message, fields)),
    warn: (message, fields) => console.warn(format(message, fields)),
    error: (message, fields) => console.error(format(message, fields)),
  };
}
