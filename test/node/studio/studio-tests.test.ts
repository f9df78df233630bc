/**
 * The studio's Tests view, through the contract as the renderer reaches it: listing test files and
 * cases, running all or one with `promptforge test`'s runner, progress as `tests-progress`, results
 * with expected, actual and the step, transcripts under runs/tests/ opened and forked by run id
 * (never a path from the page), the trust rule (never silently restricted), stop and file changes.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { contractEvents, type ContractEventPayload } from '../../../common/contract.js';
import { contractStudio, type ContractStudio } from './contract-studio.js';
import { examples } from './studio-harness.js';

type Progress = ContractEventPayload<'tests-progress'>;

/** The suite's last `tests-progress` (its end), each pushed payload checked against the contract. */
async function finished(studio: ContractStudio, suiteRunId: string): Promise<Progress> {
  const end = await studio.next('tests-progress', (p) => p.suiteRunId === suiteRunId && p.state !== 'running');
  for (const pushed of studio.pushed.filter((p) => p.name === 'tests-progress'))
    contractEvents['tests-progress'].parse(pushed.payload);
  return end;
}

const FAILING = `cases:
  - name: echoes mars
    agent: agents/echo-loop.lua
    model:
      replies:
        - calls: [{ name: echo, arguments: { text: hello } }]
        - content: done
    expect:
      calls: [{ tool: echo, arguments: { text: mars } }]
      logs: { contains: never logged }
`;

