import { describe, expect, it } from 'vitest';
import { canonicalJson as runCanonicalJson } from '../../../main/core/run/canonical-json.js';
import {
  canonicalJson,
  toolDefinitionChange,
  toolDefinitionDigest,
  type DefinedTool,
} from '../../../main/core/tools/tool-definition.js';
import { notesTool } from '../approval/definition-fixtures.js';

const commandTool = (overrides: Partial<DefinedTool> = {}): DefinedTool => ({
  alias: 'lint',
  description: 'Lints a file',
  parameters: { type: 'object' },
  trust: 'trusted',
  approval: 'ask',
  taintCheck: true,
  settings: { kind: 'command', command: ['node', 'tools/lint.mjs'], timeoutMs: 1000 },
  source: 'tools.yaml',
  ...overrides,
});

describe('canonicalJson', () => {
  it('sorts keys at every depth; run/canonical-json.ts is the same function', () => {
    expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[{"y":2,"z":1}]},"b":1}',
    );
    expect(runCanonicalJson).toBe(canonicalJson);
  });
});

describe('toolDefinitionDigest', () => {
  const base = toolDefinitionDigest(notesTool());

  it('is a sha256 in hex, the same however the keys are ordered', () => {
    expect(base).toMatch(/^[0-9a-f]{64}$/);
    const reordered = notesTool({
      parameters: { required: ['day'], properties: { day: { type: 'string' } }, type: 'object' },
    });
    expect(toolDefinitionDigest(reordered)).toBe(base);
  });

  it.each<[string, Partial<DefinedTool>]>([
    ['the description', { description: 'Reads the meeting notes.' }],
    [
      'the parameters',
      {
        parameters: {
          type: 'object',
          properties: { day: { type: 'string' }, command: { type: 'string' } },
          required: ['day'],
        },
      },
    ],
    ['the output schema', { outputSchema: { type: 'object' } }],
    ['the annotations', { annotations: { readOnlyHint: false } }],
    ['the trust', { trust: 'trusted' }],
    ['the taint check', { taintCheck: false }],
    ['the server', { settings: { kind: 'mcp', server: 'other', tool: 'notes', timeoutMs: 60_000 } }],
    ["the server's tool name", { settings: { kind: 'mcp', server: 'docs', tool: 'shell', timeoutMs: 60_000 } }],
    ['the alias', { alias: 'docs.notes2' }],
  ])('changes with %s', (_what, overrides) => {
    expect(toolDefinitionDigest(notesTool(overrides))).not.toBe(base);
  });

  it('made once per entry, made again when a field of the same entry is set to another value', () => {
    // The digest is cached per entry object: an entry whose fields are set again (another
    // description, schema, trust, server or tool name) must not keep its old digest.
    const tool = notesTool();
    expect(toolDefinitionDigest(tool)).toBe(base);
    expect(toolDefinitionDigest(tool)).toBe(base);
    const changes: [string, (entry: DefinedTool) => void][] = [
      ['description', (entry) => (entry.description = 'Runs a shell command')],
      ['parameters', (entry) => (entry.parameters = { type: 'object', properties: { command: { type: 'string' } } })],
      ['outputSchema', (entry) => (entry.outputSchema = { type: 'object' })],
      ['annotations', (entry) => (entry.annotations = { destructiveHint: true })],
      ['trust', (entry) => (entry.trust = 'trusted')],
      ['taintCheck', (entry) => (entry.taintCheck = false)],
      ['sinks', (entry) => (entry.sinks = ['day'])],
      ['settings', (entry) => (entry.settings = { kind: 'mcp', server: 'other', tool: 'notes', timeoutMs: 1 })],
      ['settings.tool', (entry) => entry.settings.kind === 'mcp' && (entry.settings.tool = 'shell')],
      ['settings.server', (entry) => entry.settings.kind === 'mcp' && (entry.settings.server = 'evil')],
      ['alias', (entry) => (entry.alias = 'docs.shell')],
    ];
    for (const [field, change] of changes) {
      const entry = notesTool();
      const before = toolDefinitionDigest(entry);
      change(entry);
      const after = toolDefinitionDigest(entry);
      expect({ field, changed: after !== before }).toEqual({ field, changed: true });
      // The same as a fresh entry with the same content: the cache never answers for another definition.
      expect(after).toBe(toolDefinitionDigest({ ...entry, settings: { ...entry.settings } }));
    }
  });

  it('covers what a command or HTTP tool runs: argv, folder, variables, URL, headers', () => {
    const lint = toolDefinitionDigest(commandTool());
    for (const settings of [
      { kind: 'command' as const, command: ['sh', '-c', 'node tools/lint.mjs'] },
      { kind: 'command' as const, command: ['node', 'tools/lint.mjs'], cwd: 'sub' },
      { kind: 'command' as const, command: ['node', 'tools/lint.mjs'], env: ['HOME'] },
    ])
      expect(toolDefinitionDigest(commandTool({ settings }))).not.toBe(lint);
    const http = (url: string, headers?: Record<string, string | { secret: string }>) =>
      toolDefinitionDigest(commandTool({ settings: { kind: 'http', url, ...(headers && { headers }) } }));
    expect(http('https://a.example/x')).not.toBe(http('https://b.example/x'));
    expect(http('https://a.example/x', { A: 'one' })).not.toBe(http('https://a.example/x', { A: 'two' }));
    expect(http('https://a.example/x', { A: { secret: 'k' } })).not.toBe(http('https://a.example/x'));
  });

  it('leaves out what does not change the tool: timeouts, output limits, the policy, where it is written', () => {
    expect(
      toolDefinitionDigest(
        notesTool({
          approval: 'auto',
          source: 'elsewhere.yaml',
          settings: { kind: 'mcp', server: 'docs', tool: 'notes', timeoutMs: 5 },
        }),
      ),
    ).toBe(base);
    expect(
      toolDefinitionDigest(
        commandTool({
          settings: { kind: 'command', command: ['node', 'tools/lint.mjs'], timeoutMs: 9, maxOutputBytes: 5 },
        }),
      ),
    ).toBe(toolDefinitionDigest(commandTool()));
  });
});

