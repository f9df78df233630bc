/**
 * The run's catalog (main/core/run/run-catalog.ts): a call of an alias whose MCP server's files
 * changed since the run started is refused, naming the files, and not with "unknown tool" or the
 * server's last failure from before.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../common/run-events.js';
import { loadWorkspace } from '../../../main/core/catalog/workspace.js';
import { prepareRun } from '../../../main/core/run/prepare-run.js';
import { WorkerPool } from '../../../main/core/run/worker-pool.js';

let pool: WorkerPool;
let root: string;
beforeAll(() => {
  pool = new WorkerPool({ size: 1 });
  root = mkdtempSync(path.join(tmpdir(), 'pf-run-catalog-'));
});
afterAll(async () => {
  await pool.close();
  rmSync(root, { recursive: true, force: true });
});

describe("a run's catalog", () => {
  it('refuses a server whose files changed since the run started, naming them, before any start', async () => {
    mkdirSync(path.join(root, 'agents'));
    const server = path.join(root, 'server.mjs');
    // Never started: the refusal comes first. Its text would fail a start at once.
    writeFileSync(server, 'process.exit(3);\n');
    writeFileSync(
      path.join(root, 'tools.yaml'),
      `srv:\n  kind: mcp\n  command: ${JSON.stringify(process.execPath)}\n  args: [server.mjs]\n`,
    );
    const file = path.join(root, 'agents', 'a.lua');
    writeFileSync(file, `local ok, err = pcall(tools.call, 'srv.anything', {}) log(tostring(err))`);
    const events: RunEvent[] = [];
    const problems: string[] = [];
    const prepared = await prepareRun({
      scriptFile: file,
      workspace: await loadWorkspace(root),
      pool,
      approver: { ask: async () => ({ kind: 'approve' }) },
      trust: { state: 'trusted' },
      onMcpProblem: (problem) => problems.push(problem.message),
      onEvent: (event) => {
        events.push(event);
        // The file changes once the run has started, before the script's first call.
        if (event.type === 'run-start') writeFileSync(server, 'process.exit(4);\n');
      },
    });
    await prepared.start();
    expect((await prepared.done).error).toBeUndefined();
    const errors = events.filter((event) => event.type === 'tool-error');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ alias: 'srv.anything', stage: 'unknown-tool' });
    expect(errors[0]).not.toHaveProperty('signIn');
    expect(errors[0]!.message).toMatch(
      /^tools\.call: tool "srv\.anything" is not available: MCP server "srv": server\.mjs changed since this run started, so it does not run/,
    );
    expect(problems).toEqual([expect.stringContaining('server.mjs changed since this run started')]);
  });
});
