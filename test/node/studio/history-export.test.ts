import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStudioHandlers, dispatchContractCall } from '../../../main/core/studio/studio-handlers.js';
import { StudioService } from '../../../main/core/studio/studio-service.js';
import { testPool } from '../run/run-harness.js';
import { syntheticEvent, syntheticRun } from '../transcript/synthetic-run.js';
import { pressStandIn } from './press-stand-in.js';
import { mapSecretStore, quietLogger } from '../../fixtures/stubs.js';

// `history:export` through the contract: main asks where to save (a stand-in chooser here; the
// save dialog in the app), then copies the transcript as a stream. Only the path crosses back.

const examples = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../examples');

let service: StudioService;
let runs: string;
let exports: string;
/** What the stand-in save dialog answers next; every name it was shown. */
let answer: (suggested: string) => string | null;
const suggested: string[] = [];
let handlers: ReturnType<typeof createStudioHandlers>;
const exportRun = (runId: string) =>
  dispatchContractCall(handlers, 'history:export', { runId }, quietLogger, pressStandIn());

beforeAll(async () => {
  const root = mkdtempSync(path.join(tmpdir(), 'pf-export-'));
  exports = path.join(root, 'exports');
  mkdirSync(exports);
  service = new StudioService({
    userDataDirectory: root,
    examplesDirectory: examples,
    secrets: mapSecretStore(),
    emit: () => undefined,
    pool: testPool(),
    chooseSaveFile: async (name) => {
      suggested.push(name);
      return answer(name);
    },
  });
  runs = path.join((await service.openExample()).root, 'runs');
  mkdirSync(runs, { recursive: true });
  handlers = createStudioHandlers({ appName: 'x', appVersion: '0', userDataDirectory: root, service });
});
afterAll(async () => {
  await service.close();
});

describe('history:export', () => {
  it('asks where to save, suggesting <runId>.jsonl, copies the transcript byte for byte and says where', async () => {
    const text = syntheticRun('e1', 20_000);
    writeFileSync(path.join(runs, 'e1.jsonl'), text);
    answer = (name) => path.join(exports, `copy-of-${name}`);
    const result = await exportRun('e1');
    expect(result).toEqual({ ok: true, value: { path: path.join(exports, 'copy-of-e1.jsonl') } });
    expect(suggested.at(-1)).toBe('e1.jsonl');
    expect(readFileSync(path.join(exports, 'copy-of-e1.jsonl'), 'utf8')).toBe(text);
  });

  it('cancelled: nothing is written and the answer is a null path', async () => {
    writeFileSync(path.join(runs, 'e2.jsonl'), syntheticRun('e2', 5));
    answer = () => null;
    const before = readdirSync(exports);
    expect(await exportRun('e2')).toEqual({ ok: true, value: { path: null } });
    expect(readdirSync(exports)).toEqual(before);
  });

  it('replaces an existing file whole, and a live run exports as far as it has been written', async () => {
    const file = path.join(runs, 'live.jsonl');
    const lines = syntheticRun('live', 10).split('\n').slice(0, 6);
    writeFileSync(file, `${lines.join('\n')}\n`);
    const target = path.join(exports, 'live.jsonl');
    writeFileSync(target, 'an older export that is much longer than the new one '.repeat(1000));
    answer = () => target;
    expect(await exportRun('live')).toEqual({ ok: true, value: { path: target } });
    expect(readFileSync(target, 'utf8')).toBe(`${lines.join('\n')}\n`);
    appendFileSync(file, `${JSON.stringify(syntheticEvent('live', 7, 10))}\n`);
    await exportRun('live');
    expect(readFileSync(target, 'utf8').trim().split('\n')).toHaveLength(7);
  });

  it('a folder that does not exist: a clear error naming the place, and no partial file anywhere', async () => {
    writeFileSync(path.join(runs, 'e3.jsonl'), syntheticRun('e3', 5));
    const missing = path.join(exports, 'no-such-folder', 'e3.jsonl');
    answer = () => missing;
    const result = await exportRun('e3');
    expect(result).toEqual({
      ok: false,
      error: {
        code: 'export-failed',
        message: `${missing}: cannot save the copy there (ENOENT); choose another place`,
      },
    });
    expect(readdirSync(exports).filter((name) => name.includes('partial'))).toEqual([]);
  });

  it('a run that does not exist, or whose transcript is a FIFO: refused before or without blocking', async () => {
    answer = (name) => path.join(exports, name);
    const count = suggested.length;
    expect(await exportRun('nope')).toMatchObject({ ok: false, error: { code: 'run-not-found' } });
    expect(suggested).toHaveLength(count);
    execFileSync('mkfifo', [path.join(runs, 'pipe.jsonl')]);
    expect(await exportRun('pipe')).toMatchObject({
      ok: false,
      error: {
        code: 'not-found',
        message: expect.stringContaining('runs/pipe.jsonl: cannot read the transcript: it is a FIFO'),
      },
    });
    expect(existsSync(path.join(exports, 'pipe.jsonl'))).toBe(false);
  });

  it('history:read is gone: the studio pages through history:page', async () => {
    expect(
      await dispatchContractCall(handlers, 'history:read' as never, { runId: 'e1' } as never, quietLogger),
    ).toMatchObject({
      ok: false,
    });
  });
});