describe('toolDefinitionChange', () => {
  it('says the old and the new description (the red team: a reader becomes a shell)', () => {
    const change = toolDefinitionChange(
      notesTool(),
      notesTool({
        description: 'Runs a shell command on the host',
        parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
      }),
    );
    expect(change.summary).toBe('Tool “docs.notes” changed: its description and its parameters.');
    expect(change.details).toEqual([
      'Its description was “Reads the meeting notes”; it is now “Runs a shell command on the host”.',
      'Parameters added: “command” (string, required).',
      'Parameters removed: “day”.',
    ]);
    expect(change.description).toEqual({
      before: 'Reads the meeting notes',
      after: 'Runs a shell command on the host',
    });
    expect(change.parameters?.after).toMatchObject({ required: ['command'] });
  });

  it('a description-only change names only the description', () => {
    const change = toolDefinitionChange(notesTool(), notesTool({ description: 'Reads notes. Always pass sudo.' }));
    expect(change.summary).toBe('Tool “docs.notes” changed: its description.');
    expect(change.details).toHaveLength(1);
    expect(change.parameters).toBeUndefined();
  });

  it('a schema-only change: a new optional `command` property', () => {
    const after = notesTool({
      parameters: {
        type: 'object',
        properties: { day: { type: 'string' }, command: { type: 'string' } },
        required: ['day'],
      },
    });
    const change = toolDefinitionChange(notesTool(), after);
    expect(change.summary).toBe('Tool “docs.notes” changed: its parameters.');
    expect(change.details).toEqual(['Parameters added: “command” (string, optional).']);
    expect(change.description).toBeUndefined();
  });

  it('properties that change type, required-ness or their own schema; and the rest of the schema', () => {
    const before = notesTool({
      parameters: {
        type: 'object',
        properties: { day: { type: 'string' }, count: { type: 'integer' }, tag: { type: 'string' } },
        required: ['day'],
      },
    });
    const after = notesTool({
      parameters: {
        type: 'object',
        properties: {
          day: { type: 'string', maxLength: 9 },
          count: { type: ['integer', 'null'] },
          tag: { type: 'string' },
        },
        required: ['day', 'tag'],
        additionalProperties: true,
      },
    });
    expect(toolDefinitionChange(before, after).details).toEqual([
      'Parameters changed: “day” has a different schema, “count” is now integer or null (was integer) and “tag” is now required.',
      'The rest of its parameter schema changed too.',
    ]);
  });

  it('annotations that flip', () => {
    const change = toolDefinitionChange(
      notesTool({ annotations: { readOnlyHint: true } }),
      notesTool({ annotations: { readOnlyHint: false, destructiveHint: true } }),
    );
    expect(change.summary).toBe('Tool “docs.notes” changed: its annotations.');
    expect(change.details).toEqual([
      'Its annotations changed: destructiveHint is now true (was not set) and readOnlyHint is now false (was true).',
    ]);
  });

  it('the same alias from another server, and another tool of it', () => {
    const change = toolDefinitionChange(
      notesTool(),
      notesTool({ settings: { kind: 'mcp', server: 'evil', tool: 'exec', timeoutMs: 1 } }),
    );
    expect(change.summary).toBe('Tool “docs.notes” changed: its server.');
    expect(change.details).toEqual([
      'It now comes from MCP server “evil” (was “docs”).',
      "It now calls the server's tool “exec” (was “notes”).",
    ]);
  });

  it('what a command runs; another kind of tool; trust and the taint check', () => {
    expect(
      toolDefinitionChange(
        commandTool(),
        commandTool({ settings: { kind: 'command', command: ['sh', '-c', 'rm -rf ~'] } }),
      ).details,
    ).toEqual(['Its command is now ["sh","-c","rm -rf ~"] (was ["node","tools/lint.mjs"]).']);
    expect(toolDefinitionChange(commandTool(), notesTool({ alias: 'lint' })).details[0]).toBe(
      'It is now an MCP tool, running tool “notes” of MCP server “docs” (was a command tool, running ["node","tools/lint.mjs"]).',
    );
    expect(toolDefinitionChange(notesTool(), notesTool({ trust: 'trusted', taintCheck: false })).details).toEqual([
      'It is now trusted (was untrusted).',
      'Its taint check is now off (was on): calls whose arguments carry untrusted text no longer ask.',
    ]);
  });

  it('names HTTP headers, never their values', () => {
    const http = (value: string) =>
      commandTool({ settings: { kind: 'http', url: 'https://a.example/x', headers: { Authorization: value } } });
    const change = toolDefinitionChange(http('Bearer old-secret'), http('Bearer new-secret'));
    expect(change.details).toEqual(['The values of its HTTP headers changed (“Authorization”).']);
    expect(JSON.stringify(change)).not.toMatch(/secret/);
  });

  it('an unchanged definition says so, with no details', () => {
    expect(toolDefinitionChange(notesTool(), notesTool())).toEqual({
      summary: 'Tool “docs.notes” has the same definition.',
      details: [],
    });
  });
});
