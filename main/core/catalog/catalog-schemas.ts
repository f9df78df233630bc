import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { Ajv as AjvDraft07 } from 'ajv';
import addFormatsPlugin from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import type { JsonSchema } from '../../../common/json.js';
import { escapePointerSegment } from '../../../common/json-pointer.js';
import { linearRegExp } from '../../../common/linear-regexp.js';
import modelsSchema from '../../../schemas/models.schema.json' with { type: 'json' };
import promptforgeSchema from '../../../schemas/promptforge.schema.json' with { type: 'json' };
import toolsSchema from '../../../schemas/tools.schema.json' with { type: 'json' };
import type { CatalogFileName } from './catalog-files.js';

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

function withLinearFormats<A extends AjvDraft07 | Ajv2020>(ajv: A): A {
  addLinearFormats(ajv);
  return ajv;
}

/**
 * The catalog files' JSON Schemas as published in `schemas/`: generated from
 * catalog-file-schemas.ts by `npm run schemas`, and kept equal to the generator by a test. Read
 * from the files (bundled JSON) rather than generated at start-up, which would cost the CLI time.
 */
export const CATALOG_SCHEMAS: Readonly<Record<CatalogFileName, JsonSchema>> = {
  'promptforge.yaml': promptforgeSchema as unknown as JsonSchema,
  'tools.yaml': toolsSchema as unknown as JsonSchema,
  'models.yaml': modelsSchema as unknown as JsonSchema,
};

/** Ajv for the catalog files themselves: our own schemas, compiled strictly. */
let catalogAjv: Ajv2020 | undefined;

function getCatalogAjv(): Ajv2020 {
  if (!catalogAjv) {
    catalogAjv = new Ajv2020({
      allErrors: true,
      strict: true,
      strictTypes: false,
      strictRequired: false,
      // Errors carry the schema that failed (parentSchema): fixes quote its title.
      verbose: true,
      code: { regExp: linearRegExp },
    });
    addLinearFormats(catalogAjv);
    for (const schema of Object.values(CATALOG_SCHEMAS)) catalogAjv.addSchema(schema);
  }
  return catalogAjv;
}

/**
 * The validator for one part of a published schema, e.g. `tools.yaml#/$defs/tool`. `T` is the type
 * inferred from the same definition (catalog-file-schemas.ts), so a passing value has that type.
 */
export function catalogValidator<T>(file: CatalogFileName, fragment = ''): ValidateFunction<T> {
  const id = CATALOG_SCHEMAS[file]['$id'] as string;
  const validate = getCatalogAjv().getSchema<T>(fragment ? `${id}#${fragment}` : id);
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
  // Made on first use: a catalog with no schema to compile never pays for them.
  private ajv2020: Ajv2020 | undefined;
  private ajv07: AjvDraft07 | undefined;
  private readonly cache = new Map<string, ValidateFunction>();

  /** Compiles `schema`; throws an Error whose message says what is wrong with the schema. */
  compile(schema: JsonSchema): ValidateFunction {
    const key = JSON.stringify(schema);
    const cached = this.cache.get(key);
    if (cached) return cached;
    const ajv = DRAFT_07_URIS.has(String(schema['$schema'] ?? ''))
      ? (this.ajv07 ??= withLinearFormats(new AjvDraft07({ ...USER_SCHEMA_OPTIONS })))
      : (this.ajv2020 ??= withLinearFormats(new Ajv2020({ ...USER_SCHEMA_OPTIONS })));
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

/**
 * Each ajv error as a problem a person can act on: the JSON pointer of the offending value (for
 * `required` and `additionalProperties`, the field's own pointer), what is wrong, and the fix.
 * The studio shows these (`args:check`); they come from the same validation as {@link describeErrors}.
 */
export function describeErrorList(
  errors: readonly ErrorObject[],
  subject = 'value',
): { pointer: string; message: string; fix: string }[] {
  const seen = new Set<string>();
  const problems: { pointer: string; message: string; fix: string }[] = [];
  for (const error of errors) {
    if (error.keyword === 'if') continue;
    const params = error.params as Record<string, unknown>;
    const pointer =
      error.keyword === 'required'
        ? joinPointer(error.instancePath, String(params['missingProperty']))
        : error.keyword === 'additionalProperties'
          ? joinPointer(error.instancePath, String(params['additionalProperty']))
          : error.instancePath;
    const message = describeError(error, subject);
    if (seen.has(`${pointer}\n${message}`)) continue;
    seen.add(`${pointer}\n${message}`);
    problems.push({ pointer, message, fix: fixFor(error) });
  }
  return problems;
}

/** What to change for one ajv error. */
function fixFor(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `add "${String(params['missingProperty'])}"`;
    case 'additionalProperties':
      return `remove "${String(params['additionalProperty'])}": the schema allows no other fields`;
    case 'type':
      return `give ${article(String(params['type']))}`;
    case 'enum':
      return 'pick one of the allowed values';
    case 'const':
      return `use ${JSON.stringify(params['allowedValue'])}`;
    case 'format':
      return `write a valid ${String(params['format'])}`;
    case 'pattern':
      return 'change the text so that the pattern matches it';
    case 'anyOf':
      return 'make it match at least one of the alternatives the schema lists';
    case 'oneOf':
      return 'make it match exactly one of the alternatives the schema lists';
    default:
      return `change it to satisfy the schema's "${error.keyword}" rule`;
  }
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
  return `${base}/${escapePointerSegment(key)}`;
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
