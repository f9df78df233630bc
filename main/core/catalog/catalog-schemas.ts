import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { Ajv as AjvDraft07 } from 'ajv';
import addFormatsPlugin from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import type { JsonSchema } from '../../../common/json.js';
import modelsSchema from '../../../schemas/models.schema.json' with { type: 'json' };
import promptforgeSchema from '../../../schemas/promptforge.schema.json' with { type: 'json' };
import toolsSchema from '../../../schemas/tools.schema.json' with { type: 'json' };
import { linearRegExp } from '../../../common/linear-regexp.js';

// ajv-formats is CommonJS; under NodeNext its default import is the module object in some
// toolchains and the function in others.
const addFormats = ((addFormatsPlugin as unknown as { default?: unknown }).default ?? addFormatsPlugin) as (
  ajv: AjvDraft07 | Ajv2020,
) => void;

/**
 * ajv-formats' `url` regex backtracks quadratically (40,000 characters take seconds); such long
 * values are refused before it runs. Every other format stays linear on hostile input.
 */
export const MAX_URL_FORMAT_LENGTH = 4096;

/** Formats and the regex engine: every schema regex runs in linear time, whoever wrote it. */
function addLinearFormats(ajv: AjvDraft07 | Ajv2020): void {
  addFormats(ajv);
  const url = fullFormats.url as RegExp;
  ajv.addFormat('url', {
    type: 'string',
    validate: (text: string) => text.length <= MAX_URL_FORMAT_LENGTH && url.test(text),
  });
}

/** The published JSON Schemas (the files in `schemas/`), by workspace file name. */
export const CATALOG_SCHEMAS = {
  'tools.yaml': toolsSchema as unknown as JsonSchema,
  'models.yaml': modelsSchema as unknown as JsonSchema,
  'promptforge.yaml': promptforgeSchema as unknown as JsonSchema,
} as const;

/** Ajv for the catalog files themselves: our own schemas, compiled strictly. */
let catalogAjv: Ajv2020 | undefined;

function getCatalogAjv(): Ajv2020 {
  if (!catalogAjv) {
    catalogAjv = new Ajv2020({
      allErrors: true,
      strict: true,
      strictTypes: false,
      strictRequired: false,
      code: { regExp: linearRegExp },
    });
    addLinearFormats(catalogAjv);
    for (const schema of Object.values(CATALOG_SCHEMAS)) catalogAjv.addSchema(schema);
  }
  return catalogAjv;
}

/** The validator for one part of a published schema, e.g. `tools.yaml#/$defs/tool`. */
export function catalogValidator(file: keyof typeof CATALOG_SCHEMAS, fragment = ''): ValidateFunction {
  const id = CATALOG_SCHEMAS[file]['$id'] as string;
  const validate = getCatalogAjv().getSchema(fragment ? `${id}#${fragment}` : id);
  if (!validate) throw new Error(`schema ${id}#${fragment} is missing`);
  return validate;
}

const USER_SCHEMA_OPTIONS = {
  allErrors: true,
  strict: false,
  validateFormats: true,
  code: { regExp: linearRegExp },
} as const;

const DRAFT_07_URIS = new Set(['http://json-schema.org/draft-07/schema#', 'http://json-schema.org/draft-07/schema']);

/**
 * Compiles the JSON Schemas people write for tool parameters and outputs. Draft 2020-12 unless the
 * schema says `$schema: draft-07`. Not strict: people's schemas may carry extra annotation keys.
 * Compiled validators are cached by the schema's JSON text, since many tools share a schema.
 */
export class UserSchemaCompiler {
  private readonly ajv2020 = new Ajv2020({ ...USER_SCHEMA_OPTIONS });
  private readonly ajv07 = new AjvDraft07({ ...USER_SCHEMA_OPTIONS });
  private readonly cache = new Map<string, ValidateFunction>();

  constructor() {
    addLinearFormats(this.ajv2020);
    addLinearFormats(this.ajv07);
  }

  /** Compiles `schema`; throws an Error whose message says what is wrong with the schema. */
  compile(schema: JsonSchema): ValidateFunction {
    const key = JSON.stringify(schema);
    const cached = this.cache.get(key);
    if (cached) return cached;
    const ajv = DRAFT_07_URIS.has(String(schema['$schema'] ?? '')) ? this.ajv07 : this.ajv2020;
    // $id would make ajv refuse a second schema with the same id; the copy keeps ids local.
    const { $id: _ignoredId, ...withoutId } = schema;
    if (!ajv.validateSchema(withoutId)) {
      throw new Error(describeErrors(ajv.errors ?? [], 'the schema'));
    }
    const validate = ajv.compile(withoutId);
    this.cache.set(key, validate);
    return validate;
  }
}

/** A human sentence for ajv errors, naming each bad field by JSON pointer. */
export function describeErrors(errors: readonly ErrorObject[], subject = 'value'): string {
  const relevant = errors.filter((error) => error.keyword !== 'if' && error.keyword !== 'anyOf');
  const list = (relevant.length > 0 ? relevant : errors).slice(0, 3).map((error) => describeError(error, subject));
  return [...new Set(list)].join('; ');
}

function describeError(error: ErrorObject, subject: string): string {
  const where = error.instancePath === '' ? subject : `field "${fieldName(error.instancePath)}"`;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `missing required field "${fieldName(joinPointer(error.instancePath, String(params['missingProperty'])))}"`;
    case 'additionalProperties':
      return `unknown field "${fieldName(joinPointer(error.instancePath, String(params['additionalProperty'])))}"`;
    case 'type':
      return `${where} must be ${article(String(params['type']))}`;
    case 'enum':
      return `${where} must be one of ${(params['allowedValues'] as unknown[]).map((value) => JSON.stringify(value)).join(', ')}`;
    case 'const':
      return `${where} must be ${JSON.stringify(params['allowedValue'])}`;
    default:
      return `${where} ${error.message ?? 'is invalid'}`;
  }
}

/** `/a/b` -> `a/b`: the field's JSON pointer without the leading slash. */
function fieldName(pointer: string): string {
  return pointer.startsWith('/') ? pointer.slice(1) : pointer;
}

function joinPointer(base: string, key: string): string {
  return `${base}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
}

function article(type: string): string {
  const names: Record<string, string> = {
    object: 'an object (a mapping)',
    array: 'an array (a list)',
    string: 'a string',
    integer: 'an integer',
    number: 'a number',
    boolean: 'true or false',
    null: 'null',
  };
  return type
    .split(',')
    .map((single) => names[single] ?? single)
    .join(' or ');
}
