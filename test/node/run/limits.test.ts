import { describe, expect, it } from 'vitest';
import type { ApprovalDecision, ApprovalGate, ApprovalRequest } from '../../../main/core/approval/approval-types.js';
import { runScript, startScript } from './run-harness.js';

/** Counts event-loop ticks of this (the host's) thread while `work` runs. */
async function withTicks<T>(work: () => Promise<T>): Promise<{ value: T; ticks: number }> {
  let ticks = 0;
  const timer = setInterval(() => (ticks += 1), 5);
  try {
    const value = await work();
    return { value, ticks };
  } finally {
    clearInterval(timer);
  }
}

const CPU = { cpuMs: 400 };

describe('runaway scripts are stopped by their limits while the host keeps ticking', () => {
  const cpuCases: [string, string][] = [
    ['while true do end', 'while true do end'],
    ['a loop wrapped in pcall', 'while true do pcall(function() while true do end end) end'],
    ['backtracking string.find (no Lua hook fires)', `string.find(string.rep('a', 5000), string.rep('a*', 40) .. 'b')`],
    ['a busy loop that keeps catching errors', `while true do pcall(error, 'x') end`],
  ];
  it.each(cpuCases)('%s → CPU limit', async (_name, script) => {
    const { value: h, ticks } = await withTicks(() => runScript(script, { overrides: { limits: CPU } }));
    expect(h.result.status).toBe('limit');
    expect(h.result.error?.kind).toBe('cpu');
    expect(h.result.error?.message).toBe(
      'CPU limit of 0.4 s exceeded (the script computed without returning to the host)',
    );
    expect(h.result.cpuMs).toBeGreaterThanOrEqual(400);
    // The main thread was never blocked: its timer kept firing while the script ran (a blocked
    // thread fires none until the run ends; the count is kept low so a busy machine passes too).
    expect(ticks).toBeGreaterThanOrEqual(5);
    expect(h.events.at(-1)?.type).toBe('run-end');
  });

  it('a table bomb → memory limit, with a clear error', async () => {
    const { value: h, ticks } = await withTicks(() =>
      runScript(`local t = {} for i = 1, 1e9 do t[i] = { i, tostring(i) } end`, {
        overrides: { limits: { memoryBytes: 16 * 1024 * 1024 } },
      }),
    );
    expect(h.result.status).toBe('limit');
    expect(h.result.error?.kind).toBe('memory');
    expect(h.result.error?.message).toBe('not enough memory (the Lua heap limit is 16 MiB)');
    expect(ticks).toBeGreaterThan(0);
  });

  it('string.rep of a huge count → memory limit', async () => {
    const h = await runScript(`local s = string.rep('x', 1 << 30)`, {
      overrides: { limits: { memoryBytes: 16 * 1024 * 1024 } },
    });
    expect(h.result.status).toBe('limit');
    expect(h.result.error?.kind).toBe('memory');
  });

  it('string.rep past the largest string → a clear runtime error', async () => {
    const h = await runScript(`local s = string.rep('x', 1 << 50)`);
    expect(h.result.status).toBe('error');
    expect(h.result.error?.message).toBe('agent.lua:1: resulting string too large');
  });

  it('runaway recursion → a clean stack overflow error', async () => {
    const h = await runScript(`local function f(n) return 1 + f(n + 1) end\nf(1)`);
    expect(h.result.status).toBe('error');
    expect(h.result.error?.kind).toBe('runtime');
    expect(h.result.error?.message).toMatch(/^agent\.lua:1: stack overflow/);
  });

  it('a memory error caught by pcall lets the script go on within its cap', async () => {
    const h = await runScript(
      `local ok, err = pcall(function() local t = {} for i = 1, 1e9 do t[i] = i end end)
       log(ok, err)`,
      { overrides: { limits: { memoryBytes: 16 * 1024 * 1024 } } },
    );
    expect(h.result.status).toBe('ok');
    expect(h.logs).toEqual(['false\tnot enough memory']);
  });

  it('the wall-clock limit stops a run', async () => {
    const h = await runScript('while true do end', { overrides: { limits: { cpuMs: 60_000, wallMs: 300 } } });
    expect(h.result.status).toBe('limit');
    expect(h.result.error).toEqual({ kind: 'timeout', message: 'wall-clock limit of 0.3 s exceeded' });
  });

  it('time waiting on the host does not count against the CPU budget', async () => {
    // The budget is measured while the script computes, in the host's time: under load, the few
    // milliseconds each resume takes can stretch to a hundred (seen: 280 ms over seven resumes on
    // two busy cores), so the budget leaves room for that. The approvals together outlast it by
    // far (two of 1 s against 1.5 s), and each fits in it, so only counting them would end the run.
    const budgetMs = 1500;
    const slowGate: ApprovalGate = {
      decide: (_r: ApprovalRequest) =>
        new Promise<ApprovalDecision>((resolve) =>
          setTimeout(() => resolve({ kind: 'approve', source: 'studio', at: new Date().toISOString() }), 1000),
        ),
    };
    const h = await runScript(`for i = 1, 2 do tools.call('echo', { text = tostring(i) }) end log(tools.calls.echo)`, {
      overrides: { limits: { cpuMs: budgetMs }, gate: slowGate },
    });
    expect(h.result.status, JSON.stringify(h.result.error)).toBe('ok');
    expect(h.logs).toEqual(['2']);
    expect(h.result.cpuMs).toBeLessThan(budgetMs);
  });
});

