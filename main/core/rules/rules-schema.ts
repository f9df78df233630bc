/** The published JSON Schema of the approval rules file (schemas/approval-rules.schema.json). */
import { z } from 'zod';
import { rulesFileSchema } from '../../../common/approval-rules.js';
import type { JsonSchema } from '../../../common/json.js';

/** Where the published schema lives. */
export const RULES_SCHEMA_PATH = 'schemas/approval-rules.schema.json';

/** The JSON Schema (draft 2020-12) of the rules file. */
function rulesJsonSchema(): JsonSchema {
  const body = z.toJSONSchema(rulesFileSchema(), { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' });
  const { $schema, ...rest } = body;
  return JSON.parse(
    JSON.stringify({
      $schema,
      $id: 'https://promptforge.studio/schemas/approval-rules.schema.json',
      title: 'PromptForge approval rules',
      ...rest,
    }),
  ) as JsonSchema;
}

export function rulesJsonSchemaText(): string {
  return `${JSON.stringify(rulesJsonSchema(), null, 2)}\n`;
}
