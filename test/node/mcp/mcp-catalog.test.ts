import { describe, expect, it } from 'vitest';
import { checkCatalogs } from '../../../main/core/catalog/catalog-loader.js';

function check(yaml: string) {
  const checked = checkCatalogs({ 'tools.yaml': yaml });
  return {
    servers: checked.mcpServers,
    problems: checked.problems.map((p) => ({
      severity: p.severity,
      at: `${p.pointer}@${p.line}:${p.column}`,
      message: p.message,
      fix: p.fix,
    })),
  };
}

describe('kind: mcp in tools.yaml', () => {
  it('loads a stdio server with defaults: prefix "<name>.", untrusted, ask', () => {
    const { servers, problems } = check(
      [
        'fs:',
        '  kind: mcp',
        '  command: npx',
        '  args: [-y, "@modelcontextprotocol/server-filesystem", ./data]',
        '  env: [HOME]',
        '  tools:',
        '    write_file: { approval: ask, timeoutMs: 5000 }',
        '    read_text_file: { approval: auto }',
      ].join('\n'),
    );
    expect(problems).toEqual([]);
    expect(servers).toHaveLength(1);
    expect(servers[0]).toMatchObject({
      name: 'fs',
      prefix: 'fs.',
      trust: 'untrusted',
      approval: 'ask',
      transport: {
        type: 'stdio',
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-filesystem', './data'],
        env: { HOME: null },
      },
      overrides: { read_text_file: { approval: 'auto' } },
      location: { file: 'tools.yaml', pointer: '/fs', line: 1 },
    });
  });

  it('loads a Streamable HTTP server with keychain headers and env secrets in mapping form', () => {
    const { servers, problems } = check(
      'remote:\n  kind: mcp\n  url: https://mcp.example.com/mcp\n  prefix: r_\n  headers:\n    Authorization: { secret: remote-token }\n',
    );
    expect(problems).toEqual([]);
    expect(servers[0]?.transport).toEqual({
      type: 'http',
      url: 'https://mcp.example.com/mcp',
      headers: { Authorization: { secret: 'remote-token' } },
    });
    expect(servers[0]?.prefix).toBe('r_');
    const env = check('s:\n  kind: mcp\n  command: [node, server.js]\n  env:\n    HOME:\n    API_KEY: { secret: k }\n');
    expect(env.problems).toEqual([]);
    expect(env.servers[0]?.transport).toMatchObject({
      command: 'node',
      args: ['server.js'],
      env: { HOME: null, API_KEY: { secret: 'k' } },
    });
  });

  it('an entry with neither command nor url is an error at its line with a fix', () => {
    const { servers, problems } = check('ok:\n  kind: builtin\n  builtin: echo\nbroken:\n  kind: mcp\n  prefix: b.\n');
    expect(servers).toEqual([]);
    expect(problems).toEqual([
      expect.objectContaining({
        severity: 'error',
        at: '/broken/kind@5:9',
        message: 'MCP server "broken" needs "command" (a stdio server) or "url" (a Streamable HTTP server)',
        fix: expect.stringContaining('command: npx'),
      }),
    ]);
  });

  it('refuses url with command, headers without url, bad override fields, cwd outside, bad env names', () => {
    expect(check('a:\n  kind: mcp\n  url: http://127.0.0.1:1/mcp\n  command: x\n').problems[0]?.message).toMatch(
      /both "url" and "command"|must match exactly one/,
    );
    expect(check('a:\n  kind: mcp\n  command: x\n  headers: { A: b }\n').problems[0]?.message).toMatch(
      /"headers" needs "url"/,
    );
    const override = check('a:\n  kind: mcp\n  command: x\n  tools:\n    t: { aproval: ask }\n').problems[0];
    expect(override).toMatchObject({ severity: 'error', at: '/a/tools/t/aproval@5:10' });
    expect(check('a:\n  kind: mcp\n  command: x\n  cwd: ../elsewhere\n').problems[0]?.message).toMatch(
      /outside the workspace/,
    );
    expect(check('a:\n  kind: mcp\n  command: x\n  env: { "1BAD": y }\n').problems[0]?.severity).toBe('error');
    expect(check('a:\n  kind: mcp\n  command: x\n  prefix: "9x"\n').problems[0]?.message).toMatch(
      /prefix "9x" must start with a letter/,
    );
  });

  it('warns about literal secrets and fields that do not apply', () => {
    const { problems } = check(
      'a:\n  kind: mcp\n  command: x\n  parameters: { type: object }\n  env: { GITHUB_TOKEN: ghp_literal }\n',
    );
    expect(problems.map((p) => p.message).join('\n')).toMatch(/"parameters" is ignored for an MCP server/);
    expect(problems.map((p) => p.message).join('\n')).toMatch(/variable "GITHUB_TOKEN" holds a literal value/);
  });

  it('a command tool still needs the argv as a list, and env as a list', () => {
    expect(check('c:\n  kind: command\n  command: node\n').problems[0]?.severity).toBe('error');
    expect(check('c:\n  kind: command\n  command: [node]\n  env: { A: b }\n').problems[0]?.severity).toBe('error');
  });
});
