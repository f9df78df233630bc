import { readFileSync } from 'node:fs';
import { RunEventSchema, type RunEvent } from '../../../common/run-events.js';

/** A transcript that cannot be read; the message names the file and line. */
export class TranscriptError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TranscriptError';
  }
}

/** An event with the 1-based line it was read from. */
export type LocatedEvent = RunEvent & { line: number };

/**
 * Reads a JSONL transcript strictly: every line must be a valid run event, the first a
 * `run-start`. A truncated or corrupt file is a {@link TranscriptError} naming the line.
 */
export function readTranscript(path: string): LocatedEvent[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new TranscriptError(
      `${path}: cannot read the transcript (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    );
  }
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  else if (lines.length > 0)
    throw new TranscriptError(
      `${path}:${lines.length}: the last line is incomplete (no newline); the transcript was cut off while it was being written`,
    );
  const events: LocatedEvent[] = [];
  lines.forEach((line, index) => {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new TranscriptError(`${path}:${index + 1}: not valid JSON (${(error as Error).message})`);
    }
    const parsed = RunEventSchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const where = issue.path.length > 0 ? ` at "${issue.path.join('.')}"` : '';
      throw new TranscriptError(`${path}:${index + 1}: not a PromptForge run event${where}: ${issue.message}`);
    }
    events.push({ ...parsed.data, line: index + 1 });
  });
  if (events.length === 0) throw new TranscriptError(`${path}: the transcript is empty`);
  if (events[0]!.type !== 'run-start')
    throw new TranscriptError(`${path}:1: a transcript must begin with a run-start event, not ${events[0]!.type}`);
  return events;
}
