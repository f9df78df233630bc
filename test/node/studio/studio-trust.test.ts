import { TrustStore } from '../../../main/core/trust/trust-store.js';
import { currentConfigDir } from '../../../main/core/trust/config-dir.js';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type {
  ContractEventName,
  ContractEventPayload,
  ContractMethodName,
  ContractRequest,
  ContractResponse,
} from '../../../common/contract.js';
import type { IpcError } from '../../../common/contract-ipc.js';
import type { RunEvent } from '../../../common/run-events.js';
import { KeyringSecretStore } from '../../../main/core/credentials/keyring-secret-store.js';
import { createStudioHandlers, dispatchContractCall } from '../../../main/core/studio/studio-handlers.js';
import { StudioService } from '../../../main/core/studio/studio-service.js';
import { startScriptedServer, type ScriptedServer } from '../../fixtures/scripted-openai-server.js';
import { testPool } from '../run/run-harness.js';
import { approveKeyOriginForTests, trustForTests } from '../trust/trust-for-tests.js';
import { examples, standInPerson, type StandInPerson } from './studio-harness.js';
import { pressStandIn } from './press-stand-in.js';
import { NO_PRESS, type PersonPress } from '../../../main/core/studio/person-input.js';
import { quietLogger } from '../../fixtures/stubs.js';

/**
 * Workspace trust as the studio applies it, through the contract the renderer uses: a restricted
 * workspace starts no MCP server and runs no command, only the person (here a stand-in for them at
 * main's own dialog) can trust it, a change to what it runs or a revocation takes the trust away
 * and stops what it allowed, and a provider key goes to another origin only once it is approved.
 * The keychain is the real one (a throwaway keyring under `npm test`), under a service of this
 * run's own. Every wait is on an event: a pushed contract event, a run's end, or a server's life line.
 */

const MARKER_SERVER = path.resolve(path.dirname(fileURLToPath(import.meta.url)), 'fixtures/marker-mcp-server.mjs');
const suffix = `${process.pid}-${randomBytes(4).toString('hex')}`;
const store = new KeyringSecretStore({ service: `PromptForge Studio (trust test ${suffix})` });
const providerKey = `sk-canary-trust-${randomBytes(12).toString('hex')}`;

/**
 * A STAND-IN for the person at main's own confirmation dialog (Electron's message box): it records
 * each question and answers with the next answer the test queued, or no.
 */

/**
 * The servers' life lines: each marker server connects here as it starts and sends its pid; the
 * connection closes when its process is gone. Only events, no polling.
 */
class LifeLines {
  readonly connections: { pid: number; closed: Promise<void> }[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly waiters: (() => void)[] = [];
  private readonly server: Server;

  constructor() {
    this.server = createServer((socket) => {
      this.sockets.add(socket);
      const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
      socket.on('error', () => undefined);
      let text = '';
      socket.on('data', (chunk: Buffer) => {
        const known = text.includes('\n');
        text += chunk.toString('utf8');
        if (known || !text.includes('\n')) return;
        this.connections.push({ pid: Number(text.split('\n')[0]), closed });
        for (const wake of this.waiters.splice(0)) wake();
      });
    });
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as AddressInfo).port;
  }

