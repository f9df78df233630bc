import { describe, expect, it } from 'vitest';
import { Run } from '../../../main/core/run/run.js';
import { WorkerPool } from '../../../main/core/run/worker-pool.js';
import { FixtureCatalog, FixtureRunner, ScriptedGate, ScriptedModel, resolverFor } from './run-harness.js';

describe('a pooled worker serves run after run', () => {
  it('many short runs on one reused worker, each with host calls that answer at once, all finish', async () => {
    // Regression: the reply counter once restarted per run while the worker (and its counter)
    // lived on, so a fast reply could write the value the worker was about to wait on.
    const pool = new WorkerPool({ size: 1 });
    const outcomes: string[] = [];
    try {
      for (let i = 0; i < 150; i++) {
        const run = new Run({
          script: `local ok = pcall(tools.call, 'nope') ${i % 3 === 0 ? "tools.call('echo')" : ''} log(ok)`,
          scriptPath: 'reuse.lua',
          pool,
          catalog: new FixtureCatalog(),
          toolRunner: new FixtureRunner(),
          gate: new ScriptedGate(),
          models: resolverFor(new ScriptedModel([])),
          limits: { wallMs: 10_000 },
        });
        await run.start();
        const result = await run.done;
        outcomes.push(result.status);
      }
    } finally {
      await pool.close();
    }
    expect(outcomes.filter((s) => s !== 'ok')).toEqual([]);
  }, 120_000);
});

describe('a run that ends before it gets a worker', () => {
  it('gives the worker back unused, and the next run still starts', async () => {
    const pool = new WorkerPool({ size: 1 });
    const make = (script: string) =>
      new Run({
        script,
        scriptPath: 'early.lua',
        pool,
        catalog: new FixtureCatalog(),
        toolRunner: new FixtureRunner(),
        gate: new ScriptedGate(),
        models: resolverFor(new ScriptedModel([])),
      });
    try {
      const early = make(`log('never')`);
      const starting = early.start();
      early.stop('stopped before it began');
      await starting;
      expect((await early.done).status).toBe('stopped');
      const next = make(`log('second')`);
      await next.start();
      expect((await next.done).status).toBe('ok');
    } finally {
      await pool.close();
    }
  }, 60_000);
});

describe('a crashed Lua VM', () => {
  it('ends its run with a clear error; the host keeps going and the next run works', async () => {
    const { fileURLToPath } = await import('node:url');
    const crashing = new WorkerPool({
      size: 1,
      entry: { file: fileURLToPath(new URL('../../fixtures/crashing-worker.mjs', import.meta.url)) },
    });
    const logs: string[] = [];
    const run = new Run({
      script: `log('x')`,
      scriptPath: 'crash.lua',
      pool: crashing,
      catalog: new FixtureCatalog(),
      toolRunner: new FixtureRunner(),
      gate: new ScriptedGate(),
      models: resolverFor(new ScriptedModel([])),
      onEvent: (e) => {
        if (e.type === 'log') logs.push(e.text);
      },
    });
    await run.start();
    const result = await run.done;
    await crashing.close();
    expect(result.status).toBe('error');
    expect(result.error).toEqual({ kind: 'crash', message: 'the Lua VM crashed: RuntimeError: unreachable executed' });
    expect(logs).toEqual(['about to crash']);

    const healthy = new WorkerPool({ size: 1 });
    try {
      const next = new Run({
        script: `log('still here')`,
        scriptPath: 'after.lua',
        pool: healthy,
        catalog: new FixtureCatalog(),
        toolRunner: new FixtureRunner(),
        gate: new ScriptedGate(),
        models: resolverFor(new ScriptedModel([])),
      });
      await next.start();
      expect((await next.done).status).toBe('ok');
    } finally {
      await healthy.close();
    }
  }, 60_000);
});
