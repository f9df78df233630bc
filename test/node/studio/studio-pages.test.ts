import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testPool } from '../run/run-harness.js';
import { createStudioHandlers, dispatchContractCall } from '../../../main/core/studio/studio-handlers.js';
import { StudioService } from '../../../main/core/studio/studio-service.js';
import { syntheticEvent, syntheticRun } from '../transcript/synthetic-run.js';
import { noSecrets, quietLogger } from '../../fixtures/stubs.js';

const examples = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../examples');

describe('history:page and history:compare through the contract', () => {
  let service: StudioService;
  let runs: string;
  let handlers: ReturnType<typeof createStudioHandlers>;
  const call = (method: string, payload: unknown) => dispatchContractCall(handlers, method, payload, quietLogger);
  const compare = (payload: unknown) =>
    dispatchContractCall(handlers, 'history:compare', payload as never, quietLogger);

  beforeAll(async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'pf-pages-ws-'));
    service = new StudioService({
      userDataDirectory: root,
      examplesDirectory: examples,
      secrets: noSecrets,
      emit: () => undefined,
      pool: testPool(),
    });
    const state = await service.openExample();
    runs = path.join(state.root, 'runs');
    mkdirSync(runs, { recursive: true });
    handlers = createStudioHandlers({ appName: 'x', appVersion: '0', userDataDirectory: root, service });
  });
  afterAll(async () => {
    await service.close();
  });

  it('serves a page, validated on the way out, and an empty page past the end', async () => {
    writeFileSync(path.join(runs, 'p1.jsonl'), syntheticRun('p1', 30));
    const page = await call('history:page', { runId: 'p1', from: 0, count: 10 });
    expect(page).toMatchObject({ ok: true, value: { from: 0, next: 10, total: 32, complete: false } });
    const past = await call('history:page', { runId: 'p1', from: 99, count: 10 });
    expect(past).toMatchObject({ ok: true, value: { events: [], total: 32, complete: true } });
  });

  it('refuses bad windows by field, before touching the disk', async () => {
    for (const payload of [
      { runId: 'p1', from: -1, count: 10 },
      { runId: 'p1', from: 0, count: 0 },
      { runId: 'p1', from: 0, count: 5001 },
      { runId: 'p1', from: 1.5, count: 10 },
      { runId: 'p1', from: 0 },
    ]) {
      const result = await call('history:page', payload);
      expect(result).toMatchObject({ ok: false, error: { code: 'invalid-payload' } });
    }
  });

  it('a page for a run that does not exist (or a run id that tries to leave runs/) is run-not-found', async () => {
    for (const runId of ['nope', '../promptforge', 'a/b', '.']) {
      const result = await call('history:page', { runId, from: 0, count: 10 });
      expect(result).toMatchObject({ ok: false, error: { code: 'run-not-found' } });
    }
    const compared = await call('history:compare', { left: 'p1', right: 'nope' });
    expect(compared).toMatchObject({
      ok: false,
      error: { code: 'run-not-found', message: expect.stringContaining('nope') },
    });
  });

  it('a run that grows while open shows its new events, and one deleted while open is run-not-found', async () => {
    const file = path.join(runs, 'live.jsonl');
    writeFileSync(file, `${JSON.stringify(syntheticEvent('live', 1, 5))}\n`);
    expect(service.readPage('live', 0, 100)).toMatchObject({ total: 1, complete: true });
    appendFileSync(file, `${JSON.stringify(syntheticEvent('live', 2, 5))}\n{"seq":3`);
    expect(service.readPage('live', 1, 100)).toMatchObject({ total: 2, truncatedTail: true });
    rmSync(file);
    const result = await call('history:page', { runId: 'live', from: 2, count: 100 });
    expect(result).toMatchObject({ ok: false, error: { code: 'run-not-found' } });
  });

  it('compares two runs through the contract, around the first difference', async () => {
    writeFileSync(path.join(runs, 'c1.jsonl'), syntheticRun('c1', 400));
    writeFileSync(
      path.join(runs, 'c2.jsonl'),
      syntheticRun('c2', 400, (n) => (n === 390 ? 'other' : `line ${n}`)),
    );
    const result = await compare({ left: 'c1', right: 'c2' });
    expect(result).toMatchObject({ ok: true, value: { firstDifference: 390, complete: true } });
    if (!result.ok) return;
    expect(result.value.rows.filter((row) => !row.same).map((row) => row.index)).toEqual([390]);
    expect(result.value.rows[0]!.index).toBe(340);
    const window = await compare({ left: 'c1', right: 'c2', from: 1, count: 5 });
    expect(window).toMatchObject({ ok: true, value: { complete: false } });
    if (window.ok) expect(window.value.rows.map((row) => row.index)).toEqual([1, 2, 3, 4, 5]);
  });
});