  /** The `index`-th server to start (0 first), once it has. */
  async nth(index: number): Promise<{ pid: number; closed: Promise<void> }> {
    while (this.connections.length <= index) await new Promise<void>((resolve) => this.waiters.push(resolve));
    return this.connections[index]!;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

let lifeLines: LifeLines;
let port: number;
beforeAll(async () => {
  lifeLines = new LifeLines();
  port = await lifeLines.listen();
});
afterAll(() => lifeLines.close());

let services: StudioService[] = [];
afterEach(async () => {
  for (const service of services) await service.close();
  services = [];
});

/** One pushed contract event. */
interface Pushed {
  name: ContractEventName;
  payload: unknown;
}

/** A studio service with the real keychain and `person` at its dialog, driven through its contract. */
function trustStudio(person: StandInPerson = standInPerson()) {
  const pushed: Pushed[] = [];
  // What main's folder dialog answers, a stand-in: `openFolder` queues the folder it then opens.
  const folders: string[] = [];
  const waiters: (() => void)[] = [];
  const service = new StudioService({
    userDataDirectory: mkdtempSync(path.join(tmpdir(), 'pf-trust-studio-')),
    examplesDirectory: examples,
    secrets: store,
    pool: testPool(),
    confirmPerson: person.confirm,
    chooseFolder: async () => folders.shift() ?? null,
    emit: (name, payload) => {
      pushed.push({ name, payload });
      for (const wake of waiters.splice(0)) wake();
    },
  });
  services.push(service);
  const handlers = createStudioHandlers({ appName: 'test', appVersion: '0', userDataDirectory: '/', service });
  /** One call as the page makes it; `press`: the person's press that came with it (a stand-in by default). */
  const invoke = (method: ContractMethodName, request: unknown, press: PersonPress = pressStandIn()) =>
    dispatchContractCall(handlers, method, request, quietLogger, press);

  /** The first event `name` at or after position `from` of the pushed list for which `match` holds. */
  const next = async <E extends ContractEventName>(
    name: E,
    match: (payload: ContractEventPayload<E>) => boolean = () => true,
    from = 0,
  ): Promise<ContractEventPayload<E>> => {
    for (;;) {
      const seen = pushed.slice(from).find((p) => p.name === name && match(p.payload as ContractEventPayload<E>));
      if (seen) return seen.payload as ContractEventPayload<E>;
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  const runEvents = (runId: string): RunEvent[] =>
    pushed
      .filter((p) => p.name === 'run-event' && (p.payload as RunEvent).runId === runId)
      .map((p) => p.payload as RunEvent);

  return {
    person,
    pushed,
    /** Opens `folder` as the page does: main's folder dialog answers it, then `workspace:open`. */
    async openFolder(folder: string): Promise<ContractResponse<'workspace:open'>> {
      folders.push(folder);
      const chosen = await invoke('workspace:choose', {});
      if (!chosen.ok) throw new Error(`workspace:choose: ${chosen.error.message}`);
      const opened = await invoke('workspace:open', { path: (chosen.value as { path: string }).path });
      if (!opened.ok) throw new Error(`workspace:open: ${opened.error.code}: ${opened.error.message}`);
      return opened.value as ContractResponse<'workspace:open'>;
    },
    next,
    runEvents,
    /** Where the pushed list is now, to wait for what comes after. */
    mark: () => pushed.length,
    async call<M extends ContractMethodName>(
      method: M,
      request: ContractRequest<M>,
      press?: PersonPress,
    ): Promise<ContractResponse<M>> {
      const result = await invoke(method, request, press);
      if (!result.ok) throw new Error(`${method}: ${result.error.code}: ${result.error.message}`);
      return result.value as ContractResponse<M>;
    },
    async fail(method: ContractMethodName, request: unknown): Promise<IpcError> {
      const result = await invoke(method, request);
      if (result.ok) throw new Error(`${method} succeeded: ${JSON.stringify(result.value)}`);
      return result.error;
    },
    ended: (runId: string) =>
      next('run-event', (event) => event.runId === runId && event.type === 'run-end') as Promise<
        Extract<RunEvent, { type: 'run-end' }>
      >,
  };
}

function folder(prefix: string): string {
  return realpathSync(mkdtempSync(path.join(tmpdir(), prefix)));
}

/** A `kind: mcp` entry for a marker server that appends its pid to `marker` when it starts. */
function markerServerEntry(name: string, marker: string): string {
  return [
    `${name}:`,
    '  kind: mcp',
    '  description: tells the test when it starts',
    `  command: ${JSON.stringify(process.execPath)}`,
    `  args: [${JSON.stringify(MARKER_SERVER)}, ${JSON.stringify(marker)}, ${JSON.stringify(String(port))}]`,
    '',
  ].join('\n');
}

/**
 * A workspace whose tools.yaml has the MCP server `srv` (a marker server) and the command tool
 * `build`, which writes `ran` when it runs. The markers live outside the workspace.
 */
function mcpWorkspace(): { root: string; marker: string; ran: string; markers: string } {
  const root = folder('pf-trust-ws-');
  const markers = folder('pf-trust-markers-');
  const marker = path.join(markers, 'srv.started');
  const ran = path.join(markers, 'build.ran');
  mkdirSync(path.join(root, 'agents'));
  writeFileSync(
    path.join(root, 'tools.yaml'),
    [
      markerServerEntry('srv', marker),
      'build:',
      '  kind: command',
      '  description: writes a marker when it runs',
      `  command: [node, -e, "require('fs').writeFileSync(process.argv[1], 'ran')", ${JSON.stringify(ran)}]`,
      '  approval: ask',
      '',
    ].join('\n'),
  );
  return { root, marker, ran, markers };
}

/** The pids a marker file lists, one per start. */
function starts(marker: string): number[] {
  return existsSync(marker)
    ? readFileSync(marker, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map(Number)
    : [];
}

describe('a restricted workspace in the studio', () => {
  it('starts no MCP server: not on open, status, list, a tool trial or a new server on disk; only the person’s yes trusts it', async () => {
    const s = trustStudio();
    const { root, marker, markers } = mcpWorkspace();
    const startedBefore = lifeLines.connections.length;

    await s.openFolder(root);
    const opened = await s.next('trust-changed', (trust) => trust.path === root);
    expect(opened).toMatchObject({ state: 'restricted', changes: null });
    // A command tool's output is trusted by default: a policy of the workspace's own, shown too.
    expect(opened.items.map((item) => item.id)).toEqual(['command:build', 'mcp:srv', 'policy:build:trust']);

    expect(await s.call('mcp:status', {})).toEqual({ servers: [], problems: [] });
    expect(existsSync(marker)).toBe(false);
    const listed = await s.fail('mcp:list', {});
    expect(listed.code).toBe('workspace-restricted');
    expect(listed.message).toContain('restricted (not trusted)');
    expect(existsSync(marker)).toBe(false);
    const trial = await s.fail('tool:trial', { alias: 'srv.ping', arguments: {} });
    expect(trial.code).toBe('workspace-restricted');
    expect(trial.message).toContain('"srv.ping" would come from one of this workspace\'s MCP servers');
    expect(existsSync(marker)).toBe(false);

    // A new server written to tools.yaml on disk (an editor, a git pull) is read, and started by nobody.
    const other = path.join(markers, 'other.started');
    const from = s.mark();
    appendFileSync(path.join(root, 'tools.yaml'), markerServerEntry('other', other));
    const changed = await s.next('trust-changed', (trust) => trust.items.some((item) => item.id === 'mcp:other'), from);
    expect(changed.state).toBe('restricted');
    await s.next('workspace-changed', () => true, from);
    expect(await s.call('mcp:status', {})).toEqual({ servers: [], problems: [] });
    expect([existsSync(marker), existsSync(other)]).toEqual([false, false]);

    // The person says no: nothing is trusted, and the servers stay off.
    const shown = await s.call('trust:status', {});
    s.person.answers.push(false);
    expect(await s.call('trust:grant', { digest: shown.digest })).toMatchObject({
      granted: false,
      trust: { state: 'restricted', digest: shown.digest },
    });
    expect(s.person.questions).toHaveLength(1);
    expect(s.person.questions[0]).toMatchObject({ title: 'Trust this workspace?', confirm: 'Trust and allow' });
    expect(s.person.questions[0]!.message).toContain(root);
    for (const what of ['Command tool "build"', 'MCP server "srv"', 'MCP server "other"'])
      expect(s.person.questions[0]!.detail).toContain(what);
    expect((await s.call('trust:status', {})).state).toBe('restricted');
    expect((await s.fail('mcp:list', {})).code).toBe('workspace-restricted');

    // A manifest other than the one now on disk is refused before anyone is asked.
    const stale = await s.fail('trust:grant', { digest: '0'.repeat(64) });
    expect(stale.code).toBe('trust-changed');
    expect(s.person.questions).toHaveLength(1);

    // The person says yes: trusted. Trusting starts nothing either; listing does.
    s.person.answers.push(true);
    const granted = await s.call('trust:grant', { digest: shown.digest });
    expect(granted).toMatchObject({ granted: true, trust: { state: 'trusted', changes: null } });
    await s.next('trust-changed', (trust) => trust.state === 'trusted');
    expect(await s.call('mcp:status', {})).toMatchObject({ servers: [{ name: 'srv' }, { name: 'other' }] });
    expect([existsSync(marker), existsSync(other)]).toEqual([false, false]);
    expect(lifeLines.connections).toHaveLength(startedBefore);

    const servers = await s.call('mcp:list', {});
    expect(servers.servers.map((server) => [server.name, server.state])).toEqual([
      ['srv', 'ready'],
      ['other', 'ready'],
    ]);
    // Each started exactly once, now: no start before the trust was left behind in a marker.
    const [a, b] = [await lifeLines.nth(startedBefore), await lifeLines.nth(startedBefore + 1)];
    expect([...starts(marker), ...starts(other)].sort()).toEqual([a.pid, b.pid].sort());
    expect(lifeLines.connections).toHaveLength(startedBefore + 2);
  });

  it('refuses a command tool’s `approval: auto` call of a run without a card; the command never runs', async () => {
    const s = trustStudio();
    const root = folder('pf-trust-auto-');
    const ran = path.join(folder('pf-trust-markers-'), 'auto.ran');
    mkdirSync(path.join(root, 'agents'));
    writeFileSync(
      path.join(root, 'tools.yaml'),
      [
        'deploy:',
        '  kind: command',
        `  command: [node, -e, "require('fs').writeFileSync(process.argv[1], 'ran')", ${JSON.stringify(ran)}]`,
        '  approval: auto',
        '',
      ].join('\n'),
    );
    writeFileSync(
      path.join(root, 'agents', 'deploy.lua'),
      "local ok, err = pcall(tools.call, 'deploy', {})\nlog(tostring(ok) .. ': ' .. tostring(err))\n",
    );
    await s.openFolder(root);
    expect((await s.call('trust:status', {})).items.map((item) => item.id)).toEqual([
      'command:deploy',
      'policy:deploy:approval',
      'policy:deploy:trust',
    ]);

    const { runId } = await s.call('run:start', { script: 'agents/deploy.lua' });
    const end = await s.ended(runId);
    expect(end.status, JSON.stringify(end.error)).toBe('ok');
    const events = s.runEvents(runId);
    const logs = events.flatMap((event) => (event.type === 'log' ? [event.text] : []));
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(/^false: .*the workspace is restricted \(not trusted\), and its command tools do not run/);
    const decisions = events.flatMap((event) => (event.type === 'approval-decision' ? [event.decision] : []));
    expect(decisions).toMatchObject([{ kind: 'deny', source: 'policy' }]);
    // No card: nobody was asked, and nothing is waiting.
    expect(s.pushed.filter((p) => p.name === 'approval-pending')).toEqual([]);
    expect(await s.call('approval:list', {})).toEqual([]);
    expect(existsSync(ran)).toBe(false);
  });
});

describe('trust that ends', () => {
  it('a tools.yaml change after trust: trust-changed says restricted and what changed, and the shared MCP manager is gone', async () => {
    const s = trustStudio();
    const { root, markers } = mcpWorkspace();
    await trustForTests(root);
    await s.openFolder(root);
    expect((await s.call('trust:status', {})).state).toBe('trusted');
    const startedBefore = lifeLines.connections.length;
    expect((await s.call('mcp:list', {})).servers.map((server) => server.state)).toEqual(['ready']);
    const running = await lifeLines.nth(startedBefore);

    const other = path.join(markers, 'other.started');
    const from = s.mark();
    appendFileSync(path.join(root, 'tools.yaml'), markerServerEntry('other', other));
    const changed = await s.next('trust-changed', (trust) => trust.state === 'restricted', from);
    expect(changed.changes).toEqual([
      {
        change: 'added',
        id: 'mcp:other',
        text: expect.stringMatching(/^Added: MCP server "other"\. runs: .*marker-mcp-server\.mjs/),
      },
    ]);
    // The running server is stopped (its process is gone), and nothing replaces it.
    await running.closed;
    expect(await s.call('mcp:status', {})).toEqual({ servers: [], problems: [] });
    expect((await s.fail('mcp:list', {})).code).toBe('workspace-restricted');
    expect(existsSync(other)).toBe(false);
    expect(lifeLines.connections).toHaveLength(startedBefore + 1);
  });

  it('trust:revoke stops the running server and refuses the call waiting for the person', async () => {
    const s = trustStudio();
    const { root, ran } = mcpWorkspace();
    await trustForTests(root);
    await s.openFolder(root);
    const startedBefore = lifeLines.connections.length;
    await s.call('mcp:list', {});
    const running = await lifeLines.nth(startedBefore);

    const { runId } = await s.call('tool:trial', { alias: 'build', arguments: {} });
    const card = await s.next('approval-pending', (pending) => pending.runId === runId);

    const list = await s.call('trust:revoke', { path: root });
    expect(list.workspaces.map((entry) => entry.path)).not.toContain(root);
    await running.closed;
    await s.next('approval-resolved', (resolved) => resolved.callId === card.callId);
    const end = await s.ended(runId);
    expect(end.status).toBe('error');
    expect(end.error?.message).toContain('trust in this workspace was revoked');
    expect(existsSync(ran)).toBe(false);
    expect(await s.call('trust:status', {})).toMatchObject({ state: 'restricted' });
    expect(await s.call('mcp:status', {})).toEqual({ servers: [], problems: [] });
    expect(await s.call('approval:list', {})).toEqual([]);
  });
});

describe('trust judged again before anything starts', () => {
  it('an argument check of an MCP alias starts no server once the CLI revoked the trust', async () => {
    const s = trustStudio();
    const { root, marker } = mcpWorkspace();
    await trustForTests(root);
    await s.openFolder(root);
    // Revoked in another process (the CLI) while the studio is open: the check starts nothing.
    await new TrustStore(currentConfigDir()).revokeWorkspace(root, 'terminal');
    await s.fail('args:check', { alias: 'srv.ping', arguments: {} });
    expect(starts(marker)).toEqual([]);
    expect(await s.call('trust:status', {})).toMatchObject({ state: 'restricted' });
  });
});

describe('the example workspace', () => {
  it('is trusted when first copied; a file it runs changed on disk (no catalog file) restricts it at the next run', async () => {
    const s = trustStudio();
    const { root } = await s.call('workspace:open-example', {});
    expect(await s.call('trust:status', {})).toMatchObject({ state: 'trusted', path: realpathSync(root) });
    expect((await s.call('trust:list', {})).workspaces.map((entry) => entry.path)).toContain(realpathSync(root));
    // Trusted: its `approval: auto` command tool runs without asking.
    const trusted = await s.call('tool:trial', { alias: 'weather', arguments: { city: 'Oslo' } });
    expect((await s.ended(trusted.runId)).status).toBe('ok');

    // tools/weather.mjs is not a catalog file (the watcher does not see it), but its bytes are trusted.
    const from = s.mark();
    appendFileSync(path.join(root, 'tools', 'weather.mjs'), '\n// changed after it was trusted\n');
    const refused = await s.call('tool:trial', { alias: 'weather', arguments: { city: 'Oslo' } });
    const end = await s.ended(refused.runId);
    expect(end.status).toBe('error');
    expect(end.error?.message).toContain('the workspace is restricted (not trusted)');
    expect(s.pushed.filter((p) => p.name === 'approval-pending')).toEqual([]);
    const changed = await s.next('trust-changed', (trust) => trust.state === 'restricted', from);
    expect(changed.changes).toEqual([
      {
        change: 'changed',
        id: 'file:tools/weather.mjs',
        text: 'Changed: the contents of tools/weather.mjs, which is run.',
      },
    ]);

    // Opened again, the copy that exists is not trusted again: only the first copy is.
    await s.call('workspace:open-example', {});
    expect((await s.call('trust:status', {})).state).toBe('restricted');
  });
});

describe('a provider key and a base URL of another origin', () => {
  let model: ScriptedServer;
  beforeAll(async () => {
    model = await startScriptedServer(() => ({ content: 'hello from the other origin' }));
    await store.set('openai', providerKey);
  });
  afterAll(async () => {
    await model.close();
    await store.delete('openai');
  });

  /** A workspace whose default model sends OpenAI requests to the loopback server; `extra` goes in tools.yaml. */
  function modelWorkspace(tools?: string): string {
    const root = folder('pf-trust-model-');
    mkdirSync(path.join(root, 'agents'));
    writeFileSync(path.join(root, 'promptforge.yaml'), 'defaultModel: elsewhere\n');
    writeFileSync(
      path.join(root, 'models.yaml'),
      `elsewhere:\n  provider: openai\n  model: gpt-test\n  baseUrl: ${model.url}\n`,
    );
    if (tools !== undefined) writeFileSync(path.join(root, 'tools.yaml'), tools);
    writeFileSync(
      path.join(root, 'agents', 'chat.lua'),
      "local reply = models.chat({ { role = 'user', content = 'hi' } })\nlog(reply.content)\n",
    );
    return root;
  }

  const origin = () => new URL(model.url).origin;

  async function chat(s: ReturnType<typeof trustStudio>) {
    const { runId } = await s.call('run:start', { script: 'agents/chat.lua' });
    return { end: await s.ended(runId), logs: s.runEvents(runId).flatMap((e) => (e.type === 'log' ? [e.text] : [])) };
  }

  it('a restricted workspace never asks and sends no key until the origin is approved; withdrawn, it sends none again', async () => {
    const s = trustStudio();
    const root = modelWorkspace('build:\n  kind: command\n  command: [node, -e, "0"]\n');
    await s.openFolder(root);
    expect((await s.call('trust:status', {})).state).toBe('restricted');
    const requestsBefore = model.requests.length;

    const refused = await chat(s);
    expect(refused.end.status).toBe('error');
    expect(refused.end.error?.message).toContain(`model "elsewhere" sends requests to ${origin()}`);
    expect(refused.end.error?.message).toContain(
      'The workspace is restricted (not trusted), so it cannot ask for that',
    );
    expect(s.person.questions).toEqual([]);
    expect(model.requests.length).toBe(requestsBefore);

    await approveKeyOriginForTests('openai', model.url);
    const sent = await chat(s);
    expect(sent.end.status, JSON.stringify(sent.end.error)).toBe('ok');
    expect(sent.logs).toEqual(['hello from the other origin']);
    expect(model.authHeaders.slice(requestsBefore)).toEqual([`Bearer ${providerKey}`]);

    await s.call('trust:revoke-key-origin', { provider: 'openai', origin: origin() });
    expect((await chat(s)).end.status).toBe('error');
    expect(model.requests.length).toBe(requestsBefore + 1);
    expect(s.person.questions).toEqual([]);
  });

  it('a workspace with nothing to trust asks when the person starts a run: a no sends nothing and is not asked again; Allow in Trust asks, and a yes sends the key', async () => {
    const s = trustStudio();
    const root = modelWorkspace();
    await s.openFolder(root);
    expect((await s.call('trust:status', {})).state).toBe('empty');
    const requestsBefore = model.requests.length;

    s.person.answers.push(false);
    const refused = await chat(s);
    expect(refused.end.status).toBe('error');
    expect(refused.end.error?.message).toContain(`your OpenAI key goes only to https://api.openai.com`);
    expect(refused.end.error?.message).toContain("You said no to this in the studio's dialog");
    // The studio's words: its own view, never the CLI's command.
    expect(refused.end.error?.message).toContain(
      'approve that origin for the key: Allow for model "elsewhere" in the Trust view',
    );
    expect(refused.end.error?.message).not.toContain('promptforge trust');
    expect(model.requests.length).toBe(requestsBefore);
    expect(s.person.questions).toMatchObject([
      { title: `Send elsewhere's requests to ${origin()}?`, confirm: 'Send them there' },
    ]);

    // The no is remembered for this workspace, provider and origin: the next run (a press of its
    // own, as a page riding on the person's keys would have) is refused without a question.
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const again = await chat(s);
      expect(again.end.error?.message).toContain("You said no to this in the studio's dialog");
    }
    expect(s.person.questions).toHaveLength(1);
    expect(model.requests.length).toBe(requestsBefore);
    expect((await s.call('trust:list', {})).wantedKeyOrigins).toEqual([
      { model: 'elsewhere', provider: 'openai', label: 'OpenAI', origin: origin(), declined: true },
    ]);

    // The person acts: Allow in the Trust view asks in main's dialog again.
    s.person.answers.push(true);
    const allowed = await s.call('trust:allow-key-origin', { model: 'elsewhere' });
    expect(allowed.allowed).toBe(true);
    expect(allowed.list.wantedKeyOrigins).toEqual([]);
    expect(allowed.list.keyOrigins).toContainEqual(
      expect.objectContaining({ provider: 'openai', label: 'OpenAI', origin: origin() }),
    );
    expect(s.person.questions).toHaveLength(2);
    const sent = await chat(s);
    expect(sent.end.status, JSON.stringify(sent.end.error)).toBe('ok');
    expect(model.authHeaders.slice(requestsBefore)).toEqual([`Bearer ${providerKey}`]);
    // Kept: the next run does not ask again.
    expect((await chat(s)).end.status).toBe('ok');
    expect(s.person.questions).toHaveLength(2);

    await s.call('trust:revoke-key-origin', { provider: 'openai', origin: origin() });
    // Nothing of the key reached a pushed event.
    expect(JSON.stringify(s.pushed)).not.toContain(providerKey);
  });

  it('asks only while the call the person’s press came with is served: no press, or a model picked mid-run, is refused, not asked', async () => {
    const s = trustStudio();
    const root = modelWorkspace();
    // A second model at the provider's own origin, and an agent that picks "elsewhere" in its middle.
    appendFileSync(path.join(root, 'models.yaml'), 'home:\n  provider: openai\n  model: gpt-test\n');
    writeFileSync(
      path.join(root, 'agents', 'pick.lua'),
      "log('started')\nlocal reply = models.chat({ { role = 'user', content = 'hi' } }, { model = 'elsewhere' })\nlog(reply.content)\n",
    );
    await s.openFolder(root);
    const requestsBefore = model.requests.length;

    // A run started with no press of the person (a page script): refused at its first request.
    const unasked = await s.ended((await s.call('run:start', { script: 'agents/chat.lua' }, NO_PRESS)).runId);
    expect(unasked.status).toBe('error');
    expect(unasked.error?.message).toContain(
      'The studio asks about a new destination only when you start a run yourself (Run, or Fork), never in the middle of one.',
    );

    // Started by the person with a model at home; the script picks "elsewhere" after the start was answered.
    const { runId } = await s.call('run:start', { script: 'agents/pick.lua', model: 'home' });
    const midRun = await s.ended(runId);
    expect(s.runEvents(runId).flatMap((event) => (event.type === 'log' ? [event.text] : []))).toEqual(['started']);
    expect(midRun.status).toBe('error');
    expect(midRun.error?.message).toContain(`model "elsewhere" sends requests to ${origin()}`);
    expect(midRun.error?.message).toContain('never in the middle of one');
    expect(s.person.questions).toEqual([]);
    expect(model.requests.length).toBe(requestsBefore);
    // Nothing is listed as declined: nobody said no.
    expect((await s.call('trust:list', {})).wantedKeyOrigins).toEqual([
      { model: 'elsewhere', provider: 'openai', label: 'OpenAI', origin: origin(), declined: false },
    ]);
  });

  it('Allow in Trust needs a press and names a model of the open workspace', async () => {
    const s = trustStudio();
    await s.openFolder(modelWorkspace());
    expect((await s.fail('trust:allow-key-origin', { model: 'nope' })).code).toBe('unknown-model');
    expect(await s.call('trust:allow-key-origin', { model: 'elsewhere' }, NO_PRESS).catch(String)).toContain(
      'no-person-input',
    );
    expect(s.person.questions).toEqual([]);
  });
});
