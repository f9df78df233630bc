import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { McpServerManager } from '../../../main/core/mcp/mcp-manager.js';
import { mcpPassThroughSecrets } from '../../../main/core/mcp/mcp-secrets.js';
import { attackEntry, attackManager, callOf, specsOf, stderrOf, toolFailure } from '../mcp/workspace-attack-helpers.js';

/**
 * The workspace is an input: an MCP server (test/node/mcp/fixtures/workspace-attack-server.mjs)
 * writes the secrets it was started with to its stderr, whole, split across chunks, and encoded
 * (base64, URL, hex, JSON escapes), puts them in its error messages and tool listing, and crashes
 * with them. Nothing the manager exposes (the stderr tail, statuses, errors, problems, call
 * failures, tool descriptions and schemas) holds the keychain value, the secret-looking value
 * passed through from the host's environment, or a fragment of either long enough to redact.
 */

const SECRET = 'pf-test-Secret-0123456789-abcdef';
const PASSED = 'ghp_passThroughValue0123456789AB';
const made: McpServerManager[] = [];
let savedToken: string | undefined;
beforeAll(() => {
  savedToken = process.env['GITHUB_TOKEN'];
  process.env['GITHUB_TOKEN'] = PASSED;
});
afterAll(() => {
  if (savedToken === undefined) delete process.env['GITHUB_TOKEN'];
  else process.env['GITHUB_TOKEN'] = savedToken;
});
afterEach(async () => {
  await Promise.all(made.splice(0).map((manager) => manager.close()));
});

const ENV = '  env:\n    MY_TOKEN: { secret: tok }\n    GITHUB_TOKEN:\n';

function manager(mode: string): McpServerManager {
  return attackManager(attackEntry('ws', mode, ENV), made, { secrets: { tok: SECRET } });
}

/** Every form of both secrets that must not be visible, down to fragments the redactor cuts. */
function leaks(text: string): string[] {
  const forms = [SECRET, PASSED].flatMap((secret) => [
    secret,
    secret.slice(0, 8),
    secret.slice(-8),
    Buffer.from(secret).toString('base64').slice(2, 14),
    Buffer.from(secret).toString('hex').slice(0, 16),
    encodeURIComponent(secret).slice(0, 10),
  ]);
  return forms.filter((form) => text.toLowerCase().includes(form.toLowerCase()));
}

describe('stderr', () => {
  it('a keychain value and a passed-through token, plain, base64, URL, hex and JSON-escaped, are redacted', async () => {
    const mcp = manager('secrets');
    await mcp.listTools();
    const tail = await stderrOf(mcp, 'ws', 'secrets written');
    expect(leaks(tail)).toEqual([]);
    expect(tail).toContain('plain [redacted]');
    expect(tail).toContain('passed through [redacted]');
    expect(tail.match(/\[redacted\]/g)?.length).toBeGreaterThanOrEqual(6);
    expect(leaks(JSON.stringify(mcp.statuses()))).toEqual([]);
  });

  it('a secret split across two stderr chunks is redacted whole, its first characters too', async () => {
    const mcp = manager('secrets');
    await mcp.listTools();
    await stderrOf(mcp, 'ws', 'split secret begins:');
    expect(await callOf(mcp, 'ws', 'finish-secret')).toBe('finished');
    const tail = await stderrOf(mcp, 'ws', 'split secret ends');
    expect(tail).toContain('split secret begins:[redacted] split secret ends');
    expect(tail).not.toContain(SECRET.slice(0, 5));
  });

  it('a server that crashes at start with its token: problem, status, error and call failure are redacted', async () => {
    const mcp = manager('crash-with-secret');
    const { problems } = await mcp.listTools();
    expect(problems[0]?.message).toMatch(/^MCP server "ws" .* is not available: it exited while starting/);
    const error = await toolFailure(callOf(mcp, 'ws', 'echo'));
    // A base64 form keeps at most its last characters, which also carry the bits of what follows.
    expect(error.toolText).toMatch(/fatal: cannot log in with token \[redacted\] \(\[redacted\][A-Za-z0-9+/=]{0,3}\)/);
    const shown = JSON.stringify({ problems, statuses: mcp.statuses(), error: error.message, text: error.toolText });
    expect(leaks(shown)).toEqual([]);
  });
});

describe('what the server answers and lists', () => {
  it("an error answer quoting the token is redacted in the call's failure", async () => {
    const mcp = manager('secrets');
    await mcp.listTools();
    const error = await toolFailure(callOf(mcp, 'ws', 'echo-secret'));
    expect(error.message).toBe('the server answered with an error: MCP error -32000: denied for token [redacted]');
    expect(error.toolText).toBe('MCP error -32000: denied for token [redacted]');
  });

  it('a description and a default holding the token are redacted; an enum holding it drops the tool', async () => {
    const mcp = manager('secrets');
    const { tools, problems } = await mcp.listTools();
    const leaky = tools.find((tool) => tool.alias === 'ws.leaky');
    expect(leaky?.description).toMatch(
      /^\[from MCP server "ws", untrusted\] uses token \[redacted\]; base64 \[redacted\][A-Za-z0-9+/=]{0,3}$/,
    );
    const withDefault = tools.find((tool) => tool.alias === 'ws.leaky-default');
    expect(JSON.stringify(withDefault?.parameters)).toContain('"default":"Bearer [redacted]"');
    expect(tools.some((tool) => tool.alias === 'ws.leaky-enum')).toBe(false);
    expect(problems.map((problem) => problem.message)).toContain(
      'MCP server "ws": tool "leaky-enum" is dropped: its inputSchema holds a secret of the workspace in a value at /properties/a/enum/0; it cannot be shown to the model',
    );
    expect(leaks(JSON.stringify({ tools, problems, statuses: mcp.statuses() }))).toEqual([]);
  });
});

describe('mcpPassThroughSecrets: what the run must redact besides the keychain', () => {
  it("secret-looking pass-through variables the host sets, and literal secret-looking values; not the keychain's", () => {
    const specs = specsOf(
      [
        attackEntry(
          'a',
          'normal',
          '  env:\n    GITHUB_TOKEN:\n    HOME:\n    MY_TOKEN: { secret: tok }\n    API_KEY: literal-key-value\n',
        ),
        'b:\n  kind: mcp\n  command: [node, b.js]\n  env: [DB_PASSWORD, UNSET_TOKEN, LANG]\n',
        'c:\n  kind: mcp\n  url: http://127.0.0.1:1/mcp\n  headers:\n    Authorization: Bearer literal-header\n    X-Key: { secret: k }\n    X-Plain: plain\n',
      ].join(''),
    );
    const env = { GITHUB_TOKEN: PASSED, HOME: '/home/someone', DB_PASSWORD: 'hunter2-long', LANG: 'C' };
    expect(mcpPassThroughSecrets(specs, env)).toEqual([
      PASSED,
      'literal-key-value',
      'hunter2-long',
      'Bearer literal-header',
    ]);
    expect(mcpPassThroughSecrets(specs, {})).toEqual(['literal-key-value', 'Bearer literal-header']);
  });
});
