// The error of a transcript that cannot be read or written: its own module, so the run path can name it without loading the transcript reader and the run events' schemas.

/** A transcript that cannot be read; the message names the file and line. */
export class TranscriptError extends Error {
  /** How the CLI reports it (a setup error: the message names the file and line). */
  readonly kind = 'transcript';
  constructor(message: string) {
    super(message);
    this.name = 'TranscriptError';
  }
}