describe('tests:list, tests:run and tests-progress', () => {
  it('lists the example test file, runs every case green, and records them under runs/tests/, not in History', async () => {
    const studio = contractStudio();
    const opened = await studio.call('workspace:open-example', {});
    const listing = await studio.call('tests:list', {});
    expect(listing.folder).toBe('tests');
    expect(listing.suite).toBeNull();
    expect(listing.files.map((file) => [file.file, file.cases.length, file.problems])).toEqual([
      ['tests/examples.yaml', 4, []],
    ]);
    expect(listing.files[0]!.cases[0]).toEqual({
      id: 'examples/echo-loop-echoes-twice-then-answers',
      name: 'echo-loop echoes twice, then answers',
      line: 11,
      agent: 'agents/echo-loop.lua',
      model: 'scripted',
    });

    const { suiteRunId, total } = await studio.call('tests:run', {});
    expect(total).toBe(4);
    const end = await finished(studio, suiteRunId);
    expect(end).toMatchObject({ state: 'finished', total: 4, done: 4, counts: { passed: 4, failed: 0, errors: 0 } });
    // Progress counted up one case at a time.
    const steps = studio.pushed.filter((p) => p.name === 'tests-progress').map((p) => (p.payload as Progress).done);
    expect(steps).toEqual([0, 1, 2, 3, 4, 4]);
    // Recorded like the CLI's: a transcript per case and report.json; none of it in History, and no run-event.
    const folder = path.join(opened.root, end.folder);
    expect(readdirSync(path.join(folder, 'examples'))).toHaveLength(4);
    expect(JSON.parse(readFileSync(path.join(folder, 'report.json'), 'utf8'))).toMatchObject({
      suiteRunId,
      counts: { total: 4, passed: 4 },
    });
    expect((await studio.call('workspace:state', {}))!.runs).toEqual([]);
    expect(studio.pushed.filter((p) => p.name === 'run-event')).toEqual([]);
    // The listing now carries the results.
    const after = await studio.call('tests:list', {});
    expect(after.suite).toMatchObject({ suiteRunId, state: 'finished', done: 4 });
    expect(after.suite!.results.map((result) => result.outcome)).toEqual(['passed', 'passed', 'passed', 'passed']);
  });

  it('a failing case says expected, actual and the step; its transcript opens and forks by its run id', async () => {
    const studio = contractStudio();
    const opened = await studio.call('workspace:open-example', {});
    writeFileSync(path.join(opened.root, 'tests', 'failing.yaml'), FAILING);
    const listing = await studio.call('tests:list', {});
    const id = listing.files.find((file) => file.file === 'tests/failing.yaml')!.cases[0]!.id;
    const { suiteRunId, total } = await studio.call('tests:run', { case: id });
    expect(total).toBe(1);
    const result = (await studio.next('tests-progress', (p) => p.suiteRunId === suiteRunId && p.result !== undefined))
      .result!;
    expect(result).toMatchObject({ id, outcome: 'failed', model: 'scripted', run: { status: 'ok' } });
    const [calls, logs] = result.failures;
    expect(calls).toMatchObject({
      field: 'expect.calls[1].arguments',
      expected: '{"text":"mars"}',
      actual: '{"text":"hello"}',
      step: { round: 1, call: 1 },
      where: expect.stringMatching(/^at event \d+ \(round 1, call 1\)$/),
    });
    expect(logs).toMatchObject({
      field: 'expect.logs',
      step: { afterRun: true },
      where: expect.stringMatching(/^after the run/),
    });
    await finished(studio, suiteRunId);

    // history:page opens it by its run id: the step is the seq of that call's tool-dispatch.
    const page = await studio.call('history:page', { runId: result.run!.runId, from: 0, count: 100 });
    expect(page.events[0]).toMatchObject({ type: 'run-start', runId: result.run!.runId });
    expect(page.events.find((event) => event.seq === calls!.step!.seq)).toMatchObject({
      type: 'tool-dispatch',
      alias: 'echo',
      arguments: { text: 'hello' },
    });
    // Fork it like any run (here at the last model round, with another reply): a new run, in History.
    const last = page.events.findLast((event) => event.type === 'round-response')!;
    const fork = await studio.call('run:fork', {
      runId: result.run!.runId,
      step: last.seq,
      edit: { reply: 'done, in a fork' },
    });
    const ended = await studio.ended(fork.runId);
    expect(ended, JSON.stringify(ended.error)).toMatchObject({ status: 'ok' });
    expect(studio.runEvents(fork.runId)[0]).toMatchObject({ type: 'run-start', forkOf: { step: last.seq } });
    expect((await studio.call('workspace:state', {}))!.runs.map((run) => run.runId)).toEqual([fork.runId]);
  });

  it('a run id is never a path: one that tries to leave runs/, or a test run of another workspace, is run-not-found', async () => {
    const studio = contractStudio();
    await studio.call('workspace:open-example', {});
    const { suiteRunId } = await studio.call('tests:run', { file: 'tests/examples.yaml' });
    const end = await finished(studio, suiteRunId);
    const runId = (await studio.call('tests:list', {})).suite!.results[0]!.run!.runId;
    for (const bad of [`tests/${suiteRunId}/examples/x`, '../promptforge', `${end.folder}/report`])
      expect(await studio.fail('history:page', { runId: bad, from: 0, count: 1 })).toMatchObject({
        code: 'run-not-found',
      });
    // Another workspace: its test runs are not these.
    const other = mkdtempSync(path.join(tmpdir(), 'pf-other-'));
    cpSync(examples, other, { recursive: true, filter: (source) => !source.includes(`${path.sep}runs`) });
    await studio.openFolder(other);
    expect(await studio.fail('history:page', { runId, from: 0, count: 1 })).toMatchObject({ code: 'run-not-found' });
  });
});

describe('tests never run silently restricted', () => {
  it('in a workspace that is not trusted, running refuses and says how; a replay-only case still runs', async () => {
    const studio = contractStudio();
    const folder = mkdtempSync(path.join(tmpdir(), 'pf-untrusted-'));
    cpSync(examples, folder, { recursive: true, filter: (source) => !source.includes(`${path.sep}runs`) });
    await studio.openFolder(folder);
    expect((await studio.call('trust:status', {})).state).toBe('restricted');
    const refused = await studio.fail('tests:run', {});
    expect(refused).toMatchObject({ code: 'workspace-restricted' });
    expect(refused.message).toContain('tests never run restricted');
    expect(refused.message).toContain('Review and trust');
    expect(existsSync(path.join(folder, 'runs', 'tests'))).toBe(false);
    expect(studio.person.questions).toEqual([]);
    // Replaying a recording runs nothing of the workspace, as promptforge test says.
    const replay = (await studio.call('tests:list', {})).files[0]!.cases.find((c) => c.model.startsWith('replay '))!;
    const { suiteRunId } = await studio.call('tests:run', { case: replay.id });
    expect(await finished(studio, suiteRunId)).toMatchObject({ state: 'finished', counts: { passed: 1 } });
  });
});

