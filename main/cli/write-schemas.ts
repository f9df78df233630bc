import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { transcriptJsonSchemaText } from '../core/transcript/transcript-schema.js';

// `npm run schemas`: regenerates docs/transcript.schema.json from the run-event definitions.
const target = fileURLToPath(new URL('../../docs/transcript.schema.json', import.meta.url));
writeFileSync(target, transcriptJsonSchemaText());
console.log(`wrote ${target}`);
