import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { CATALOG_SCHEMAS } from '../../../main/core/catalog/index.js';

const schemaFile = (name: string) =>
  JSON.parse(readFileSync(fileURLToPath(new URL(`../../../schemas/${name}`, import.meta.url)), 'utf8')) as Record<
    string,
    unknown
  >;

describe('published JSON Schemas', () => {
  it.each(['tools.schema.json', 'models.schema.json', 'promptforge.schema.json'])(
    '%s is a valid draft 2020-12 schema with descriptions',
    (name) => {
      const schema = schemaFile(name);
      expect(schema['$schema']).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(typeof schema['description']).toBe('string');
      const ajv = new Ajv2020({ strict: false });
      expect(ajv.validateSchema(schema), JSON.stringify(ajv.errors)).toBe(true);
    },
  );

  it('the loader validates with those very files', () => {
    expect(CATALOG_SCHEMAS['tools.yaml']).toEqual(schemaFile('tools.schema.json'));
    expect(CATALOG_SCHEMAS['models.yaml']).toEqual(schemaFile('models.schema.json'));
    expect(CATALOG_SCHEMAS['promptforge.yaml']).toEqual(schemaFile('promptforge.schema.json'));
  });

  it('every tool field carries a description', () => {
    const tool = (
      schemaFile('tools.schema.json')['$defs'] as Record<
        string,
        { properties: Record<string, { description?: string }> }
      >
    )['tool'];
    for (const [field, definition] of Object.entries(tool?.properties ?? {}))
      expect(definition.description, field).toBeTruthy();
  });
});
