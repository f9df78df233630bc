import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { McpAwareCatalog } from '../../../main/core/mcp/mcp-catalog.js';
import type { McpServerManager } from '../../../main/core/mcp/mcp-manager.js';
import { MAX_MCP_SCHEMA_CHARS, MAX_MCP_SCHEMA_TEXT_CHARS } from '../../../main/core/mcp/mcp-schema.js';
import type { ToolSpec } from '../../../main/core/tools/tool-spec.js';
import { attackEntry, attackManager, loose, MODEL_UNSAFE, stringsOf } from '../mcp/workspace-attack-helpers.js';

/**
 * The workspace is an input: an MCP server hides text for the model in its tools' schemas
 * (test/node/mcp/fixtures/workspace-attack-server.mjs, mode "schema"). Whatever it lists, every
 * text the model is handed is labelled as the server's, holds no control, invisible or direction
 * character, and is bounded; a name or value that decides what the tool accepts and cannot be
 * shown as it is drops the tool, with a problem naming it.
 */

const made: McpServerManager[] = [];
afterEach(async () => {
  await Promise.all(made.splice(0).map((manager) => manager.close()));
});

/** One listing of the server, shared by the tests that only read it. */
let shared: Awaited<ReturnType<typeof listed>>;
const kept: McpServerManager[] = [];
beforeAll(async () => {
  shared = await listed('', kept);
});
afterAll(async () => {
  await Promise.all(kept.map((manager) => manager.close()));
});

const LABEL = '[from MCP server "ws", untrusted]';
const ROOT_LABEL = `[from MCP server "ws", untrusted: all text in this schema is the server's]`;

async function listed(extra = '', into = made) {
  const mcp = attackManager(attackEntry('ws', 'schema', extra), into);
  const { tools, problems } = await mcp.listTools();
  const byName = new Map(tools.map((tool) => [tool.alias.replace(/^ws\./, ''), tool]));
  return { mcp, tools, byName, problems: problems.map((problem) => problem.message) };
}

/** Every description and title in a schema (not property names): what must carry the label. */
function texts(schema: unknown, out: string[] = [], asSchema = true): string[] {
  if (schema === null || typeof schema !== 'object') return out;
  if (Array.isArray(schema)) {
    for (const item of schema) texts(item, out, asSchema);
    return out;
  }
  for (const [key, value] of Object.entries(schema)) {
    if (asSchema && (key === 'description' || key === 'title' || key === '$comment') && typeof value === 'string')
      out.push(value);
    else if (['properties', '$defs', 'patternProperties'].includes(key) && value && typeof value === 'object')
      for (const sub of Object.values(value)) texts(sub, out, true);
    else if (key !== 'default' && key !== 'examples' && key !== 'enum' && key !== 'const') texts(value, out, true);
  }
  return out;
}

describe('text in a tool schema', () => {
  it('descriptions, titles, $comment, examples and defaults, nested, in $defs, items and anyOf: cleaned and labelled', async () => {
    const { byName } = shared;
    const tool = byName.get('text-in-schema')!;
    expect(tool).toBeDefined();
    // Nothing the model sees, anywhere in the tool, holds a control, invisible or direction character.
    for (const [pointer, text] of stringsOf({ description: tool.description, parameters: tool.parameters }))
      expect({ pointer, bad: MODEL_UNSAFE.test(text) }).toEqual({ pointer, bad: false });
    expect(tool.description).toBe(`${LABEL} description evil[2J]0;pwned`);
    const schema = loose(tool.parameters);
    expect(schema['description']).toBe(`${ROOT_LABEL} root evil[2J]0;pwned`);
    expect(schema['title']).toBe(`${LABEL} root title evil[2J]0;pwned`);
    const all = texts(schema);
    // The root, its title and $comment, and every nested description and title (12 levels of $defs included).
    expect(all.length).toBeGreaterThanOrEqual(24);
    for (const text of all.filter((one) => one !== String(schema['description'])))
      expect(text.startsWith(`${LABEL} `)).toBe(true);
    const mode = schema['properties']['mode'];
    expect(mode.default).toBe('fastevil[2J]0;pwned');
    expect(mode.examples).toEqual(['slowevil[2J]0;pwned', { key: 'value[2J]0;pwned' }]);
    // Values that decide acceptance are as the server wrote them.
    expect(mode.enum).toEqual(['fast', 'slow']);
    expect(schema['properties']['list'].items.pattern).toBe('^[a-z]+$');
    expect(schema['$defs'].word.const).toBe('word');
    // Property names that look like keywords stay property names. The SDK's parse of the listing
    // already drops a "__proto__" key; none reaches a prototype.
    expect(Object.keys(schema['properties'])).toEqual(['mode', 'list', 'either', 'nested', 'examples']);
    expect(Object.getPrototypeOf(schema['properties'])).toBe(Object.prototype);
    let deepest = schema['properties']['nested'];
    for (let level = 11; level >= 0; level -= 1) deepest = deepest.$defs[`d${level}`];
    expect(deepest).toEqual({
      type: 'string',
      description: `${LABEL} leaf evil[2J]0;pwned`,
      title: `${LABEL} leaf title evil[2J]0;pwned`,
    });
  });

  it("the validator checks what the model is shown: enum, const, pattern and anyOf as the server's", async () => {
    const { mcp } = shared;
    const catalog = new McpAwareCatalog([], mcp);
    try {
      const check = (args: Record<string, unknown>) => catalog.validateArguments('ws.text-in-schema', args as never);
      expect(check({ mode: 'fast', list: ['abc'], either: 'word' })).toBeUndefined();
      expect(check({ mode: 'fast', either: 3 })).toBeUndefined();
      expect(check({ mode: 'fast\u202e' })).toMatch(/^invalid arguments/);
      // 2020-12: \`items\` checks the elements after \`prefixItems\`.
      expect(check({ mode: 'fast', list: ['ABC', 'abc'] })).toBeUndefined();
      expect(check({ mode: 'fast', list: ['abc', 'ABC'] })).toMatch(/^invalid arguments/);
      expect(check({ mode: 'fast', either: 'other' })).toMatch(/^invalid arguments/);
      expect(check({})).toMatch(/^invalid arguments/);
    } finally {
      catalog.dispose();
    }
  });

  it('a description made of a title only, and an output schema, are cleaned and labelled too', async () => {
    const { byName } = shared;
    expect(byName.get('title-only')?.description).toBe(`${LABEL} only a title evil[2J]0;pwned`);
    const output = loose(byName.get('output-text')!.outputSchema);
    expect(output['description']).toBe(`${ROOT_LABEL} out evil[2J]0;pwned`);
    expect(output['properties'].v.title).toBe(`${LABEL} v evil[2J]0;pwned`);
  });

  it('a trusted server is still labelled as the server, without "untrusted"', async () => {
    const { byName } = await listed('  trust: trusted\n');
    const tool = byName.get('text-in-schema')!;
    expect(tool.description.startsWith('[from MCP server "ws"] ')).toBe(true);
    expect(loose(tool.parameters).properties.mode.description).toBe('[from MCP server "ws"] the mode evil[2J]0;pwned');
  });
});

