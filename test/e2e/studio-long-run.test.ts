import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../common/run-events.js';
import { StudioHarness } from './bridge.js';

describe('studio: a run with 10,000 conversation items stays virtualised', () => {
  const studio = new StudioHarness();
  const runId = 'run-long';
  const t = '2026-12-02T10:00:00.000Z';

  beforeAll(async () => {
    await studio.open();
    await studio.openExampleWorkspace();
  });
  afterAll(async () => {
    await studio.close();
  });

  it('renders only the visible rows of 10,000 log items, and scrolls to the last one', async () => {
    const events: RunEvent[] = [
      {
        seq: 1,
        t,
        runId,
        type: 'run-start',
        script: { path: 'agents/echo-loop.lua', sha256: '0'.repeat(64) },
        catalogs: {},
        limits: { cpuMs: 30_000, memoryBytes: 268_435_456 },
      },
    ];
    for (let index = 0; index < 10_000; index += 1) {
      events.push({ seq: index + 2, t, runId, type: 'log', text: `line ${index + 1} <b>not markup</b>` });
    }
    // A new run's run-start selects it in the run panel.
    await studio.pushEvents('run-event', events);
    const conversation = studio.page.getByRole('log', { name: 'Conversation' });
    expect(await conversation.count()).toBe(1);
    await conversation.locator('.virtual-row').first().waitFor();
    const rendered = await conversation.locator('.virtual-row').count();
    expect(rendered).toBeGreaterThan(3);
    expect(rendered).toBeLessThan(80);
    // It follows the tail while a run streams: the last line is on screen.
    await conversation.getByText('line 10000 <b>not markup</b>').waitFor();
    expect(await conversation.locator('b').count()).toBe(0);
  });

  it('ran without console errors or CSP violations', () => {
    expect(studio.pageErrors).toEqual([]);
  });
});
