/** The Tests view's pure logic: which failure a case diverged at, its status, the progress line, and the conversation row of a step. */
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../../common/run-events.js';
import type { TestCaseResultInfo } from '../../../../common/test-schemas.js';
import { ConversationBuilder, itemIndexForStep } from '../../../../renderer/src/run/conversation-builder.js';
import { caseStatus, divergingFailure, progressText } from '../../../../renderer/src/tests/tests-logic.js';

const failure = (field: string, step?: TestCaseResultInfo['failures'][number]['step']) => ({
  field,
  expected: 'x',
  actual: 'y',
  ...(step && { step }),
  where: null,
});

describe('the Tests view', () => {
  it('opens a failing case at its earliest diverging step; assertions judged after the run come last', () => {
    const result: TestCaseResultInfo = {
      id: 'f/c',
      name: 'c',
      file: 'tests/f.yaml',
      line: 2,
      model: 'scripted',
      outcome: 'failed',
      failures: [
        failure('expect.status (default ok)', { seq: 20 }),
        failure('expect.max_cost'),
        failure('expect.calls[2].arguments', { seq: 9, round: 2, call: 2 }),
        failure('expect.logs', { seq: 20, afterRun: true }),
      ],
    };
    expect(divergingFailure(result)?.field).toBe('expect.calls[2].arguments');
    expect(divergingFailure({ ...result, failures: [failure('expect.max_cost')] })).toBeUndefined();
  });

  it('a case is queued while the running suite has it, else its latest outcome, else not run', () => {
    const results = new Map([['a', { outcome: 'passed' } as TestCaseResultInfo]]);
    expect(caseStatus('a', results, new Set())).toBe('passed');
    expect(caseStatus('a', results, new Set(['a']))).toBe('queued');
    expect(caseStatus('b', results, new Set())).toBe('not-run');
  });

  it('says the progress as n of m with the counts, and how it ended', () => {
    const suite = {
      suiteRunId: 's',
      folder: 'runs/tests/s',
      total: 5,
      done: 3,
      counts: { passed: 2, failed: 1, errors: 0, notRun: 0 },
    };
    expect(progressText({ ...suite, state: 'running' })).toBe('3 of 5 cases · 2 passed, 1 failed');
    expect(progressText({ ...suite, state: 'stopped', counts: { ...suite.counts, notRun: 2 } })).toBe(
      '3 of 5 cases · 2 passed, 1 failed, 2 not run · stopped',
    );
  });

  it('finds the conversation row of a call, a round or the run-end by its event, and none not read yet', () => {
    const builder = new ConversationBuilder('r');
    const base = { runId: 'r', t: '2026-01-01T00:00:00.000Z' };
    const events = [
      { type: 'message-delta', round: 1, text: 'hi', seq: 3 },
      {
        type: 'round-response',
        round: 1,
        content: 'hi',
        finishReason: 'tool_calls',
        usage: { inputTokens: 1, outputTokens: 1 },
        durationMs: 1,
        seq: 4,
      },
      { type: 'tool-dispatch', callId: 'call-1', alias: 'echo', arguments: { text: 'hi' }, seq: 5 },
    ];
    for (const event of events) builder.apply({ ...base, ...event } as unknown as RunEvent);
    const items = builder.snapshot().items;
    // The round's row began with its first delta (seq 3); the round-response (seq 4) is its step.
    expect(items[itemIndexForStep(items, 4)]).toMatchObject({ kind: 'assistant', step: 4 });
    expect(items[itemIndexForStep(items, 5)]).toMatchObject({ kind: 'dispatch', callId: 'call-1' });
    expect(itemIndexForStep(items, 99)).toBe(-1);
  });
});
