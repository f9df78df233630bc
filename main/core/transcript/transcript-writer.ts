import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { RunEvent } from '../../../common/run-events.js';

/**
 * Appends run events to a JSONL transcript, one line per event, each written with its own
 * `write(2)` as it happens: a crash loses at most the event being written, and whatever was written
 * stays readable. `redact` lists secrets that must never reach the file (belt and braces: events
 * are built without them).
 */
export class TranscriptWriter {
  private fd: number | undefined;

  constructor(
    readonly path: string,
    private readonly redact: readonly string[] = [],
  ) {
    mkdirSync(dirname(path), { recursive: true });
    this.fd = openSync(path, 'a');
  }

  write(event: RunEvent): void {
    if (this.fd === undefined) return;
    writeSync(this.fd, redactSecrets(JSON.stringify(event), this.redact) + '\n');
  }

  close(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }
}

/** Replaces every occurrence of each secret (of 4+ characters) with `[redacted]`. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join('[redacted]');
  return out;
}
