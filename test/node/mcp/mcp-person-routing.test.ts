import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { UNSAFE_FOR_TERMINAL } from '../cli/spawn-cli.js';
import type { ElicitationAnswer, PendingElicitation } from '../../../common/mcp-person.js';
import type { RunEventBody } from '../../../common/run-events.js';
import { buildWorkspace } from '../../../main/core/catalog/workspace.js';
import { McpServerManager } from '../../../main/core/mcp/mcp-manager.js';
import { McpPersonSession } from '../../../main/core/mcp/mcp-person-session.js';
import { PendingElicitations, QueueElicitor } from '../../../main/core/mcp/pending-questions.js';
import { noSecrets } from '../../fixtures/stubs.js';

/**
 * Which run a server's question belongs to, through the real manager and a hostile server
 * (fixtures/asking-server.mjs): charged to the one run with a call in flight, declined when two
 * runs have calls in flight (the server cannot be told apart) or none has (the call ended).
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const ASKING = path.join(here, 'fixtures/asking-server.mjs');

const managers: McpServerManager[] = [];
afterEach(async () => {
  for (const manager of managers.splice(0)) await manager.close();
});

function manager(): McpServerManager {
  const workspace = buildWorkspace(here, {
    'tools.yaml': `ask:\n  kind: mcp\n  command: ${JSON.stringify(process.execPath)}\n  args: [${JSON.stringify(ASKING)}]\n`,
  });
  const made = new McpServerManager({
    workspaceRoot: here,
    servers: workspace.mcpServers ?? [],
    secrets: noSecrets,
  });
  managers.push(made);
  return made;
}

function session(runId: string, queue: PendingElicitations) {
  const events: RunEventBody[] = [];
  return {
    events,
    session: new McpPersonSession({
      runId,
      nonce: '0'.repeat(32),
      emit: (event) => events.push(event),
      currentCall: () => ({ callId: 'call-1', alias: 'ask.race' }),
      elicitor: new QueueElicitor(queue),
    }),
  };
}

const never = new AbortController().signal;

describe('routing a server question to a run', () => {
  it('two runs with calls in flight: the question is declined, nobody is asked, and both calls get the decline', async () => {
    const mcp = manager();
    await mcp.listTools();
    const queue = new PendingElicitations();
    const asked: PendingElicitation[] = [];
    queue.subscribe((event) => event.type === 'pending' && asked.push(event.pending));
    const a = session('run-a', queue);
    const b = session('run-b', queue);
    const [first, second] = await Promise.all([
      mcp.callTool('ask', 'race', {}, never, 30_000, a.session),
      mcp.callTool('ask', 'race', {}, never, 30_000, b.session),
    ]);
    expect(first).toBe('{"action":"decline"}');
    expect(second).toBe('{"action":"decline"}');
    expect(asked).toEqual([]);
    expect(mcp.statuses()[0]!.stderrTail).toContain(
      'declined an elicitation: several runs have calls in flight to this server, so the host cannot tell which one it asks for',
    );
  });

  it('a question that arrives after its call ended is declined (and nobody is asked)', async () => {
    const mcp = manager();
    await mcp.listTools();
    const queue = new PendingElicitations();
    const asked: PendingElicitation[] = [];
    queue.subscribe((event) => event.type === 'pending' && asked.push(event.pending));
    const { session: run } = session('run-a', queue);
    expect(await mcp.callTool('ask', 'late', {}, never, 30_000, run)).toBe('done');
    await expect
      .poll(() => mcp.statuses()[0]!.stderrTail)
      .toContain('declined an elicitation: no run has a call in flight to this server');
    // Asked with no call in flight (this listing is no run's call): the server got the decline.
    // The decline is noted before it is answered, so the answer may reach the server a moment later.
    await expect.poll(() => mcp.callTool('ask', 'late-answers', {}, never, 30_000)).toBe('[{"action":"decline"}]');
    expect(asked).toEqual([]);
  });

  it("a question still waiting when its call ends is withdrawn from the person's queue and answered cancel", async () => {
    const mcp = manager();
    await mcp.listTools();
    const queue = new PendingElicitations();
    const resolved: (ElicitationAnswer | { cancelled: string })[] = [];
    const stop = new AbortController();
    queue.subscribe((event) => {
      // The run is stopped while its question waits.
      if (event.type === 'pending') stop.abort(new Error('the run was stopped'));
      else resolved.push(event.answer);
    });
    const { session: run, events } = session('run-a', queue);
    await expect(mcp.callTool('ask', 'elicit', { variant: 'form' }, stop.signal, 30_000, run)).rejects.toThrow(
      /cancelled: the run was stopped/,
    );
    await expect.poll(() => resolved.length).toBe(1);
    expect(resolved[0]).toEqual({ cancelled: 'the call it came with ended' });
    expect(queue.list()).toEqual([]);
    await expect.poll(() => events.length).toBe(1);
    expect(events[0]).toMatchObject({ type: 'mcp-elicitation', action: 'cancel', source: 'policy' });
  });
});

describe("a server's resources and prompts, listed", () => {
  it('names, descriptions and templates are cleaned of control characters; the listing follows list_changed', async () => {
    const mcp = manager();
    const resources = await mcp.listResources('ask');
    const uris = resources.entries.map((entry) => entry.uri);
    expect(uris).toEqual([
      'text://hello',
      'bin://blob',
      'huge://stdio',
      'file:///etc/passwd',
      'text://evil',
      'text://{name}',
    ]);
    const evil = resources.entries.find((entry) => entry.uri === 'text://evil')!;
    expect(evil.name).toBe('evil[2J]0;pwnedevil');
    expect(evil.description).not.toMatch(UNSAFE_FOR_TERMINAL);
    expect(resources.entries.at(-1)).toMatchObject({ template: true, name: 'any text' });
    const prompts = await mcp.listPrompts('ask');
    expect(prompts.entries).toEqual([
      { name: 'greet', description: 'Greets. [2J]0;pwnedevil', arguments: [{ name: 'name', required: true }] },
    ]);
    // The server changes its resources: the studio hears of it, and the listing is fresh.
    const changes: { what: string; uri?: string }[] = [];
    mcp.onListChanged((change) => changes.push({ what: change.what, ...(change.uri && { uri: change.uri }) }));
    await mcp.callTool('ask', 'relist', {}, never, 30_000);
    await expect.poll(() => changes.length).toBe(2);
    expect(changes).toContainEqual({ what: 'resources' });
    expect(changes).toContainEqual({ what: 'resource-updated', uri: 'text://hello' });
    expect((await mcp.listResources('ask')).entries.map((entry) => entry.uri)).toContain('text://added');
  });
});
