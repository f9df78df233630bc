import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance, pinned) against the
 * host's own MCP client: each client scenario starts its test servers on loopback and launches
 * conformance/conformance-client.ts, which drives McpServerManager, McpOAuth and McpPersonSession
 * (offline: nothing leaves the machine). The scenarios left out, and why, are in docs/catalogs.md.
 */
const suite = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json')),
  'dist/index.js',
);
const client = `${process.execPath} --import tsx ${path.join(import.meta.dirname, 'conformance/conformance-client.ts')}`;

/** Every client scenario of the suite for the features the host implements, by feature. */
export const CONFORMANCE_SCENARIOS: Record<string, string[]> = {
  lifecycle: ['initialize', 'tools_call'],
  elicitation: ['elicitation-sep1034-client-defaults'],
  'streamable HTTP': ['sse-retry'],
  'OAuth discovery': [
    'auth/metadata-default',
    'auth/metadata-var1',
    'auth/metadata-var2',
    'auth/metadata-var3',
    'auth/resource-mismatch',
  ],
  'OAuth registration': [
    'auth/basic-cimd',
    'auth/pre-registration',
    'auth/token-endpoint-auth-basic',
    'auth/token-endpoint-auth-post',
    'auth/token-endpoint-auth-none',
  ],
  'OAuth scopes': [
    'auth/scope-from-www-authenticate',
    'auth/scope-from-scopes-supported',
    'auth/scope-omitted-when-undefined',
    'auth/scope-step-up',
    'auth/scope-retry-limit',
    'auth/offline-access-scope',
    'auth/offline-access-not-supported',
  ],
  'OAuth 2025-03-26 compatibility': [
    'auth/2025-03-26-oauth-metadata-backcompat',
    'auth/2025-03-26-oauth-endpoint-fallback',
  ],
};

function runScenario(scenario: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [suite, 'client', '--command', client, '--scenario', scenario, '--timeout', '60000'],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('the official MCP conformance suite, client scenarios', () => {
  for (const [feature, scenarios] of Object.entries(CONFORMANCE_SCENARIOS))
    describe(feature, () => {
      it.each(scenarios)('%s passes', { timeout: 120_000 }, async (scenario) => {
        const { code, output } = await runScenario(scenario);
        const summary = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/.exec(output);
        const failures = output.split('\n').filter((line) => /\] (FAILURE|WARNING) /.test(line));
        expect(failures, output.slice(-4000)).toEqual([]);
        expect(summary?.[3], output.slice(-4000)).toBe('0');
        expect(Number(summary?.[1])).toBeGreaterThan(0);
        expect(summary?.[1]).toBe(summary?.[2]);
        expect(code, output.slice(-4000)).toBe(0);
      });
    });
});