describe('stop, mistakes and changes', () => {
  it('stop ends the running case and starts no more; a second run meanwhile is refused', async () => {
    const studio = contractStudio();
    const opened = await studio.call('workspace:open-example', {});
    writeFileSync(path.join(opened.root, 'agents', 'spin.lua'), 'while true do end');
    const spins = Array.from(
      { length: 3 },
      (_, i) => `  - { name: spins ${i}, agent: agents/spin.lua, model: { replies: [] }, limits: { cpu: 60 } }`,
    );
    writeFileSync(path.join(opened.root, 'tests', 'spin.yaml'), `cases:\n${spins.join('\n')}\n`);
    const { suiteRunId } = await studio.call('tests:run', { file: 'tests/spin.yaml' });
    expect(await studio.fail('tests:run', {})).toMatchObject({ code: 'tests-running' });
    expect(await studio.call('tests:stop', {})).toEqual({ stopped: true });
    const end = await finished(studio, suiteRunId);
    expect(end.state).toBe('stopped');
    expect(end.counts.passed).toBe(0);
    expect(end.done + end.counts.notRun).toBe(3);
    expect(await studio.call('tests:stop', {})).toEqual({ stopped: false });
  });

  it('a run the host cannot finish (its report cannot be written) ends stopped and says why', async () => {
    const studio = contractStudio();
    const opened = await studio.call('workspace:open-example', {});
    writeFileSync(path.join(opened.root, 'agents', 'spin.lua'), 'while true do end');
    writeFileSync(
      path.join(opened.root, 'tests', 'spin.yaml'),
      'cases:\n  - { name: spins, agent: agents/spin.lua, model: { replies: [] }, limits: { cpu: 60 } }\n',
    );
    const { suiteRunId } = await studio.call('tests:run', { file: 'tests/spin.yaml' });
    const started = await studio.next('tests-progress', (p) => p.suiteRunId === suiteRunId);
    // A folder where report.json should go: writing it fails.
    mkdirSync(path.join(opened.root, started.folder, 'report.json'));
    await studio.call('tests:stop', {});
    const end = await finished(studio, suiteRunId);
    expect(end).toMatchObject({ state: 'stopped', error: expect.stringMatching(/^the test run stopped: .*EISDIR/) });
    // The studio goes on: the next run starts.
    expect((await studio.call('tests:run', { file: 'tests/examples.yaml' })).total).toBe(4);
  });

  it('lists a file with mistakes by line and fix, refuses to run it, and pushes tests-changed when a file changes', async () => {
    const studio = contractStudio();
    const opened = await studio.call('workspace:open-example', {});
    await studio.call('tests:list', {});
    writeFileSync(
      path.join(opened.root, 'tests', 'broken.yaml'),
      'cases:\n  - name: typo\n    agent: agents/echo-loop.lua\n    model: fastt\n',
    );
    const changed = await studio.next('tests-changed', (p) =>
      p.files.some((file) => file.file === 'tests/broken.yaml'),
    );
    contractEvents['tests-changed'].parse(changed);
    const broken = changed.files.find((file) => file.file === 'tests/broken.yaml')!;
    expect(broken.cases).toEqual([]);
    expect(broken.problems).toEqual([
      expect.objectContaining({
        line: 4,
        message: 'model "fastt" is not in models.yaml; did you mean "fast"?',
        fix: 'Write "fast" instead.',
      }),
    ]);
    expect(await studio.fail('tests:run', {})).toMatchObject({
      code: 'test-file-problems',
      message: expect.stringContaining('tests/broken.yaml:4'),
    });
    expect(await studio.fail('tests:run', { file: 'tests/nope.yaml' })).toMatchObject({ code: 'no-tests' });
    expect(await studio.fail('tests:run', { case: 'examples/nope' })).toMatchObject({ code: 'no-tests' });
    // Another file still runs on its own.
    const { total } = await studio.call('tests:run', { file: 'tests/examples.yaml' });
    expect(total).toBe(4);
  });
});
