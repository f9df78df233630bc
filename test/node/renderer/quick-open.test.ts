import { describe, expect, it } from 'vitest';
import type { WorkspaceState } from '../../../common/studio-schemas.js';
import { matchScore, MAX_QUICK_ITEMS, quickOpenItems, rankQuickOpen } from '../../../renderer/src/shell/quick-open.js';

const workspace = {
  root: '/w',
  name: 'w',
  agents: ['agents/summarize-page.lua', 'agents/weather-report.lua', 'agents/echo-loop.lua'],
  tools: [
    { alias: 'weather', kind: 'command' },
    { alias: 'echo', kind: 'builtin' },
  ],
  models: [{ alias: 'fast', provider: 'openai', model: 'gpt-4o-mini' }],
  runs: [{ runId: 'run-1', agent: 'summarize-page', startedAt: '2026-01-01T10:00:00Z', status: 'ok' }],
} as unknown as WorkspaceState;

describe('quick open ranks what the query fits best', () => {
  it('lists every kind, and a file that is an agent once (as the agent)', () => {
    const items = quickOpenItems(workspace, ['agents/echo-loop.lua', 'pages/release-notes.txt', 'README.md']);
    expect(items.map((item) => item.target.kind)).toEqual([
      'agent',
      'agent',
      'agent',
      'run',
      'tool',
      'tool',
      'model',
      'file',
      'file',
    ]);
  });

  it('scores the whole name, its start, a word, anywhere, then letters in order; nothing else', () => {
    expect(matchScore('weather', 'weather')).toBeGreaterThan(matchScore('weather-report', 'weather'));
    expect(matchScore('weather-report', 'weath')).toBeGreaterThan(matchScore('summarize-page', 'page'));
    expect(matchScore('summarize-page', 'page')).toBeGreaterThan(matchScore('summarize-page', 'mar'));
    expect(matchScore('summarize-page', 'mar')).toBeGreaterThan(matchScore('summarize-page', 'smp'));
    expect(matchScore('summarize-page', 'smp')).toBeGreaterThan(0);
    expect(matchScore('summarize-page', 'xyz')).toBe(-1);
    expect(matchScore('summarize-page', 'pms')).toBe(-1);
    // Right-to-left and combining marks compare as text, without throwing.
    expect(matchScore('סוכן-ארוך', 'ארוך')).toBeGreaterThan(0);
    expect(matchScore('e\u0301cole', 'e\u0301')).toBeGreaterThan(0);
  });

  it('puts the best fit first: "weather" is the tool before the agent; "smp" finds summarize-page', () => {
    const items = quickOpenItems(workspace);
    expect(rankQuickOpen(items, 'weather')[0]?.target).toEqual({ kind: 'tool', alias: 'weather' });
    expect(rankQuickOpen(items, 'smp')[0]?.target).toEqual({ kind: 'agent', path: 'agents/summarize-page.lua' });
    // The detail counts too: "model" finds the model, "run" the run.
    expect(rankQuickOpen(items, 'openai')[0]?.target).toEqual({ kind: 'model', alias: 'fast' });
    expect(rankQuickOpen(items, 'zzz')).toEqual([]);
  });

  it(`lists at most ${MAX_QUICK_ITEMS}, however large the workspace`, () => {
    const files = Array.from({ length: 10_000 }, (_, index) => `data/file-${index}.txt`);
    const items = quickOpenItems(workspace, files);
    expect(rankQuickOpen(items, '')).toHaveLength(MAX_QUICK_ITEMS);
    expect(rankQuickOpen(items, 'file')).toHaveLength(MAX_QUICK_ITEMS);
    expect(rankQuickOpen(items, 'file-9999')[0]?.label).toBe('file-9999.txt');
  });
});
