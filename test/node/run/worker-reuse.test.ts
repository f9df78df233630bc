import { describe, expect, it } from 'vitest';
import { Run } from '../../../main/core/run/run.js';
import {
  BUILT_WORKER_ENV,
  WorkerPool,
  defaultWorkerEntry,
  sourceWorkerEntry,
} from '../../../main/core/run/worker-pool.js';
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
    const { mkdtempSync, readFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const { fileURLToPath } = await import('node:url');
    // The pool's first worker crashes mid-run; the one that replaces it is the real worker.
    const marker = path.join(mkdtempSync(path.join(tmpdir(), 'pf-crash-')), 'crashed.txt');
    process.env['PROMPTFORGE_TEST_CRASH_ONCE'] = marker;
    const pool = new WorkerPool({
      size: 1,
      entry: { file: fileURLToPath(new URL('../../fixtures/crash-once-worker.mjs', import.meta.url)) },
    });
    const make = (script: string, logs: string[]) =>
      new Run({
        script,
        scriptPath: 'crash.lua',
        pool,
        catalog: new FixtureCatalog(),
        toolRunner: new FixtureRunner(),
        gate: new ScriptedGate(),
        models: resolverFor(new ScriptedModel([])),
        onEvent: (e) => {
          if (e.type === 'log') logs.push(e.text);
        },
      });
    try {
      const crashedLogs: string[] = [];
      const crashed = make(`log('x')`, crashedLogs);
      await crashed.start();
      const result = await crashed.done;
      expect(result.status).toBe('error');
      expect(result.error).toEqual({
        kind: 'crash',
        message: 'the Lua VM crashed: RuntimeError: unreachable executed',
      });
      expect(crashedLogs).toEqual(['about to crash']);
      expect(readFileSync(marker, 'utf8')).toBe('crashed\n');

      // The same pool: the crashed worker is gone and the next run gets a working one.
      const nextLogs: string[] = [];
      const next = make(`log('still here', _VERSION)`, nextLogs);
      await next.start();
      expect((await next.done).status).toBe('ok');
      expect(nextLogs).toEqual(['still here\tLua 5.4']);
    } finally {
      await pool.close();
      delete process.env['PROMPTFORGE_TEST_CRASH_ONCE'];
    }
  }, 60_000);
});

describe('a run that starts while the pool is warming', () => {
  it('takes the warming worker instead of starting a second one', async () => {
    const { mkdtempSync, readFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const { fileURLToPath } = await import('node:url');
    const count = path.join(mkdtempSync(path.join(tmpdir(), 'pf-count-')), 'started.txt');
    process.env['PROMPTFORGE_TEST_WORKER_COUNT'] = count;
    const pool = new WorkerPool({
      size: 1,
      entry: { file: fileURLToPath(new URL('../../fixtures/counting-worker.mjs', import.meta.url)) },
    });
    try {
      pool.prewarm();
      const run = new Run({
        script: `log('on the warm one')`,
        scriptPath: 'warming.lua',
        pool,
        catalog: new FixtureCatalog(),
        toolRunner: new FixtureRunner(),
        gate: new ScriptedGate(),
        models: resolverFor(new ScriptedModel([])),
      });
      await run.start();
      expect((await run.done).status).toBe('ok');
    } finally {
      await pool.close();
      delete process.env['PROMPTFORGE_TEST_WORKER_COUNT'];
    }
    expect(readFileSync(count, 'utf8')).toBe('started\n');
  }, 60_000);
});

describe('where workers start from', () => {
  it('the suite starts the built worker; the TypeScript source worker (tsx bootstrap) runs a script too', async () => {
    // vitest.config.ts points PROMPTFORGE_LUA_WORKER at the build the global setup made.
    expect(defaultWorkerEntry()).toEqual({ file: process.env[BUILT_WORKER_ENV] });
    const source = new WorkerPool({ size: 1, entry: sourceWorkerEntry() });
    try {
      const run = new Run({
        script: `log('from source', _VERSION)`,
        scriptPath: 'source.lua',
        pool: source,
        catalog: new FixtureCatalog(),
        toolRunner: new FixtureRunner(),
        gate: new ScriptedGate(),
        models: resolverFor(new ScriptedModel([])),
      });
      const logs: string[] = [];
      run.onEvent((e) => {
        if (e.type === 'log') logs.push(e.text);
      });
      await run.start();
      expect((await run.done).status).toBe('ok');
      expect(logs).toEqual(['from source\tLua 5.4']);
    } finally {
      await source.close();
    }
  }, 60_000);

  it('a missing built worker named in PROMPTFORGE_LUA_WORKER is a clear error, not a silent fallback', () => {
    const saved = process.env[BUILT_WORKER_ENV];
    process.env[BUILT_WORKER_ENV] = '/nonexistent/lua-worker.js';
    try {
      expect(() => defaultWorkerEntry()).toThrow(
        'PROMPTFORGE_LUA_WORKER=/nonexistent/lua-worker.js: no such file (build it with `npm run build:cli`, or unset it)',
      );
    } finally {
      process.env[BUILT_WORKER_ENV] = saved;
    }
  });
});
