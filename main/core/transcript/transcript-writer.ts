import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { RunEvent } from '../../../common/run-events.js';

/**
 * Appends run events to a JSONL transcript, one line per event, each written with its own
 * `write(2)` as it happens: a crash loses at most the event being written, and whatever was written
 * stays readable. Events arrive redacted: the run redacts every event once, before it is written
 * or shown (main/core/secrets/redact.ts).
 */
export class TranscriptWriter {
  private fd: number | undefined;
  private written = 0;

  /** `maxBytes` caps what this writer appends; a `run-end` event is written even past it. */
  constructor(
    readonly path: string,
    private readonly maxBytes = Infinity,
  ) {
    mkdirSync(dirname(path), { recursive: true });
    this.fd = openSync(path, 'a');
  }

  /** Appends the event; false (and nothing written) when it would take the file past `maxBytes`. */
  write(event: RunEvent): boolean {
    if (this.fd === undefined) return true;
    const line = JSON.stringify(event) + '\n';
    const bytes = Buffer.byteLength(line);
    if (event.type !== 'run-end' && this.written + bytes > this.maxBytes) return false;
    writeSync(this.fd, line);
    this.written += bytes;
    return true;
  }

  close(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }
}
