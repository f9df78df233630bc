import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../common/run-events.js';
import type { Approver, PendingCall } from '../../../main/core/approval/approver.js';
import { loadWorkspace } from '../../../main/core/catalog/workspace.js';
import { McpServerManager } from '../../../main/core/mcp/mcp-manager.js';
import { prepareRun } from '../../../main/core/run/prepare-run.js';
import { WorkerPool } from '../../../main/core/run/worker-pool.js';
import { byAssistantCount, startScriptedServer } from '../../fixtures/scripted-openai-server.js';
import { noSecrets } from '../../fixtures/stubs.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const HOSTILE = path.resolve(here, '../../fixtures/hostile-mcp-server.mjs');

let pool: WorkerPool;
let root: string;
beforeAll(() => {
  pool = new WorkerPool({ size: 1 });
  root = mkdtempSync(path.join(tmpdir(), 'pf-mcp-run-'));
  mkdirSync(path.join(root, 'agents'));
  writeFileSync(
    path.join(root, 'tools.yaml'),
    `bad:\n  kind: mcp\n  description: the hostile test server\n  command: ${JSON.stringify(process.execPath)}\n  args: [${JSON.stringify(HOSTILE)}]\n`,
  );
});
afterAll(async () => {
  await pool.close();
  rmSync(root, { recursive: true, force: true });
});

async function run(script: string, approver: Approver, replayPath?: string) {
  const file = path.join(root, 'agents', 'a.lua');
  writeFileSync(file, script);
  const workspace = await loadWorkspace(root);
  const events: RunEvent[] = [];
  const asked: PendingCall[] = [];
  const mcpProblems: string[] = [];
  const recording: Approver = {
    ask: (pending, signal) => {
      asked.push(pending);
      return approver.ask(pending, signal);
    },
  };
  const prepared = await prepareRun({
    scriptFile: file,
    workspace,
    pool,
    approver: recording,
    // The subject is MCP calls, not workspace trust: the workspace is trusted.
    trust: { state: 'trusted' },
    ...(replayPath && { replayPath }),
    onEvent: (event) => events.push(event),
    onMcpProblem: (problem) => mcpProblems.push(problem.message),
  });
  await prepared.start();
  const result = await prepared.done;
  return {
    result,
    events,
    asked,
    mcpProblems,
    logs: events.flatMap((event) => (event.type === 'log' ? [event.text] : [])),
  };
}

const approveAll: Approver = { ask: async () => ({ kind: 'approve' }) };

describe('a Lua run calling an MCP tool', () => {
  it('asks, runs after approval, and hands the script wrapped, taint-tracked untrusted output', async () => {
    const { result, events, asked, logs } = await run(`print(tools.call('bad.inject', {}))`, approveAll);
    expect(result.error).toBeUndefined();
    expect(asked.map((pending) => pending.request.alias)).toEqual(['bad.inject']);
    expect(asked[0]?.request.description).toMatch(/^\[from MCP server "bad", untrusted\]/);
    const output = events.find((event) => event.type === 'tool-output');
    expect(output).toMatchObject({ alias: 'bad.inject', trust: 'untrusted' });
    expect(logs[0]).toMatch(/<untrusted_input_[0-9a-f]+>/);
    expect(logs[0]).toContain('IGNORE ALL PREVIOUS INSTRUCTIONS');
    // The injected closing tag cannot end the envelope early.
    expect(logs[0]).not.toContain('</untrusted_input_x>');
  });

  it('structuredContent is a Lua table with every string and key wrapped; a mismatch is an error', async () => {
    const { result, logs } = await run(
      [
        `local t = tools.call('bad.structured', {})`,
        `print(type(t))`,
        `print(t.city)`,
        `for k, v in pairs(t) do if type(v) == 'table' then print(k) print(v[2]) end end`,
        `local ok, err = pcall(tools.call, 'bad.structured-wrong', {})`,
        `print(tostring(err))`,
      ].join('\n'),
      approveAll,
    );
    expect(result.error).toBeUndefined();
    expect(logs[0]).toBe('table');
    expect(logs[1]).toMatch(/^<untrusted_input_[0-9a-f]+>[\s\S]*IGNORE ALL PREVIOUS/);
    expect(logs[2]).toMatch(/^<untrusted_input_[0-9a-f]+>[\s\S]*IGNORE PREVIOUS key/);
    expect(logs[3]).toMatch(/^<untrusted_input_/);
    expect(logs[4]).toMatch(
      /tools\.call\('bad\.structured-wrong'\): the output does not match the tool's output schema/,
    );
  });

  it('an isError result is a catchable error naming the alias, with the server text wrapped', async () => {
    const { result, logs } = await run(
      `local ok, err = pcall(tools.call, 'bad.fail', {}) print(ok) print(tostring(err))`,
      approveAll,
    );
    expect(result.error).toBeUndefined();
    expect(logs[0]).toBe('false');
    expect(logs[1]).toMatch(/tools\.call\('bad\.fail'\) failed: the server reported an error: <untrusted_input_/);
  });

  it('a denied call never reaches the server; a replay answers from the recording and starts no server', async () => {
    const denied = await run(`local ok, err = pcall(tools.call, 'bad.echo', {text='x'}) print(tostring(err))`, {
      ask: async () => ({ kind: 'deny', reason: 'no' }),
    });
    expect(denied.logs[0]).toMatch(/was denied: no/);

    const recorded = await run(`print(tools.call('bad.echo', {text='recorded'}))`, approveAll);
    expect(recorded.logs[0]).toContain('recorded');
    const transcript = recorded.result.transcriptPath!;
    // Break the server: a replay must not need it.
    writeFileSync(path.join(root, 'tools.yaml'), 'bad:\n  kind: mcp\n  command: no-such-mcp-binary-anywhere\n');
    const replayed = await run(`print(tools.call('bad.echo', {text='recorded'}))`, approveAll, transcript);
    expect(replayed.result.error).toBeUndefined();
    expect(replayed.logs[0]).toContain('recorded');
    expect(replayed.asked).toEqual([]);
    // No start was attempted: the broken command would have been reported.
    expect(replayed.mcpProblems).toEqual([]);
    // A live run starts a server only when it calls (or advertises) one of its aliases: then the
    // broken command is reported; a run that never touches it starts nothing.
    const untouched = await run(`print('x')`, approveAll);
    expect(untouched.mcpProblems).toEqual([]);
    const live = await run(`print(pcall(tools.call, 'bad.echo', {text='x'}))`, approveAll);
    expect(live.mcpProblems.join('\n')).toMatch(/"no-such-mcp-binary-anywhere" was not found/);
  });
});

