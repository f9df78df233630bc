import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { sourceWorkerEntry, WorkerPool, type LuaWorker } from '../../../main/core/run/worker-pool.js';
import { wrapperFlagCell } from '../../../main/core/run/wasm-wrappers.js';

// The election of the one Lua worker that sets V8's wasm-wrapper flag for the process
// (keepWasmWrappersGeneric in main/core/run/wasm-wrappers.ts), on real worker threads started by
// the real pool, each a stand-in Lua worker whose setter writes its thread id to a file.
const STAND_IN = fileURLToPath(new URL('../../fixtures/wrapper-flag-worker.ts', import.meta.url));

let pool: WorkerPool | undefined;
afterEach(async () => {
  await pool?.close();
  pool = undefined;
  delete process.env.PROMPTFORGE_TEST_SETTERS;
  delete process.env.PROMPTFORGE_TEST_DIE_AS_SETTER;
});

function elected(worker: LuaWorker): Promise<{ how: string; threadId: number }> {
  return new Promise((resolve) => {
    const onMessage = (message: { type: string; how: string; threadId: number }) => {
      if (message.type !== 'elected') return;
      worker.worker.off('message', onMessage);
      resolve(message);
    };
    worker.worker.on('message', onMessage);
    worker.worker.postMessage('which');
  });
}

function setters(file: string): number[] {
  return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map(Number) : [];
}

/** A fresh process-wide cell for this test (the cell lives on globalThis under a registered symbol). */
function freshCell(): void {
  delete (globalThis as Record<symbol, unknown>)[Symbol.for('promptforge.wasm-wrapper-flag')];
  expect(new Int32Array(wrapperFlagCell())[0]).toBe(0);
}

describe('the wasm-wrapper flag is set once per process, by the first Lua worker', () => {
  it('four workers started at once: exactly one sets it, the other three wait for it', async () => {
    freshCell();
    const dir = mkdtempSync(path.join(tmpdir(), 'pf-wrapper-flag-'));
    process.env.PROMPTFORGE_TEST_SETTERS = path.join(dir, 'setters');
    pool = new WorkerPool({ size: 4, entry: { ...sourceWorkerEntry(), entry: new URL(`file://${STAND_IN}`).href } });
    pool.prewarm();
    const workers = await Promise.all([pool.acquire(), pool.acquire(), pool.acquire(), pool.acquire()]);
    const answers = await Promise.all(workers.map(elected));
    expect(new Set(workers.map((w) => w.worker.threadId)).size).toBe(4);
    expect(answers.map((a) => a.how).sort()).toEqual(['set', 'waited', 'waited', 'waited']);
    expect(setters(process.env.PROMPTFORGE_TEST_SETTERS)).toEqual([answers.find((a) => a.how === 'set')!.threadId]);
    // A worker started later finds it set and sets nothing.
    const later = await new WorkerPool({
      size: 1,
      entry: { ...sourceWorkerEntry(), entry: new URL(`file://${STAND_IN}`).href },
    }).acquire();
    expect(await elected(later)).toEqual({ type: 'elected', how: 'waited', threadId: later.worker.threadId });
    await later.worker.terminate();
    expect(setters(process.env.PROMPTFORGE_TEST_SETTERS)).toHaveLength(1);
    for (const worker of workers) pool.returnUnused(worker);
  }, 60_000);

  it('a setter that dies before it says so hands the election on: the waiting workers do not hang', async () => {
    freshCell();
    const dir = mkdtempSync(path.join(tmpdir(), 'pf-wrapper-flag-'));
    process.env.PROMPTFORGE_TEST_SETTERS = path.join(dir, 'setters');
    process.env.PROMPTFORGE_TEST_DIE_AS_SETTER = path.join(dir, 'died');
    pool = new WorkerPool({
      size: 3,
      entry: { ...sourceWorkerEntry(), entry: new URL(`file://${STAND_IN}`).href },
      logger: { error: () => undefined },
    });
    // The dead setter's place is refilled by the pool; three workers come up in the end.
    const workers = await Promise.all(
      [pool.acquire(), pool.acquire(), pool.acquire()].map((p) => p.catch(() => pool!.acquire())),
    );
    const answers = await Promise.all(workers.map(elected));
    const died = Number(readFileSync(process.env.PROMPTFORGE_TEST_DIE_AS_SETTER, 'utf8'));
    expect(workers.map((w) => w.worker.threadId)).not.toContain(died);
    expect(answers.filter((a) => a.how === 'set')).toHaveLength(1);
    expect(setters(process.env.PROMPTFORGE_TEST_SETTERS)).toEqual([answers.find((a) => a.how === 'set')!.threadId]);
    expect(new Int32Array(wrapperFlagCell())[0]).toBe(1);
    for (const worker of workers) pool.returnUnused(worker);
  }, 60_000);
});
