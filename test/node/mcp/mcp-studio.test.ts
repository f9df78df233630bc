import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { ContractEventName, ContractEventPayload } from '../../../common/contract.js';
import { testPool } from '../run/run-harness.js';
import { createStudioHandlers, dispatchContractCall } from '../../../main/core/studio/studio-handlers.js';
import { StudioService } from '../../../main/core/studio/studio-service.js';
import { pressStandIn } from '../studio/press-stand-in.js';
import { noSecrets } from '../../fixtures/stubs.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const HOSTILE = path.resolve(here, '../../fixtures/hostile-mcp-server.mjs');

type Pushed = { name: ContractEventName; payload: unknown };
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function studio() {
  const pushed: Pushed[] = [];
  const waiters: {
    name: ContractEventName;
    match: (payload: never) => boolean;
    resolve: (payload: unknown) => void;
  }[] = [];
  const root = mkdtempSync(path.join(tmpdir(), 'pf-mcp-studio-'));
  const service = new StudioService({
    userDataDirectory: root,
    examplesDirectory: root,
    secrets: noSecrets,
    emit: (name, payload) => {
      pushed.push({ name, payload });
      for (const waiter of [...waiters])
        if (waiter.name === name && waiter.match(payload as never)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(payload);
        }
    },
    pool: testPool(),
    // A stand-in for the person at main's own dialog: yes to trusting the test's workspace.
    confirmPerson: async () => true,
    // A stand-in for main's folder dialog: it answers the test's workspace.
    chooseFolder: async () => root,
  });
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  cleanups.push(() => service.close());
  const handlers = createStudioHandlers({ appName: 'x', appVersion: '0', userDataDirectory: root, service });
  const callMethod = async (method: Parameters<typeof dispatchContractCall>[1], payload: unknown) => {
    const result = await dispatchContractCall(handlers, method as never, payload, undefined, pressStandIn());
    if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
    return result.value as never;
  };
  const next = <E extends ContractEventName>(name: E, match: (payload: ContractEventPayload<E>) => boolean) =>
    new Promise<ContractEventPayload<E>>((resolve) => {
      const seen = pushed.find((entry) => entry.name === name && match(entry.payload as ContractEventPayload<E>));
      if (seen) resolve(seen.payload as ContractEventPayload<E>);
      else waiters.push({ name, match: match as never, resolve: resolve as never });
    });
  return { root, service, callMethod, next };
}

describe('the studio and MCP servers', () => {
  it('lists servers with status and tools, runs a call through the approval card, and stops/restarts', async () => {
    const { root, callMethod, next } = studio();
    mkdirSync(path.join(root, 'agents'));
    writeFileSync(
      path.join(root, 'tools.yaml'),
      `bad:\n  kind: mcp\n  description: hostile\n  command: ${JSON.stringify(process.execPath)}\n  args: [${JSON.stringify(HOSTILE)}]\n`,
    );
    writeFileSync(path.join(root, 'agents', 'a.lua'), `print(tools.call('bad.echo', {text='from studio'}))`);
    const { path: chosen }: { path: string } = await callMethod('workspace:choose', {});
    await callMethod('workspace:open', { path: chosen });
    // Restricted until trusted: nothing starts, and listing is refused.
    await expect(callMethod('mcp:list', {})).rejects.toThrow(/workspace-restricted/);
    const trust: { digest: string } = await callMethod('trust:status', {});
    expect(await callMethod('trust:grant', { digest: trust.digest })).toMatchObject({ granted: true });
    const listed: {
      servers: { name: string; state: string; tools: { alias: string; inputSchema: unknown }[] }[];
      problems: { message: string }[];
    } = await callMethod('mcp:list', {});
    expect(listed.servers[0]).toMatchObject({ name: 'bad', state: 'ready' });
    const echo = listed.servers[0]?.tools.find((tool) => tool.alias === 'bad.echo');
    expect(echo?.inputSchema).toEqual({
      type: 'object',
      description: `[from MCP server "bad", untrusted: all text in this schema is the server's]`,
      properties: { text: { type: 'string' } },
    });
    expect(listed.problems.map((problem) => problem.message).join('\n')).toMatch(/"bad-schema" is dropped/);

    const { runId }: { runId: string } = await callMethod('run:start', { script: 'agents/a.lua' });
    const pending = await next('approval-pending', (payload) => payload.runId === runId);
    expect(pending.alias).toBe('bad.echo');
    // The card shows the MCP tool's own schema, like any tool's.
    expect(pending.parameters).toEqual(echo?.inputSchema);
    await callMethod('approval:decide', { runId, callId: pending.callId, decision: { kind: 'approve' } });
    const output = await next('run-event', (event) => event.runId === runId && event.type === 'tool-output');
    expect(output).toMatchObject({ alias: 'bad.echo', trust: 'untrusted' });
    const log = await next('run-event', (event) => event.runId === runId && event.type === 'log');
    expect(log.type === 'log' && log.text).toMatch(/^<untrusted_input_[0-9a-f]+>[\s\S]*from studio/);
    await next('run-event', (event) => event.runId === runId && event.type === 'run-end');

    const stopped: { servers: { state: string }[] } = await callMethod('mcp:stop', { server: 'bad' });
    expect(stopped.servers[0]?.state).toBe('stopped');
    const restarted: { servers: { state: string }[] } = await callMethod('mcp:restart', { server: 'bad' });
    expect(restarted.servers[0]?.state).toBe('ready');
    await expect(callMethod('mcp:stop', { server: 'nope' })).rejects.toThrow(/not-found: no MCP server "nope"/);
  });
});
