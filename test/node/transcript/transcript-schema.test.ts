import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Ajv2020 from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { transcriptJsonSchema, transcriptJsonSchemaText } from '../../../main/core/transcript/transcript-schema.js';

const published = fileURLToPath(new URL('../../../docs/transcript.schema.json', import.meta.url));
const recording = fileURLToPath(new URL('../../../examples/recordings/summarize-page.jsonl', import.meta.url));

describe('the published transcript schema', () => {
  it('docs/transcript.schema.json matches the event definitions (regenerate with `npm run schemas`)', () => {
    expect(readFileSync(published, 'utf8')).toBe(transcriptJsonSchemaText());
  });

  it('validates every line of a real transcript and rejects a broken one', () => {
    const ajv = new Ajv2020.default({ strict: false });
    const validate = ajv.compile(transcriptJsonSchema());
    const lines = readFileSync(recording, 'utf8').trimEnd().split('\n');
    for (const line of lines) expect(validate(JSON.parse(line)), line.slice(0, 80)).toBe(true);
    expect(validate({ type: 'log', seq: 1, t: 'now', runId: 'r' })).toBe(false);
    expect(
      validate({
        type: 'tool-output',
        seq: 1,
        t: 'now',
        runId: 'r',
        callId: 'c',
        alias: 'a',
        trust: 'maybe',
        output: '',
        structured: false,
        durationMs: 1,
      }),
    ).toBe(false);
  });
});
