import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { PolicyApprover } from '../main/core/approval/policy-approver.js';
import { loadWorkspace, type Workspace } from '../main/core/catalog/workspace.js';
import { prepareRun } from '../main/core/run/prepare-run.js';
import { WorkerPool } from '../main/core/run/worker-pool.js';
import { loadTestFile, type LoadedCase, type TestProblem } from '../main/core/testing/load-tests.js';
import { inProcessModel, ScriptedProvider } from '../main/core/testing/scripted-model.js';
import { runSuite } from '../main/core/testing/suite.js';
import type { ScriptedReply } from '../main/core/testing/test-file-schema.js';
import { type BenchRow, interleave, now, row } from './bench-kit.js';
import { WORKER_FILE } from './engine-kit.js';

/**
 * `promptforge test` with a scripted model: a suite of 1,000 cases, each of three model rounds and
 * three tool calls (echo), run through the test runner (load, run on the pool, assertions, one
 * transcript per case), against the very same 1,000 runs started directly through the run engine
 * (prepareRun, the same scripted provider, the same concurrency and transcripts) in the same
 * process, interleaved.
 */

const CASES = 1000;
const SAMPLES = 3;
const CONCURRENCY = Math.min(2, availableParallelism());

const REPLIES: ScriptedReply[] = [
  {
    calls: [
      { name: 'echo', arguments: { text: 'one' } },
      { name: 'echo', arguments: { text: 'two' } },
    ],
  },
  { calls: [{ name: 'echo', arguments: { text: 'three' } }] },
  { content: 'one, two, three' },
];

function suiteText(): string {
  const lines = [
    'defaults:',
    '  agent: agents/three.lua',
    `  model: { replies: ${JSON.stringify(REPLIES)} }`,
    '  expect:',
    '    calls: [{ tool: echo, arguments: { text: one } }, { tool: echo }, { tool: echo, arguments_match: { text: "^th" } }]',
    '    counts: { echo: 3 }',
    '    final: { contains: three }',
    '    max_rounds: 3',
    'cases:',
  ];
  for (let i = 0; i < CASES; i += 1) lines.push(`  - name: case ${i}`);
  return `${lines.join('\n')}\n`;
}