describe('names and values that decide acceptance', () => {
  const dropped: [string, RegExp][] = [
    ['bidi-enum', /a value at \/properties\/a\/enum\/1/],
    ['zw-const', /a value at \/properties\/a\/const/],
    ['bidi-pattern', /a value at \/properties\/a\/pattern/],
    ['bidi-property', /a property name at \/properties\/amount\\u\{202e\}/],
    ['zw-defs-name', /a name at \/\$defs\/x\\u\{200b\}/],
    ['nul-required', /a value at \/required\/0/],
    ['ansi-unknown-keyword', /a value at \/x-note/],
    ['tag-in-nested-enum', /a value at \/properties\/a\/items\/anyOf\/0\/enum\/0/],
    ['output-bidi-enum', /its outputSchema has a control, invisible or direction character in a value/],
  ];

  it.each(dropped)('"%s": the tool is dropped with a problem naming it and where', async (name, where) => {
    const { byName, problems } = shared;
    expect(byName.has(name)).toBe(false);
    const problem = problems.find((message) => message.includes(`tool "${name}" is dropped`));
    expect(problem).toMatch(/has a control, invisible or direction character in /);
    expect(problem).toMatch(where);
    // The problem itself can be shown anywhere: the server's characters are escaped, and it is bounded.
    expect(problem).not.toMatch(MODEL_UNSAFE);
    expect(problem!.length).toBeLessThanOrEqual(1001);
  });

  it('the other tools of the server stay', async () => {
    const { byName } = shared;
    expect([...byName.keys()].sort()).toEqual([
      'ok',
      'output-text',
      'text-in-schema',
      'three-mb-description',
      'title-only',
    ]);
  });
});

describe('size and depth', () => {
  it('a schema nested deeper than 32 levels is dropped', async () => {
    const { byName, problems } = shared;
    expect(byName.has('too-deep')).toBe(false);
    expect(problems.join('\n')).toMatch(
      /tool "too-deep" is dropped: its inputSchema is refused: it nests deeper than 32 levels/,
    );
  });

  it(`a 3 MB enum value, and 2,000 long descriptions, are over ${MAX_MCP_SCHEMA_CHARS} characters: dropped`, async () => {
    const { byName, problems } = shared;
    expect(byName.has('three-mb-enum')).toBe(false);
    expect(byName.has('many-descriptions')).toBe(false);
    const text = problems.join('\n');
    expect(text).toMatch(
      new RegExp(
        `tool "three-mb-enum" is dropped: its inputSchema is \\d+ characters of JSON, more than the ${MAX_MCP_SCHEMA_CHARS}`,
      ),
    );
    expect(text).toMatch(/tool "many-descriptions" is dropped: its inputSchema is \d+ characters of JSON/);
  });

  it('a 3 MB description is cut: every schema the model is handed is bounded', async () => {
    const { tools, byName } = shared;
    const description = (byName.get('three-mb-description')!.parameters as Record<string, string>)['description']!;
    expect(description.length).toBe(ROOT_LABEL.length + 1 + MAX_MCP_SCHEMA_TEXT_CHARS);
    for (const tool of tools as ToolSpec[])
      expect(JSON.stringify(tool.parameters).length).toBeLessThanOrEqual(MAX_MCP_SCHEMA_CHARS);
  });

  it(
    'a 10 MB schema in tools/list: the server is stopped with a problem naming it, and nothing is listed',
    { timeout: 180_000 },
    async () => {
      // Building and sending 10 MB takes long on busy cores: the start may take up to two minutes,
      // so only the size bound can end it.
      const mcp = attackManager(attackEntry('ws', 'huge-schema', '  startTimeoutMs: 120000\n'), made);
      const { tools, problems } = await mcp.listTools();
      expect(tools).toEqual([]);
      expect(problems[0]?.message).toMatch(/^MCP server "ws" .* is not available: .*sent a message over 8388608 bytes/);
    },
  );
});
