import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTO_LOAD_EVENTS, FIRST_PAGE_EVENTS, NEXT_PAGE_EVENTS } from '../../renderer/src/run/run-store.js';
import { syntheticEvent, syntheticRun } from '../node/transcript/synthetic-run.js';
import { StudioHarness } from './bridge.js';

describe('studio: runs of any size open page by page through history:page', () => {
  const studio = new StudioHarness();
  let runs: string;
  const pageRequests: Array<{ runId: string; from: number; count: number }> = [];

  /** Lists the runs now in runs/ (as the watcher would) and clicks its button. */
  const openFromExplorer = async (runId: string): Promise<void> => {
    await studio.pushEvent('workspace-changed', studio.service.state()!);
    await studio.runButton(runId).click();
  };
  const conversation = () => studio.page.getByRole('log', { name: 'Conversation' });

  beforeAll(async () => {
    await studio.open();
    await studio.openExampleWorkspace();
    runs = path.join(studio.service.workspaceRoot!, 'runs');
    mkdirSync(runs, { recursive: true });
    // Record every page the window asks for (the bridge's binding is what window.promptforge calls).
    const invoke = studio.service.readPage.bind(studio.service);
    studio.service.readPage = (runId, from, count) => {
      pageRequests.push({ runId, from, count });
      return invoke(runId, from, count);
    };
  });
  afterAll(async () => {
    await studio.close();
  });

  it('paints the first page of a long run, then reads the rest as the view follows its end', async () => {
    writeFileSync(path.join(runs, 'paged.jsonl'), syntheticRun('paged', 2 * NEXT_PAGE_EVENTS));
    pageRequests.length = 0;
    await openFromExplorer('paged');
    await conversation()
      .getByText(`line ${2 * NEXT_PAGE_EVENTS}`, { exact: true })
      .waitFor();
    await studio.page.getByRole('region', { name: 'Run panel' }).getByLabel('Run status ok').waitFor();
    const rendered = await conversation().locator('.virtual-row').count();
    expect(rendered).toBeLessThan(80);
    // The first request asks for a window, never for the whole run, and no line is read twice.
    expect(pageRequests[0]).toEqual({ runId: 'paged', from: 0, count: FIRST_PAGE_EVENTS });
    expect(pageRequests.map((request) => request.from)).toEqual([
      0,
      FIRST_PAGE_EVENTS,
      FIRST_PAGE_EVENTS + NEXT_PAGE_EVENTS,
    ]);
  });

  it('stops reading past the automatic cap until asked, and says so when the transcript was deleted meanwhile', async () => {
    const logs = AUTO_LOAD_EVENTS + 500;
    writeFileSync(path.join(runs, 'huge.jsonl'), syntheticRun('huge', logs));
    await openFromExplorer('huge');
    const more = conversation().getByRole('button', { name: 'Read more events' });
    await more.waitFor();
    expect(await conversation().getByRole('status').textContent()).toContain(
      `of ${(logs + 2).toLocaleString('en')} events read`,
    );
    rmSync(path.join(runs, 'huge.jsonl'));
    await more.click();
    const alert = conversation().getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(
      /(no transcript for run "huge"|the transcript is gone).*deleted.*\(run-not-found\)/,
    );
    // What was read stays on screen.
    expect(await conversation().locator('.virtual-row').count()).toBeGreaterThan(3);
  });

  it('a run written by another process shows new events as its transcript grows, and a cut-off last line waits', async () => {
    const file = path.join(runs, 'growing.jsonl');
    const line = (seq: number) => `${JSON.stringify(syntheticEvent('growing', seq, 3))}\n`;
    writeFileSync(file, line(1) + line(2));
    await openFromExplorer('growing');
    await conversation().getByText('line 1', { exact: true }).waitFor();
    const third = line(3);
    appendFileSync(file, third.slice(0, 20));
    await studio.pushEvent('workspace-changed', studio.service.state()!);
    appendFileSync(file, third.slice(20) + line(4) + line(5));
    await studio.pushEvent('workspace-changed', studio.service.state()!);
    await conversation().getByText('line 3', { exact: true }).waitFor();
    await studio.page.getByRole('region', { name: 'Run panel' }).getByLabel('Run status ok').waitFor();
  });

  it('ran without console errors or CSP violations', () => {
    expect(studio.pageErrors).toEqual([]);
  });
});