/** The same runs as the suite's, started through prepareRun directly, CONCURRENCY at a time. */
async function directRuns(
  workspace: Workspace,
  pool: WorkerPool,
  cases: readonly LoadedCase[],
  folder: string,
): Promise<void> {
  let next = 0;
  const approver = new PolicyApprover('deny');
  const worker = async () => {
    while (next < cases.length) {
      const testCase = cases[next++]!;
      const run = await prepareRun({
        scriptFile: path.join(workspace.root, testCase.spec.agent),
        workspace,
        pool,
        approver,
        trust: { state: 'trusted' },
        inProcessModel: inProcessModel(new ScriptedProvider(REPLIES, testCase.name), 'scripted'),
        transcriptPath: path.join(folder, `${testCase.id.replace('/', '-')}.jsonl`),
        limits: { wallMs: 60_000 },
      });
      await run.start();
      const result = await run.done;
      if (result.status !== 'ok') throw new Error(`direct run failed: ${result.error?.message}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

export default async function run(): Promise<BenchRow[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'pf-bench-tests-'));
  mkdirSync(path.join(dir, 'agents'));
  mkdirSync(path.join(dir, 'tests'));
  writeFileSync(path.join(dir, 'promptforge.yaml'), '{}\n');
  // The example tool loop: it advertises echo, runs each call the model asks for, stops on text.
  copyFileSync(
    path.join(import.meta.dirname, '..', 'examples', 'agents', 'echo-loop.lua'),
    path.join(dir, 'agents', 'three.lua'),
  );
  writeFileSync(path.join(dir, 'tests', 'suite.yaml'), suiteText());
  const pool = new WorkerPool({ size: CONCURRENCY, entry: { file: WORKER_FILE } });
  pool.prewarm();
  try {
    const workspace = await loadWorkspace(dir);
    const loadTimes: number[] = [];
    const load = async () => {
      const problems: TestProblem[] = [];
      const t0 = now();
      const cases = await loadTestFile(workspace, path.join(dir, 'tests', 'suite.yaml'), problems);
      loadTimes.push(now() - t0);
      if (problems.length > 0) throw new Error(problems[0]!.message);
      return cases;
    };
    const cases = await load();
    let sampleNo = 0;
    const { measured, baseline } = await interleave(
      async () => {
        const folder = path.join(dir, 'runs', 'tests', `suite-${sampleNo++}`);
        const t0 = now();
        const suite = await runSuite({
          workspace,
          pool,
          trust: { state: 'trusted' },
          cases: await load(),
          concurrency: CONCURRENCY,
          folder,
          signal: new AbortController().signal,
        });
        const ms = now() - t0;
        const failed = suite.results.filter((result) => result.outcome !== 'passed');
        if (failed.length > 0) throw new Error(`${failed.length} bench cases failed: ${JSON.stringify(failed[0])}`);
        rmSync(folder, { recursive: true, force: true });
        return ms / CASES;
      },
      async () => {
        const folder = path.join(dir, 'runs', 'direct', `run-${sampleNo++}`);
        const t0 = now();
        await directRuns(workspace, pool, cases, folder);
        const ms = now() - t0;
        rmSync(folder, { recursive: true, force: true });
        return ms / CASES;
      },
      { warmup: 1, samples: SAMPLES },
    );
    // What a case is compared with: an empty script through the same engine.
    writeFileSync(path.join(dir, 'agents', 'empty.lua'), '');
    const approver = new PolicyApprover('deny');
    const empty: number[] = [];
    for (let i = 0; i < 110; i += 1) {
      const t0 = now();
      const emptyRun = await prepareRun({
        scriptFile: path.join(dir, 'agents', 'empty.lua'),
        workspace,
        pool,
        approver,
        trust: { state: 'trusted' },
        transcriptPath: path.join(dir, 'runs', 'empty', `${i}.jsonl`),
      });
      await emptyRun.start();
      await emptyRun.done;
      if (i >= 10) empty.push(now() - t0);
    }
    return [
      row(
        `1,000 cases (3 rounds, 3 echo calls, scripted model) through promptforge test's runner, per case`,
        'ms',
        measured,
        {
          baseline: {
            name: 'the same 1,000 runs through prepareRun directly, same concurrency and transcripts',
            values: baseline,
          },
          target: '≤ 1.5×',
          how: `Wall time of the whole suite divided by ${CASES}: the test file read and validated, each case run on a pool of ${CONCURRENCY} built Lua workers (${CONCURRENCY} at a time) with its transcript under runs/tests/, its assertions (ordered calls, a pattern, counts, final text, rounds) checked. The baseline starts the same runs with prepareRun, the same scripted provider, the same concurrency and transcript files, in the same process; the two are interleaved, one warm-up each. Cases per second = 1000 / median.`,
        },
      ),
      row('An empty script through prepareRun, with its transcript (warm worker, one at a time)', 'ms', empty, {
        how: 'prepareRun, start and run.done of an empty script on a warm worker, its transcript written, 100 samples after 10 warm-up runs: the engine floor a case is compared with.',
      }),
      row(`Loading and validating the 1,000-case test file`, 'ms', loadTimes, {
        how: 'loadTestFile on the suite file: YAML parse with positions, zod validation of every case, the names it uses checked against the workspace.',
      }),
    ];
  } finally {
    await pool.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function notes(rows: BenchRow[]): string {
  const suite = rows[0];
  if (!suite?.baseline) return '';
  return `Cases per second: **${(1000 / suite.median).toFixed(0)}** through the test runner, ${(1000 / suite.baseline.median).toFixed(0)} through the run engine directly (ratio ${suite.ratio!.toFixed(2)}×), on ${CONCURRENCY} workers.`;
}
