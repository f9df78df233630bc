import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ContractMethodName } from '../../../common/contract.js';
import { KeyringSecretStore } from '../../../main/core/credentials/keyring-secret-store.js';
import { createStudioHandlers, dispatchContractCall } from '../../../main/core/studio/studio-handlers.js';
import type { StudioLogger } from '../../../main/core/studio/studio-logger.js';
import { StudioService } from '../../../main/core/studio/studio-service.js';
import { runCliInProcess } from '../cli/spawn-cli.js';
import { examples } from './studio-harness.js';
import { testPool } from '../run/run-harness.js';

// The REAL OS keychain (run under scripts/with-test-keychain.ts), under a service of its own so
// nothing here touches a person's entries. Never passes by skipping.
const store = new KeyringSecretStore({ service: 'PromptForge Studio (node test)' });

// Unique per run, so a match can only come from this test.
const suffix = `${process.pid}-${randomBytes(4).toString('hex')}`;
const toolSecret = `pf-tool-secret-${suffix}`;
const mcpSecret = `pf-mcp-secret-${suffix}`;
const value = `sk-canary-tools-${randomBytes(8).toString('hex')}`;

const logger: StudioLogger = {
  info: () => undefined,
  warn: () => undefined,
  error: (message, fields) => console.error(message, fields),
};

let service: StudioService | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
  for (const name of [toolSecret, mcpSecret]) await store.delete(name).catch(() => undefined);
});

/** A workspace whose tools.yaml names one secret in an http tool's header and one in an MCP server's. */
function workspaceNamingSecrets(): string {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'pf-secrets-')));
  writeFileSync(path.join(dir, 'promptforge.yaml'), 'builtins: true\n');
  writeFileSync(
    path.join(dir, 'tools.yaml'),
    [
      'search:',
      '  description: Search through the proxy',
      '  kind: http',
      '  url: https://search.example.com/v1/query',
      '  headers:',
      `    Authorization: { secret: ${toolSecret} }`,
      '  parameters:',
      '    type: object',
      '    properties:',
      '      query: { type: string }',
      'remote:',
      '  kind: mcp',
      '  url: https://mcp.example.com/mcp',
      '  headers:',
      `    Authorization: { secret: ${mcpSecret} }`,
      '',
    ].join('\n'),
  );
  return dir;
}

/** Every response of the calls below, as the renderer would receive them. */
const responses: unknown[] = [];

function contract() {
  service = new StudioService({
    userDataDirectory: mkdtempSync(path.join(tmpdir(), 'pf-studio-')),
    examplesDirectory: examples,
    secrets: store,
    pool: testPool(),
    emit: () => undefined,
  });
  const handlers = createStudioHandlers({ appName: 'test', appVersion: '0', userDataDirectory: '/', service });
  const invoke = async (method: ContractMethodName, request: unknown) => {
    const result = await dispatchContractCall(handlers, method, request, logger);
    responses.push(result);
    return result;
  };
  return { service, invoke };
}

describe('keys:* for the secrets tools.yaml names, on the real keychain', () => {
  it('sets, lists (set, never the value) and deletes a tools.yaml secret, in the entry the CLI uses', async () => {
    const { service, invoke } = contract();
    const root = workspaceNamingSecrets();
    await service.openWorkspace(root);

    const before = await invoke('keys:status', {});
    expect(before).toMatchObject({ ok: true, value: { available: true } });
    const beforeSecrets = before.ok ? (before.value as { secrets: unknown }).secrets : undefined;
    expect(beforeSecrets).toEqual([
      { name: mcpSecret, usedBy: ['MCP server remote (header Authorization)'], set: false },
      { name: toolSecret, usedBy: ['search (Authorization)'], set: false },
    ]);

    expect(await invoke('keys:set', { secret: toolSecret, key: `  ${value}  ` })).toEqual({
      ok: true,
      value: { replaced: false },
    });
    // The same entry `promptforge keys set NAME` writes: the name is the account, trimmed value.
    expect(await store.get(toolSecret)).toBe(value);
    const cli = await runCliInProcess(['keys', 'status', '--workspace', root], { cwd: root, secrets: store });
    expect(cli.stdout).toMatch(
      new RegExp(`${toolSecret} +set in the OS keychain \\(used by search \\(Authorization\\)\\)`),
    );
    expect(cli.stdout).toMatch(new RegExp(`${mcpSecret} +not set`));

    const after = await invoke('keys:status', {});
    expect(after.ok && (after.value as { secrets: unknown }).secrets).toEqual([
      { name: mcpSecret, usedBy: ['MCP server remote (header Authorization)'], set: false },
      { name: toolSecret, usedBy: ['search (Authorization)'], set: true },
    ]);

    expect(await invoke('keys:set', { secret: toolSecret, key: `${value}-2` })).toEqual({
      ok: true,
      value: { replaced: true },
    });
    expect(await invoke('keys:delete', { secret: toolSecret })).toEqual({ ok: true, value: { deleted: true } });
    expect(await store.has(toolSecret)).toBe(false);
    const deleted = await invoke('keys:status', {});
    expect(deleted.ok && (deleted.value as { secrets: Array<{ set: boolean }> }).secrets.map((s) => s.set)).toEqual([
      false,
      false,
    ]);

    expect(JSON.stringify(responses)).not.toContain('sk-canary-tools');
  });

  it('refuses a secret the workspace does not name, and any secret without a workspace', async () => {
    const { service, invoke } = contract();
    const none = await invoke('keys:status', {});
    expect(none.ok && (none.value as { secrets: unknown }).secrets).toEqual([]);
    expect(await invoke('keys:set', { secret: toolSecret, key: value })).toMatchObject({
      ok: false,
      error: { code: 'unknown-secret', message: expect.stringContaining('no workspace is open') },
    });

    await service.openWorkspace(workspaceNamingSecrets());
    const refused = await invoke('keys:set', { secret: 'openai-but-not-named', key: value });
    expect(refused).toMatchObject({ ok: false, error: { code: 'unknown-secret' } });
    expect(!refused.ok && refused.error.message).toContain(`it names: ${mcpSecret}, ${toolSecret}`);
    expect(await invoke('keys:delete', { secret: 'openai-but-not-named' })).toMatchObject({
      ok: false,
      error: { code: 'unknown-secret' },
    });
    expect(await store.has('openai-but-not-named')).toBe(false);
    // Both fields, or neither, is a malformed request.
    expect(await invoke('keys:set', { provider: 'openai', secret: toolSecret, key: value })).toMatchObject({
      ok: false,
    });
    expect(JSON.stringify(responses)).not.toContain('sk-canary-tools');
  });
});