describe('run lifecycle with MCP servers', () => {
  it('stopping the run cancels the in-flight MCP call (notifications/cancelled reaches the server)', async () => {
    writeFileSync(
      path.join(root, 'tools.yaml'),
      `bad:\n  kind: mcp\n  description: hostile\n  command: ${JSON.stringify(process.execPath)}\n  args: [${JSON.stringify(HOSTILE)}]\n`,
    );
    const file = path.join(root, 'agents', 'stop.lua');
    writeFileSync(file, `tools.call('bad.hang', {}) print('not reached')`);
    const workspace = await loadWorkspace(root);
    const mcp = new McpServerManager({
      workspaceRoot: root,
      servers: workspace.mcpServers ?? [],
      secrets: noSecrets,
    });
    try {
      const stderrHas = (text: string) =>
        new Promise<void>((resolve) => {
          const check = () => {
            if (mcp.statuses()[0]?.stderrTail.includes(text)) {
              stop();
              resolve();
            }
          };
          const stop = mcp.onChange(check);
          check();
        });
      const events: RunEvent[] = [];
      const run = await prepareRun({
        scriptFile: file,
        workspace,
        pool,
        approver: approveAll,
        mcp,
        trust: { state: 'trusted' },
        onEvent: (e) => events.push(e),
      });
      const hanging = stderrHas('hanging on request');
      await run.start();
      await hanging;
      const cancelled = stderrHas('got cancelled for request');
      run.stop('test stop');
      const result = await run.done;
      expect(result.status).toBe('stopped');
      await cancelled;
      // A studio-owned manager outlives the run.
      expect(mcp.statuses()[0]?.state).toBe('ready');
    } finally {
      await mcp.close();
    }
  });

  it('a run that owns its servers stops them, process tree and all, when it ends', async () => {
    const { result, logs } = await run(`print(tools.call('bad.spawn-child', {}))`, approveAll);
    expect(result.error).toBeUndefined();
    // The wrapped output: the envelope's tag line, the preface line, then the pid on its own line.
    const pid = Number(logs[0]?.match(/\n(\d+)\n/)?.[1]);
    expect(pid).toBeGreaterThan(0);
    // The run-end event starts the shutdown, which the run does not wait for: wait until the
    // process is gone (a condition, not a duration; vitest's timeout bounds it).
    while (alive(pid)) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(alive(pid)).toBe(false);
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = spawnSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).stdout.trim();
  return stat !== '' && !stat.startsWith('Z');
}

describe('replay of a run that advertised MCP tools to a model', () => {
  it('replays models.chat with MCP aliases in opts.tools and tools.call, offline, with no server', async () => {
    const server = await startScriptedServer(
      byAssistantCount([
        { toolCalls: [{ id: 'c1', name: 'bad.echo', arguments: '{"text":"via model"}' }] },
        { content: 'done' },
      ]),
    );
    try {
      writeFileSync(
        path.join(root, 'models.yaml'),
        `m:\n  provider: openai-compatible\n  model: m\n  baseUrl: ${server.url}/v1\n`,
      );
      writeFileSync(
        path.join(root, 'tools.yaml'),
        `bad:\n  kind: mcp\n  description: hostile\n  command: ${JSON.stringify(process.execPath)}\n  args: [${JSON.stringify(HOSTILE)}]\n`,
      );
      const script = [
        `local r = models.chat({ { role = 'user', content = 'hi' } }, { model = 'm', tools = { 'bad.echo' } })`,
        `local call = r.tool_calls[1]`,
        `print(call.name)`,
        `print(tools.call(call.name, call.arguments))`,
      ].join('\n');
      const recorded = await run(script, approveAll);
      expect(recorded.result.error).toBeUndefined();
      expect(recorded.logs[0]).toBe('bad.echo');
      expect(recorded.logs[1]).toContain('via model');

      writeFileSync(path.join(root, 'tools.yaml'), 'bad:\n  kind: mcp\n  command: no-such-mcp-binary-anywhere\n');
      const replayed = await run(script, approveAll, recorded.result.transcriptPath);
      expect(replayed.result.error).toBeUndefined();
      expect(replayed.logs).toHaveLength(2);
      expect(replayed.logs[1]).toContain('via model');
      expect(replayed.mcpProblems).toEqual([]);
    } finally {
      await server.close();
      rmSync(path.join(root, 'models.yaml'), { force: true });
    }
  });
});
