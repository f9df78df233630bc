import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ContractEventName, ContractMethodName } from '../../../common/contract.js';
import type { RunEvent } from '../../../common/run-events.js';
import { KeyringSecretStore } from '../../../main/core/credentials/keyring-secret-store.js';
import { createStudioHandlers, dispatchContractCall } from '../../../main/core/studio/studio-handlers.js';
import { StudioService } from '../../../main/core/studio/studio-service.js';
import { workspaceSecretAccount } from '../../../main/core/trust/secret-scope.js';
import { runCliInProcess } from '../cli/spawn-cli.js';
import { examples } from './studio-harness.js';
import { testPool } from '../run/run-harness.js';
import { startServer } from '../tools/helpers.js';
import { trustForTests } from '../trust/trust-for-tests.js';
import { pressStandIn } from './press-stand-in.js';
import { quietLogger } from '../../fixtures/stubs.js';

// Unique per run, so a match can only come from this test.
const suffix = `${process.pid}-${randomBytes(4).toString('hex')}`;
// The REAL OS keychain (run under scripts/with-test-keychain.ts), under a service of this run's
// own, so nothing here touches a person's entries and its provider key "openai" is this test's.
// Never passes by skipping.
const store = new KeyringSecretStore({ service: `PromptForge Studio (node test ${suffix})` });

const toolSecret = `pf-tool-secret-${suffix}`;
const mcpSecret = `pf-mcp-secret-${suffix}`;
/** The names keys:status lists: `NAME@DESTINATION` (main/core/trust/secret-scope.ts). */
const scopedTool = `${toolSecret}@https://search.example.com`;
const scopedMcp = `${mcpSecret}@https://mcp.example.com`;
const value = `sk-canary-tools-${randomBytes(8).toString('hex')}`;
const providerValue = `sk-canary-provider-${randomBytes(8).toString('hex')}`;

/** Every keychain account a test may have written, deleted after each test. */
const touched = new Set<string>(['openai', toolSecret, mcpSecret]);
/** The account of `scoped` in the workspace at `root`, noted for cleanup. */
function account(root: string, scoped: string): string {
  const name = workspaceSecretAccount(realpathSync(root), scoped);
  touched.add(name);
  return name;
}

let service: StudioService | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
  for (const name of touched) await store.delete(name).catch(() => undefined);
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
  const pushed: { name: ContractEventName; payload: unknown }[] = [];
  const waiters: (() => void)[] = [];
  service = new StudioService({
    userDataDirectory: mkdtempSync(path.join(tmpdir(), 'pf-studio-')),
    examplesDirectory: examples,
    secrets: store,
    pool: testPool(),
    // The person at main's dialog, a stand-in: yes to every keychain change the test makes.
    confirmPerson: async () => true,
    emit: (name, payload) => {
      pushed.push({ name, payload });
      for (const wake of waiters.splice(0)) wake();
    },
  });
  const handlers = createStudioHandlers({ appName: 'test', appVersion: '0', userDataDirectory: '/', service });
  const invoke = async (method: ContractMethodName, request: unknown) => {
    const result = await dispatchContractCall(handlers, method, request, quietLogger, pressStandIn());
    responses.push(result);
    return result;
  };
  /** The secrets keys:status lists. */
  const secrets = async () => {
    const status = await invoke('keys:status', {});
    if (!status.ok) throw new Error(`keys:status failed: ${status.error.message}`);
    return (status.value as { secrets: { name: string; usedBy: string[]; set: boolean }[] }).secrets;
  };
  /** Tries `alias` as the explorer does and resolves its run-end. */
  const trial = async (alias: string, args: Record<string, unknown>) => {
    const started = await invoke('tool:trial', { alias, arguments: args });
    if (!started.ok) throw new Error(`tool:trial failed: ${started.error.message}`);
    const { runId } = started.value as { runId: string };
    const end = () =>
      pushed.find(
        (p) =>
          p.name === 'run-event' &&
          (p.payload as RunEvent).runId === runId &&
          (p.payload as RunEvent).type === 'run-end',
      )?.payload as Extract<RunEvent, { type: 'run-end' }> | undefined;
    while (!end()) await new Promise<void>((resolve) => waiters.push(resolve));
    return end()!;
  };
  return { service, invoke, secrets, trial };
}

