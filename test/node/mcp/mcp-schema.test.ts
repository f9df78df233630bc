import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../../../common/json.js';
import { UserSchemaCompiler } from '../../../main/core/catalog/catalog-schemas.js';
import { cleanServerSchema, MAX_MCP_SCHEMA_CHARS } from '../../../main/core/mcp/mcp-schema.js';
import { cleanServerText, serverLabel, shownText } from '../../../main/core/mcp/mcp-text.js';
import { redactSecrets } from '../../../main/core/secrets/redact.js';
import { loose } from './workspace-attack-helpers.js';

const SECRET = 'ghp_0123456789abcdefghijklmnop';
const cleaning = {
  label: '[L]',
  rootLabel: '[ROOT]',
  redact: (text: string) => redactSecrets(text, [SECRET]),
};

function clean(schema: unknown) {
  return cleanServerSchema(schema as JsonSchema, cleaning);
}

describe('cleanServerText and shownText', () => {
  it('remove (or escape) controls, bidi, zero-width, tags, separators and lone surrogates; keep tab, newline and emoji', () => {
    const nasty = 'a\u202eb\u2066c\u200bd\u200de\u0000f\u001bg\u{e0041}h\ufe0fi\u2028j\tk\nl\rm\ud800n\u00ado\u061cp👍🏽';
    expect(cleanServerText(nasty, 100)).toBe('abcdefghij\tk\nlmnop👍🏽');
    expect(shownText('x\u202ey\u{e0041}', 100)).toBe('x\\u{202e}y\\u{e0041}');
  });

  it('cut without splitting a surrogate pair', () => {
    expect(cleanServerText('ab👍', 3)).toBe('ab');
    expect(cleanServerText('ab👍', 4)).toBe('ab👍');
  });

  it('the label names the workspace entry, and says untrusted only for an untrusted tool', () => {
    expect(serverLabel('fs', 'untrusted')).toBe('[from MCP server "fs", untrusted]');
    expect(serverLabel('fs', 'trusted')).toBe('[from MCP server "fs"]');
  });
});

describe('cleanServerSchema', () => {
  it('labels the root (adding a description when there is none) and each description, title and $comment', () => {
    const result = clean({
      type: 'object',
      $comment: 'c\u202e',
      properties: { a: { type: 'string', title: 't\u200b', description: '' } },
    });
    expect(result.schema).toEqual({
      description: '[ROOT]',
      type: 'object',
      $comment: '[L] c',
      properties: { a: { type: 'string', title: '[L] t', description: '[L]' } },
    });
  });

  it('property names that are keywords stay names; "__proto__" stays an own key', () => {
    const schema = JSON.parse(
      '{"type":"object","properties":{"description":{"type":"string","description":"d"},"__proto__":{"type":"number"}}}',
    ) as JsonSchema;
    const result = clean(schema);
    const properties = (result.schema as { properties: Record<string, unknown> }).properties;
    expect(Object.getPrototypeOf(properties)).toBe(Object.prototype);
    expect(Object.keys(properties)).toEqual(['description', '__proto__']);
    expect(properties['description']).toEqual({ type: 'string', description: '[L] d' });
    expect(Object.getOwnPropertyDescriptor(properties, '__proto__')?.value).toEqual({ type: 'number' });
  });

  it('draft-07 forms: an items list, dependencies with names and with a schema, boolean schemas', () => {
    const result = clean({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { list: { type: 'array', items: [{ description: 'one\u202e' }, true], additionalItems: false } },
      dependencies: { a: ['b'], c: { description: 'dep\u2066' } },
    });
    expect(result.problem).toBeUndefined();
    const schema = loose(result.schema);
    expect(schema['properties'].list.items).toEqual([{ description: '[L] one' }, true]);
    expect(schema['dependencies']).toEqual({ a: ['b'], c: { description: '[L] dep' } });
    const bad = clean({ type: 'object', dependencies: { a: ['b\u200b'] } });
    expect(bad.problem).toMatch(/in a value at \/dependencies\/a\/0/);
  });

  it('secrets: redacted in annotations (any encoding); a value holding one refuses the schema', () => {
    const base64 = Buffer.from(SECRET).toString('base64');
    const result = clean({
      type: 'object',
      description: `uses ${SECRET}`,
      properties: { a: { type: 'string', default: `Bearer ${base64}`, examples: [{ [SECRET]: 1 }] } },
    });
    expect(JSON.stringify(result.schema)).not.toContain(SECRET.slice(4, 12));
    expect(JSON.stringify(result.schema)).not.toContain(base64.slice(4, 16));
    expect(result.schema?.['description']).toBe('[ROOT] uses [redacted]');
    expect(clean({ type: 'object', properties: { a: { enum: [SECRET] } } }).problem).toBe(
      'holds a secret of the workspace in a value at /properties/a/enum/0; it cannot be shown to the model',
    );
    expect(clean({ type: 'object', properties: { [SECRET]: {} } }).problem).toMatch(
      /secret of the workspace in a property name/,
    );
  });

  it('what the model sees is what the validator checks, even through a $ref into a cleaned default', () => {
    const result = clean({
      type: 'object',
      properties: { a: { $ref: '#/properties/b/default' }, b: { default: { const: 'x\u200b' } } },
    });
    const schema = result.schema!;
    expect(loose(schema).properties.b.default).toEqual({ const: 'x' });
    const validate = new UserSchemaCompiler().compile(schema);
    expect(validate({ a: 'x' })).toBe(true);
    expect(validate({ a: 'x\u200b' })).toBe(false);
  });

  it('unknown keywords, $ref, $id, $anchor, format, required: kept as written, refused with such characters', () => {
    const fine = clean({ type: 'object', 'x-ui': { order: ['a'] }, format: 'date', required: ['a'], $anchor: 'top' });
    expect(fine.schema).toMatchObject({ 'x-ui': { order: ['a'] }, format: 'date', required: ['a'], $anchor: 'top' });
    for (const [schema, where] of [
      [{ type: 'object', 'x-ui': { order: ['a\u202e'] } }, '/x-ui/order/0'],
      [{ type: 'object', properties: { a: { $ref: '#/$defs/b\u200b' } } }, '/properties/a/$ref'],
      [{ type: 'object', $anchor: 'a\u0000' }, '/$anchor'],
      [{ type: 'object', properties: { a: { format: 'date\u2066' } } }, '/properties/a/format'],
      [{ type: 'object', 'x\u202e': 1 }, '/x\u202e'],
    ] as const)
      expect(clean(schema).problem).toContain(` at ${where};`);
  });

  it(`a cleaned schema over ${MAX_MCP_SCHEMA_CHARS} characters of JSON is refused`, () => {
    const properties = Object.fromEntries(
      Array.from({ length: 100 }, (_, i) => [`p${i}`, { type: 'string', description: 'd'.repeat(1000) }]),
    );
    expect(clean({ type: 'object', properties }).problem).toMatch(
      new RegExp(`^is \\d+ characters of JSON, more than the ${MAX_MCP_SCHEMA_CHARS} handed to a model$`),
    );
  });
});
