import { z } from 'zod';
import { RunEventSchema } from '../../../common/run-events.js';

/**
 * The JSON Schema of one transcript line, generated from the run-event definitions. It is
 * published as docs/transcript.schema.json (kept in sync by a test) so other tools can validate
 * PromptForge transcripts.
 */
export function transcriptJsonSchema(): object {
  return {
    $id: 'https://promptforge.dev/schemas/transcript-event.schema.json',
    title: 'PromptForge transcript event',
    description:
      'One line of a PromptForge run transcript (JSONL). Lines appear in the order of their `seq`; the first is a run-start event, the last of a finished run is run-end.',
    ...z.toJSONSchema(RunEventSchema, { io: 'output' }),
  };
}

/** The published file's text. */
export function transcriptJsonSchemaText(): string {
  return `${JSON.stringify(transcriptJsonSchema(), null, 2)}\n`;
}
