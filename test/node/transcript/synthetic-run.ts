import type { RunEvent } from '../../../common/run-events.js';

const T = '2026-12-02T10:00:00.000Z';

/** Event `seq` (1-based) of a synthetic run: a run-start, `logs` log lines, a run-end. */
export function syntheticEvent(runId: string, seq: number, logs: number, text = (n: number) => `line ${n}`): RunEvent {
  if (seq === 1)
    return {
      seq,
      t: T,
      runId,
      type: 'run-start',
      script: { path: 'agents/echo-loop.lua', sha256: '0'.repeat(64) },
      catalogs: {},
      limits: { cpuMs: 30_000, memoryBytes: 268_435_456 },
    };
  if (seq <= logs + 1) return { seq, t: T, runId, type: 'log', text: text(seq - 1) };
  return {
    seq,
    t: T,
    runId,
    type: 'run-end',
    status: 'ok',
    durationMs: 1,
    cpuMs: 1,
    usage: { inputTokens: 0, outputTokens: 0 },
    toolCalls: {},
  };
}

/** The JSONL of a synthetic run with `logs` log lines (`logs + 2` events). */
export function syntheticRun(runId: string, logs: number, text?: (n: number) => string): string {
  const lines: string[] = [];
  for (let seq = 1; seq <= logs + 2; seq += 1)
    lines.push(`${JSON.stringify(syntheticEvent(runId, seq, logs, text))}\n`);
  return lines.join('');
}
