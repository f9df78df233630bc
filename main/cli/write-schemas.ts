import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { catalogJsonSchemaText, catalogSchemaPath } from '../core/catalog/catalog-file-schemas.js';
import { CATALOG_FILES } from '../core/catalog/catalog-files.js';
import { TEST_FILE_SCHEMA_PATH, testFileJsonSchemaText } from '../core/testing/test-file-schema.js';
import { transcriptJsonSchemaText } from '../core/transcript/transcript-schema.js';
import { RULES_SCHEMA_PATH, rulesJsonSchemaText } from '../core/rules/rules-schema.js';

// `npm run schemas`: regenerates the published JSON Schemas from their definitions:
// docs/transcript.schema.json from the run events, schemas/*.schema.json from the catalog files,
// schemas/tests.schema.json from the test file format, schemas/approval-rules.schema.json from the
// approval rules file.
const files: [string, string][] = [
  ['docs/transcript.schema.json', transcriptJsonSchemaText()],
  ...CATALOG_FILES.map((file): [string, string] => [catalogSchemaPath(file), catalogJsonSchemaText(file)]),
  [TEST_FILE_SCHEMA_PATH, testFileJsonSchemaText()],
  [RULES_SCHEMA_PATH, rulesJsonSchemaText()],
];
for (const [relative, text] of files) {
  const target = fileURLToPath(new URL(`../../${relative}`, import.meta.url));
  writeFileSync(target, text);
  console.log(`wrote ${target}`);
}
