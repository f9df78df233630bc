/**
 * The client the official MCP conformance suite drives (`conformance client --command ...`): it is
 * started with the scenario's server URL as its last argument, the scenario's name in
 * MCP_CONFORMANCE_SCENARIO and its context in MCP_CONFORMANCE_CONTEXT. It runs the host's own MCP
 * client (McpServerManager, McpConnection, McpOAuth, McpPersonSession) on a tools.yaml entry for
 * that URL. Stand-ins, named as such: the person's browser at the consent step, the keychain (in
 * memory), and the person who answers an elicitation form by submitting it with its defaults.
 */
import { buildWorkspace } from '../../../../main/core/catalog/workspace.js';
import { McpServerManager } from '../../../../main/core/mcp/mcp-manager.js';
import { McpPersonSession } from '../../../../main/core/mcp/mcp-person-session.js';
import { standInBrowser } from '../../../fixtures/stand-in-browser.js';
import { mapSecretStore } from '../../../fixtures/stubs.js';

/** The Client ID Metadata Document URL the CIMD scenario expects a client to present. */
const CIMD_URL = 'https://conformance-test.local/client-metadata.json';

const scenario = process.env['MCP_CONFORMANCE_SCENARIO'] ?? '';
const serverUrl = process.argv.at(-1) ?? '';
const context = JSON.parse(process.env['MCP_CONFORMANCE_CONTEXT'] ?? '{}') as {
  client_id?: string;
  client_secret?: string;
};

/** The tool each scenario expects the client to call (after listing). */
const TOOL_OF: Record<string, { name: string; args: Record<string, number> }> = {
  tools_call: { name: 'add_numbers', args: { a: 5, b: 3 } },
  'elicitation-sep1034-client-defaults': { name: 'test_client_elicitation_defaults', args: {} },
  'sse-retry': { name: 'test_reconnection', args: {} },
};

function toolsYaml(): string {
  const oauth: string[] = [];
  if (scenario === 'auth/pre-registration' && context.client_id)
    oauth.push(
      `    clientId: ${JSON.stringify(context.client_id)}`,
      '    clientSecret: { secret: preregistered-secret }',
    );
  if (scenario.startsWith('auth/')) oauth.push(`    clientMetadataUrl: ${CIMD_URL}`);
  return [
    'server:',
    '  kind: mcp',
    `  url: ${JSON.stringify(serverUrl)}`,
    '  prefix: ""',
    '  startTimeoutMs: 20000',
    ...(oauth.length > 0 ? ['  oauth:', ...oauth] : []),
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const workspace = buildWorkspace(process.cwd(), { 'tools.yaml': toolsYaml() });
  const problems = workspace.problems.filter((problem) => problem.severity === 'error');
  if (problems.length > 0) throw new Error(problems.map((problem) => problem.message).join('; '));
  const manager = new McpServerManager({
    workspaceRoot: process.cwd(),
    servers: workspace.mcpServers ?? [],
    secrets: { get: async (name) => (name === 'preregistered-secret' ? context.client_secret : undefined) },
    keychain: mapSecretStore(),
    login: { openBrowser: async (url) => void (await standInBrowser(url)) },
  });
  try {
    const listed = await manager.listTools();
    if (listed.problems.some((problem) => problem.severity === 'error'))
      throw new Error(listed.problems.map((problem) => problem.message).join('; '));
    const session = new McpPersonSession({
      runId: 'conformance',
      nonce: '0'.repeat(32),
      emit: (event) => process.stderr.write(`${JSON.stringify(event)}\n`),
      currentCall: () => ({ callId: 'call-1', alias: 'conformance' }),
      // A stand-in for the person: submits the form as shown, every field at its default.
      elicitor: { source: 'cli-prompt', ask: async () => ({ action: 'accept', content: {} }) },
    });
    const wanted = TOOL_OF[scenario] ?? (scenario.startsWith('auth/') ? { name: 'test-tool', args: {} } : undefined);
    if (wanted) {
      const output = await manager.callTool(
        'server',
        wanted.name,
        wanted.args,
        new AbortController().signal,
        20_000,
        session,
      );
      process.stderr.write(`${wanted.name}: ${output.slice(0, 200)}\n`);
    }
  } finally {
    await manager.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`conformance client: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