describe('stopping a run', () => {
  it('stop() ends a runaway at once with exit code 3, and the host keeps ticking', async () => {
    // The stop comes from the host's 10th timer tick while the runaway runs: the run can only end
    // if the host's thread kept ticking (no time is waited for or measured).
    const { run, finished } = startScript('while true do end');
    let ticks = 0;
    const timer = setInterval(() => {
      ticks += 1;
      if (ticks === 10) run.stop('stopped from the test');
    }, 5);
    const h = await finished.finally(() => clearInterval(timer));
    expect(h.result.status).toBe('stopped');
    expect(h.result.error).toEqual({ kind: 'stopped', message: 'stopped from the test' });
    expect(ticks).toBeGreaterThanOrEqual(10);
    expect(h.events.at(-1)).toMatchObject({ type: 'run-end', status: 'stopped' });
  });

  it('a run stopped while a call awaits approval never executes it and records it as cancelled', async () => {
    const asked: ApprovalRequest[] = [];
    const waitingGate: ApprovalGate = {
      decide: (request) => {
        asked.push(request);
        return new Promise<ApprovalDecision>(() => undefined);
      },
    };
    const { run, finished } = startScript(`tools.call('ask_tool', { x = 1 }) log('never')`, {
      overrides: { gate: waitingGate },
    });
    run.onEvent((e) => {
      if (e.type === 'tool-dispatch') setTimeout(() => run.stop('stopped while waiting'), 50);
    });
    const h = await finished;
    expect(asked).toHaveLength(1);
    expect(h.runner.received).toEqual([]);
    expect(h.logs).toEqual([]);
    expect(h.result.status).toBe('stopped');
    const tail = h.events.slice(-3).map((e) => e.type);
    expect(tail).toEqual(['approval-decision', 'tool-error', 'run-end']);
    expect(h.events.at(-3)).toMatchObject({
      type: 'approval-decision',
      alias: 'ask_tool',
      proposedArguments: { x: 1 },
      decision: { kind: 'cancelled', reason: 'stopped while waiting', source: 'policy' },
    });
    expect(h.result.toolCalls).toEqual({ ask_tool: 1 });
  });
});

describe('a flood of log lines', () => {
  it('ends the run at the per-run line cap, keeping every line up to it', async () => {
    const h = await runScript(`for i = 1, 60000 do log(i) end log('done')`, {
      overrides: { limits: { cpuMs: 20_000 } },
    });
    expect(h.result.status).toBe('limit');
    expect(h.result.error).toEqual({
      kind: 'output',
      message: 'log limit exceeded: more than 50000 log lines in this run',
    });
    expect(h.logs).toHaveLength(50_000);
    expect(h.logs.at(-1)).toBe('50000');
  });
});
