// The renderer's run store, run in Node against the real core: pages come from real transcripts
// through the real contract dispatcher (validation included), as the window gets them.
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContractRequest, ContractResponse } from '../../../../common/contract.js';
import { createStudioHandlers, dispatchContractCall } from '../../../../main/core/studio/studio-handlers.js';
import { StudioService } from '../../../../main/core/studio/studio-service.js';
import { AUTO_LOAD_EVENTS, FIRST_PAGE_EVENTS, RunStore } from '../../../../renderer/src/run/run-store.js';
import { testPool } from '../../run/run-harness.js';
import { syntheticEvent, syntheticRun } from '../../transcript/synthetic-run.js';
import { repositoryRoot } from '../../setup/project-copy.js';
import { noSecrets, quietLogger } from '../../../fixtures/stubs.js';

describe('the renderer run store: paged, bounded, merged with live events', () => {
  let service: StudioService;
  let runs: string;
  let handlers: ReturnType<typeof createStudioHandlers>;
  const pageCalls: Array<ContractRequest<'history:page'>> = [];

  /** A store whose calls go through the dispatcher, and whose notifications are flushed by hand. */
  function makeStore(): { store: RunStore; flush: () => number } {
    let pending: (() => void) | undefined;
    const store = new RunStore(
      (async (method: 'history:page', request: ContractRequest<'history:page'>) => {
        pageCalls.push(request);
        const result = await dispatchContractCall(handlers, method, request, quietLogger);
        if (!result.ok) throw new Error(`${result.error.message} (${result.error.code})`);
        return result.value as ContractResponse<'history:page'>;
      }) as never,
      (error) => (error as Error).message,
      (flush) => {
        pending = flush;
        return 1;
      },
    );
    let notified = 0;
    store.subscribe(() => (notified += 1));
    return {
      store,
      flush: () => {
        const run = pending;
        pending = undefined;
        run?.();
        return notified;
      },
    };
  }

  beforeAll(async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'pf-store-'));
    service = new StudioService({
      userDataDirectory: root,
      examplesDirectory: path.join(repositoryRoot, 'examples'),
      secrets: noSecrets,
      emit: () => undefined,
      pool: testPool(),
    });
    runs = path.join((await service.openExample()).root, 'runs');
    mkdirSync(runs, { recursive: true });
    handlers = createStudioHandlers({ appName: 'x', appVersion: '0', userDataDirectory: root, service });
  });
  afterAll(async () => {
    await service.close();
  });

  it('opens a long run with its first page only, reads on as asked, and stops for the person past the cap', async () => {
    writeFileSync(path.join(runs, 'long.jsonl'), syntheticRun('long', AUTO_LOAD_EVENTS + 3000));
    const { store, flush } = makeStore();
    pageCalls.length = 0;
    await store.open('long');
    expect(store.selectedRunId()).toBe('long');
    const first = store.run('long')!;
    expect(first.paging).toMatchObject({ next: FIRST_PAGE_EVENTS, total: AUTO_LOAD_EVENTS + 3002, complete: false });
    expect(first.snapshot.items).toHaveLength(FIRST_PAGE_EVENTS);
    expect(store.run('long')).toBe(first); // the same object until something changes
    expect(pageCalls).toEqual([{ runId: 'long', from: 0, count: FIRST_PAGE_EVENTS }]);
    while (!store.run('long')!.paging!.askFirst) await store.loadMore('long');
    expect(store.run('long')!.paging!.next).toBeGreaterThanOrEqual(AUTO_LOAD_EVENTS);
    // Automatic reading stops; only the person's click reads on.
    const before = pageCalls.length;
    await store.loadMore('long');
    expect(pageCalls.length).toBe(before);
    while (!store.run('long')!.paging!.complete) await store.loadMore('long', undefined, true);
    const done = store.run('long')!;
    expect(done.snapshot.ended?.status).toBe('ok');
    expect(done.snapshot.items.at(-2)).toMatchObject({ kind: 'log', text: `line ${AUTO_LOAD_EVENTS + 3000}` });
    expect(flush()).toBe(1); // many changes, one notification per frame
  });

  it('evicts a run that ended once it is no longer shown; reopening reads it back', async () => {
    writeFileSync(path.join(runs, 'a.jsonl'), syntheticRun('a', 5));
    writeFileSync(path.join(runs, 'b.jsonl'), syntheticRun('b', 5));
    const { store } = makeStore();
    await store.open('a');
    await store.open('b');
    expect(store.heldRunIds()).toEqual(['b']);
    pageCalls.length = 0;
    await store.open('a');
    expect(pageCalls).toEqual([{ runId: 'a', from: 0, count: FIRST_PAGE_EVENTS }]);
    expect(store.run('a')!.snapshot.ended?.status).toBe('ok');
    expect(store.heldRunIds()).toEqual(['a']);
  });

  it('keeps a live run that is not shown, and never evicts the shown one', async () => {
    const { store } = makeStore();
    for (let seq = 1; seq <= 3; seq += 1) store.applyEvent(syntheticEvent('live', seq, 10));
    expect(store.selectedRunId()).toBe('live');
    expect(store.liveRunIds().has('live')).toBe(true);
    writeFileSync(path.join(runs, 'c.jsonl'), syntheticRun('c', 2));
    await store.open('c');
    expect(store.heldRunIds().sort()).toEqual(['c', 'live']);
    for (let seq = 4; seq <= 12; seq += 1) store.applyEvent(syntheticEvent('live', seq, 10));
    expect(store.liveRunIds().has('live')).toBe(false);
    expect(store.selectedRunId()).toBe('c'); // a run-end does not steal the view
    expect(store.heldRunIds()).toEqual(['c']); // and the run that ended out of view is let go
    store.select('c');
    await store.open('c');
    store.select(null);
    expect(store.heldRunIds()).toEqual([]);
  });

  it('merges live events that arrive while the start of the run is still being read', async () => {
    const file = path.join(runs, 'growing.jsonl');
    const line = (seq: number) => `${JSON.stringify(syntheticEvent('growing', seq, 8))}\n`;
    writeFileSync(file, [1, 2, 3, 4].map(line).join(''));
    const { store } = makeStore();
    const opening = store.open('growing');
    // Pushed while the first page is in flight: 4 is also in the transcript, 5 and 6 are not yet.
    for (const seq of [4, 5, 6]) store.applyEvent(syntheticEvent('growing', seq, 8));
    await opening;
    expect(store.run('growing')!.snapshot.items.map((item: { key: string }) => item.key)).toEqual([
      'e1',
      'e2',
      'e3',
      'e4',
      'e5',
      'e6',
    ]);
    appendFileSync(file, [5, 6, 7].map(line).join(''));
    await store.refreshSelected();
    expect(store.run('growing')!.snapshot.items.map((item: { key: string }) => item.key)).toEqual([
      'e1',
      'e2',
      'e3',
      'e4',
      'e5',
      'e6',
      'e7',
    ]);
  });

  it('a transcript deleted while open, or a run that does not exist, shows why and keeps what was read', async () => {
    writeFileSync(path.join(runs, 'doomed.jsonl'), syntheticRun('doomed', 3000));
    const { store } = makeStore();
    await store.open('doomed');
    rmSync(path.join(runs, 'doomed.jsonl'));
    await store.loadMore('doomed');
    const view = store.run('doomed')!;
    expect(view.paging).toMatchObject({ complete: true, problem: expect.stringContaining('run-not-found') });
    expect(view.snapshot.items).toHaveLength(FIRST_PAGE_EVENTS);
    await store.open('never-was');
    expect(store.run('never-was')!.paging!.problem).toMatch(/no transcript for run "never-was".*run-not-found/);
  });

  it('shows the damage of a transcript broken mid-file, with the events before it', async () => {
    const lines = syntheticRun('broken', 10).split('\n');
    lines[6] = '{"type":"log"';
    writeFileSync(path.join(runs, 'broken.jsonl'), lines.join('\n'));
    const { store } = makeStore();
    await store.open('broken');
    const view = store.run('broken')!;
    expect(view.snapshot.items).toHaveLength(6);
    expect(view.paging).toMatchObject({ complete: true, problem: expect.stringContaining('line 7') });
  });
});