/** The CLI in this process on the same keychain, with `stdinText` on stdin (how `keys set` reads a key). */
function cli(args: string[], cwd: string, stdinText = ''): Promise<{ code: number; stdout: string; stderr: string }> {
  return runCliInProcess(args, { cwd, secrets: store, stdin: stdinText });
}

describe('keys:* for the secrets tools.yaml names, on the real keychain', () => {
  it('sets, lists (set, never the value) and deletes a tools.yaml secret, in its workspace and destination’s own entry, as the CLI does', async () => {
    const { service, invoke, secrets } = contract();
    const root = workspaceNamingSecrets();
    await service.openWorkspace(root);

    const before = await invoke('keys:status', {});
    expect(before).toMatchObject({ ok: true, value: { available: true } });
    expect(await secrets()).toEqual([
      { name: scopedTool, usedBy: ['search (header Authorization)'], set: false },
      { name: scopedMcp, usedBy: ['MCP server remote (header Authorization)'], set: false },
    ]);

    expect(await invoke('keys:set', { secret: scopedTool, key: `  ${value}  ` })).toEqual({
      ok: true,
      value: { replaced: false },
    });
    // Not the bare name any more: an entry of this workspace and destination, trimmed value.
    expect(await store.get(toolSecret)).toBeUndefined();
    expect(account(root, scopedTool)).toMatch(/^workspace-secret\/[0-9a-f]{16}\//);
    expect(await store.get(account(root, scopedTool))).toBe(value);
    // The CLI reads the same entry, by the same name.
    const status = await runCliInProcess(['keys', 'status', '--workspace', root], { cwd: root, secrets: store });
    expect(status.stdout).toMatch(
      new RegExp(`${escape(scopedTool)} +set in the OS keychain \\(used by search \\(header Authorization\\)\\)`),
    );
    expect(status.stdout).toMatch(new RegExp(`${escape(scopedMcp)} +not set`));

    // `promptforge keys set NAME` with the bare name of a secret used for one destination writes
    // that destination's entry, which the studio lists as set.
    expect(await cli(['keys', 'set', mcpSecret, '--workspace', root], root, `${value}-mcp\n`)).toMatchObject({
      code: 0,
      stdout: `Stored the key for ${scopedMcp} in the OS keychain.\n`,
    });
    expect(await store.get(mcpSecret)).toBeUndefined();
    expect(await store.get(account(root, scopedMcp))).toBe(`${value}-mcp`);
    expect(await secrets()).toEqual([
      { name: scopedTool, usedBy: ['search (header Authorization)'], set: true },
      { name: scopedMcp, usedBy: ['MCP server remote (header Authorization)'], set: true },
    ]);

    expect(await invoke('keys:set', { secret: scopedTool, key: `${value}-2` })).toEqual({
      ok: true,
      value: { replaced: true },
    });
    expect(await invoke('keys:delete', { secret: scopedTool })).toEqual({ ok: true, value: { deleted: true } });
    expect(await store.has(account(root, scopedTool))).toBe(false);
    expect(await invoke('keys:delete', { secret: scopedMcp })).toEqual({ ok: true, value: { deleted: true } });
    expect((await secrets()).map((secret) => secret.set)).toEqual([false, false]);

    expect(JSON.stringify(responses)).not.toContain('sk-canary-tools');
  });

  it('refuses a secret the workspace does not name, its bare name, and any secret without a workspace', async () => {
    const { service, invoke } = contract();
    const none = await invoke('keys:status', {});
    expect(none.ok && (none.value as { secrets: unknown }).secrets).toEqual([]);
    expect(await invoke('keys:set', { secret: scopedTool, key: value })).toMatchObject({
      ok: false,
      error: { code: 'unknown-secret', message: expect.stringContaining('no workspace is open') },
    });

    await service.openWorkspace(workspaceNamingSecrets());
    const refused = await invoke('keys:set', { secret: 'openai-but-not-named', key: value });
    expect(refused).toMatchObject({ ok: false, error: { code: 'unknown-secret' } });
    expect(!refused.ok && refused.error.message).toContain(`it names: ${scopedTool}, ${scopedMcp}`);
    expect(await invoke('keys:delete', { secret: 'openai-but-not-named' })).toMatchObject({
      ok: false,
      error: { code: 'unknown-secret' },
    });
    expect(await store.has('openai-but-not-named')).toBe(false);
    // The studio takes the name keys:status lists; the bare name is not an entry of its own.
    expect(await invoke('keys:set', { secret: toolSecret, key: value })).toMatchObject({
      ok: false,
      error: { code: 'unknown-secret' },
    });
    expect(await store.has(toolSecret)).toBe(false);
    // Both fields, or neither, is a malformed request.
    expect(await invoke('keys:set', { provider: 'openai', secret: scopedTool, key: value })).toMatchObject({
      ok: false,
    });
    expect(JSON.stringify(responses)).not.toContain('sk-canary-tools');
  });
});

describe('workspace secrets are scoped: no provider key, no other workspace', () => {
  let api: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    api = await startServer((_request, _body, response) => {
      response.setHeader('content-type', 'application/json');
      response.end('{"found":0}');
    });
  });
  afterAll(() => api.close());

  /** A trusted workspace whose http tool, at the loopback server, sends the secret `openai`. */
  async function workspaceNamingOpenai(): Promise<string> {
    const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'pf-secrets-openai-')));
    writeFileSync(
      path.join(dir, 'tools.yaml'),
      [
        'search:',
        '  kind: http',
        `  url: ${api.url}/search`,
        '  approval: auto',
        '  headers:',
        '    Authorization: { secret: openai }',
        '',
      ].join('\n'),
    );
    await trustForTests(dir);
    return dir;
  }

  it('a secret named "openai" never reads, moves or overwrites the provider key "openai"', async () => {
    const { service, invoke, secrets, trial } = contract();
    const root = await workspaceNamingOpenai();
    const scoped = `openai@${api.url}`;
    await service.openWorkspace(root);
    expect(await invoke('keys:set', { provider: 'openai', key: providerValue })).toMatchObject({ ok: true });

    // The provider key is not the secret, not even as an entry from before the namespaces.
    expect(await secrets()).toEqual([{ name: scoped, usedBy: ['search (header Authorization)'], set: false }]);
    const unset = await trial('search', {});
    expect(unset.status).toBe('error');
    expect(unset.error?.message).toContain(`secret "${scoped}" for header "Authorization" is not set`);
    expect(api.requests).toEqual([]);
    expect(await store.get('openai')).toBe(providerValue);

    // Set, the secret is the workspace's own entry; the provider key stays as it was.
    expect(await invoke('keys:set', { secret: scoped, key: value })).toEqual({ ok: true, value: { replaced: false } });
    expect(await store.get('openai')).toBe(providerValue);
    expect(await store.get(account(root, scoped))).toBe(value);
    const sent = await trial('search', {});
    expect(sent.status, JSON.stringify(sent.error)).toBe('ok');
    expect(api.requests.map((request) => request.headers['authorization'])).toEqual([value]);

    expect(await invoke('keys:delete', { secret: scoped })).toEqual({ ok: true, value: { deleted: true } });
    expect(await store.get('openai')).toBe(providerValue);
    expect(JSON.stringify(responses)).not.toContain('sk-canary');
  });

  it('a legacy bare entry moves into the workspace’s own entries on first read; another workspace naming it gets nothing', async () => {
    const { service, secrets, trial } = contract();
    const first = workspaceNamingSecrets();
    const second = workspaceNamingSecrets();
    await trustForTests(first);
    // What `promptforge keys set NAME` wrote before secrets were scoped: the bare name.
    await store.set(toolSecret, value);

    await service.openWorkspace(first);
    expect((await secrets()).find((secret) => secret.name === scopedTool)?.set).toBe(true);
    // A run of this (trusted) workspace reads its secrets as it starts: the entry moves.
    expect((await trial('echo', { text: 'hi' })).status).toBe('ok');
    expect(await store.get(toolSecret)).toBeUndefined();
    expect(await store.get(account(first, scopedTool))).toBe(value);
    expect((await secrets()).find((secret) => secret.name === scopedTool)?.set).toBe(true);

    await service.openWorkspace(second);
    expect(await secrets()).toEqual([
      { name: scopedTool, usedBy: ['search (header Authorization)'], set: false },
      { name: scopedMcp, usedBy: ['MCP server remote (header Authorization)'], set: false },
    ]);
    expect(await store.get(account(second, scopedTool))).toBeUndefined();
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
