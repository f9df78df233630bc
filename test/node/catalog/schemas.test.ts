import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  ALIAS_PATTERN,
  catalogJsonSchemaText,
  catalogSchemaPath,
} from '../../../main/core/catalog/catalog-file-schemas.js';
import type { CatalogFileName } from '../../../main/core/catalog/catalog-files.js';
import { type CatalogTexts, checkCatalogs } from '../../../main/core/catalog/catalog-loader.js';
import { MODEL_PROVIDERS } from '../../../main/core/catalog/model-catalog.js';
import { BUILTIN_TOOL_NAMES } from '../../../main/core/tools/builtin-tools.js';
import { ToolCatalogImpl } from '../../../main/core/catalog/tool-catalog.js';

type JsonRecord = Record<string, unknown>;
const addFormats = ((addFormatsPlugin as unknown as { default?: unknown }).default ?? addFormatsPlugin) as (
  ajv: Ajv2020,
) => void;

const schemaFile = (name: string) =>
  JSON.parse(readFileSync(fileURLToPath(new URL(`../../../schemas/${name}`, import.meta.url)), 'utf8')) as Record<
    string,
    unknown
  >;

describe('published JSON Schemas', () => {
  it.each(['tools.yaml', 'models.yaml', 'promptforge.yaml'] as const)(
    'the published schema of %s is what the definitions generate (regenerate with `npm run schemas`)',
    (file) => {
      const published = readFileSync(
        fileURLToPath(new URL(`../../../${catalogSchemaPath(file)}`, import.meta.url)),
        'utf8',
      );
      expect(published).toBe(catalogJsonSchemaText(file));
    },
  );

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

  it('the enums and the alias pattern agree with the code that acts on them', () => {
    const tools = schemaFile('tools.schema.json') as { $defs: Record<string, JsonRecord> };
    const models = schemaFile('models.schema.json') as { $defs: Record<string, JsonRecord> };
    const toolFields = tools.$defs['tool']!['properties'] as Record<string, JsonRecord>;
    const modelFields = models.$defs['model']!['properties'] as Record<string, JsonRecord>;
    expect(toolFields['builtin']!['enum']).toEqual([...BUILTIN_TOOL_NAMES]);
    expect(modelFields['provider']!['enum']).toEqual([...MODEL_PROVIDERS]);
    expect(tools.$defs['alias']!['pattern']).toBe(ALIAS_PATTERN.source);
    expect(models.$defs['alias']!['pattern']).toBe(ALIAS_PATTERN.source);
  });

  // Hand-written verdicts, checked against a fresh validator built from the published file and
  // against the loader: the two must agree with each other and with the table.
  const VERDICTS: { file: CatalogFileName; text: string; valid: boolean }[] = [
    { file: 'tools.yaml', text: 'x:\n  kind: builtin\n  builtin: echo\n  description: Echo\n', valid: true },
    {
      file: 'tools.yaml',
      text: '- alias: x\n  kind: command\n  command: [node, x.js]\n  description: X\n',
      valid: true,
    },
    { file: 'tools.yaml', text: 'x:\n  kind: teleport\n', valid: false },
    { file: 'tools.yaml', text: 'x:\n  kind: command\n  command: []\n', valid: false },
    { file: 'tools.yaml', text: 'x:\n  kind: builtin\n  approval: sometimes\n', valid: false },
    { file: 'tools.yaml', text: 'x:\n  kind: command\n  command: [a]\n  env: [1BAD]\n', valid: false },
    {
      file: 'tools.yaml',
      text: 'x:\n  kind: http\n  url: https://e.com\n  headers: { A: { secrt: k } }\n',
      valid: false,
    },
    { file: 'models.yaml', text: 'm:\n  provider: openai\n  model: gpt-4o\n', valid: true },
    { file: 'models.yaml', text: 'm:\n  provider: skynet\n  model: x\n', valid: false },
    { file: 'models.yaml', text: 'm:\n  provider: openai\n  model: x\n  defaults: { temperature: 9 }\n', valid: false },
    {
      file: 'models.yaml',
      text: 'm:\n  provider: openai\n  model: x\n  price: { inputPerMillion: 1, outputPerMillion: 2, currency: usd }\n',
      valid: false,
    },
    { file: 'promptforge.yaml', text: 'builtins: false\n', valid: true },
    { file: 'promptforge.yaml', text: 'builtins: maybe\n', valid: false },
    { file: 'promptforge.yaml', text: 'agents:\n  agents/a.txt: {}\n', valid: false },
  ];
  const EXAMPLES = (['tools.yaml', 'models.yaml', 'promptforge.yaml'] as const).map((file) => ({
    file,
    text: readFileSync(fileURLToPath(new URL(`../../../examples/${file}`, import.meta.url)), 'utf8'),
    valid: true,
  }));

  it.each([...VERDICTS, ...EXAMPLES])('$file: $text -> valid $valid', ({ file, text, valid }) => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    const validate = ajv.compile(schemaFile(`${file.replace('.yaml', '')}.schema.json`));
    expect(validate(parse(text)), JSON.stringify(validate.errors)).toBe(valid);
    // The example workspace is checked whole (its settings name its models); the table on its own.
    const texts: CatalogTexts = EXAMPLES.some((example) => example.text === text)
      ? Object.fromEntries(EXAMPLES.map((example) => [example.file, example.text]))
      : { [file]: text };
    const errors = checkCatalogs(texts).problems.filter((problem) => problem.severity === 'error');
    expect(errors.length === 0, JSON.stringify(errors)).toBe(valid);
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

describe('a tool schema that loops without consuming the value', () => {
  it('refuses the arguments and the output with a reason, never throws', () => {
    const looping = { $ref: '#' } as never;
    const catalog = new ToolCatalogImpl([
      {
        alias: 'loop',
        description: 'a schema that refers to itself',
        parameters: looping,
        outputSchema: looping,
        trust: 'trusted',
        approval: 'auto',
        taintCheck: true,
        settings: { kind: 'builtin', builtin: 'echo' },
        source: 'test',
      },
    ]);
    expect(catalog.validateArguments('loop', { a: 1 })).toBe(
      "invalid arguments: the tool's argument schema cannot be checked (it refers to itself without end); the value is refused",
    );
    expect(catalog.argumentProblems('loop', { a: 1 })).toEqual([
      {
        pointer: '',
        message: "the tool's argument schema cannot be checked (it refers to itself without end); the value is refused",
        fix: 'Fix the tool’s schema.',
      },
    ]);
    expect(catalog.validateOutput('loop', { a: 1 })).toMatch(
      /^output does not match the output schema: the tool's output schema cannot be checked/,
    );
  });
});
