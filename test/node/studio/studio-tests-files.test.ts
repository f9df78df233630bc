/**
 * The Tests view's "New test file…" (`tests:create`) and its results from an earlier session
 * (`tests:list`'s `earlier`): names refused by main whatever the page sends, no write through a
 * link or over a file, and a report.json under runs/tests/ read as the untrusted file it is.
 */
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { contractEvents } from '../../../common/contract.js';
import { createTestFile } from '../../../main/core/studio/test-file-create.js';
import { contractStudio } from './contract-studio.js';
import { examples } from './studio-harness.js';

/** A copy of the example workspace, without tests/ and runs/ unless asked. */
function exampleCopy(keep: { tests?: boolean } = {}): string {
  const root = mkdtempSync(path.join(tmpdir(), 'pf-tests-files-'));
  cpSync(examples, root, {
    recursive: true,
    filter: (source) => !/[\\/]runs$/.test(source) && (keep.tests === true || !/[\\/]tests$/.test(source)),
  });
  return root;
}

describe('tests:create writes a new test file with a starter case', () => {
  it('writes tests/NAME.yaml for the agent named, lists it at once, and its case runs green', async () => {
    const studio = contractStudio();
    const opened = await studio.call('workspace:open-example', {});
    await studio.call('tests:list', {});
    const created = await studio.call('tests:create', { name: 'smoke', agent: 'agents/echo-loop.lua' });
    expect(created).toEqual({ file: 'tests/smoke.yaml' });
    const changed = await studio.next('tests-changed', (p) => p.files.some((file) => file.file === 'tests/smoke.yaml'));
    contractEvents['tests-changed'].parse(changed);
    const smoke = changed.files.find((file) => file.file === 'tests/smoke.yaml')!;
    expect(smoke.problems).toEqual([]);
    expect(smoke.cases).toEqual([
      expect.objectContaining({ id: 'smoke/echo-loop-ends-ok', agent: 'agents/echo-loop.lua', model: 'scripted' }),
    ]);
    const text = readFileSync(path.join(opened.root, 'tests', 'smoke.yaml'), 'utf8');
    expect(text).toContain('agent: agents/echo-loop.lua\n');
    const { suiteRunId } = await studio.call('tests:run', { file: 'tests/smoke.yaml' });
    const end = await studio.next('tests-progress', (p) => p.suiteRunId === suiteRunId && p.state !== 'running');
    expect(end.counts).toEqual({ passed: 1, failed: 0, errors: 0, notRun: 0 });
  });

  it('adds .yaml once, and takes the first agent when none is named', async () => {
    const studio = contractStudio();
    const opened = await studio.call('workspace:open-example', {});
    const state = await studio.call('workspace:state', {});
    expect(await studio.call('tests:create', { name: 'more.yaml' })).toEqual({ file: 'tests/more.yaml' });
    expect(readFileSync(path.join(opened.root, 'tests', 'more.yaml'), 'utf8')).toContain(
      `agent: ${state!.agents[0]}\n`,
    );
  });

  it('refuses names that are not a plain new file name, and never writes outside tests/', async () => {
    const studio = contractStudio();
    const opened = await studio.call('workspace:open-example', {});
    const before = readdirSync(path.join(opened.root, 'tests')).sort();
    const examplesText = readFileSync(path.join(opened.root, 'tests', 'examples.yaml'), 'utf8');
    const refused: [string, RegExp][] = [
      ['../x', /slash or backslash/],
      ['a/b', /slash or backslash/],
      ['a\\b', /slash or backslash/],
      ['..', /starts with a dot/],
      ['.hidden', /starts with a dot/],
      ['.yaml', /is empty|starts with a dot/],
      ['', /is empty/],
      ['   ', /is empty/],
      ['a\0b', /control character/],
      ['a\nb', /control character/],
      ['evil\u202Egnp', /U\+202E/],
      ['con', /reserved device name/],
      ['x'.repeat(101), /is 101 bytes long/],
      ['-flag', /does not start with a letter or digit/],
      ['my tests', /contains a space/],
    ];
    for (const [name, message] of refused) {
      const error = await studio.fail('tests:create', { name });
      expect({ name, code: error.code }).toEqual({ name, code: 'invalid-name' });
      expect(error.message).toMatch(message);
    }
    // Taken in any case, with or without .yaml, or as .yml: never overwritten.
    for (const name of ['examples', 'EXAMPLES.yaml', 'Examples']) {
      const error = await studio.fail('tests:create', { name });
      expect(error).toMatchObject({ code: 'name-taken', message: expect.stringContaining('tests/examples.yaml') });
    }
    writeFileSync(path.join(opened.root, 'tests', 'old.yml'), 'cases: []\n');
    expect(await studio.fail('tests:create', { name: 'old' })).toMatchObject({ code: 'name-taken' });
    // An agent that is not the workspace's, or a path out of it.
    expect(await studio.fail('tests:create', { name: 'a', agent: 'agents/nope.lua' })).toMatchObject({
      code: 'not-found',
    });
    expect(await studio.fail('tests:create', { name: 'a', agent: '../outside.lua' })).toMatchObject({
      code: 'invalid-payload',
    });
    // A 10 MB name: refused by the contract, and by main's own check with a short message.
    const huge = 'n'.repeat(10 << 20);
    expect(await studio.fail('tests:create', { name: huge })).toMatchObject({ code: 'invalid-payload' });
    const direct = await createTestFile(opened.root, ['agents/echo-loop.lua'], huge).catch((error: Error) => error);
    expect(direct).toMatchObject({ code: 'invalid-name' });
    expect((direct as Error).message.length).toBeLessThan(400);
    expect(readdirSync(path.join(opened.root, 'tests')).sort()).toEqual([...before, 'old.yml'].sort());
    expect(readFileSync(path.join(opened.root, 'tests', 'examples.yaml'), 'utf8')).toBe(examplesText);
    expect(existsSync(path.join(opened.root, 'x.yaml'))).toBe(false);
  });

  it('never writes through a symbolic link: tests/ leading outside, or a link in its place', async () => {
    const outside = mkdtempSync(path.join(tmpdir(), 'pf-outside-'));
    const secret = path.join(outside, 'kept.yaml');
    writeFileSync(secret, 'mine\n');

    const linkedFolder = exampleCopy();
    symlinkSync(outside, path.join(linkedFolder, 'tests'));
    const studio = contractStudio();
    await studio.openFolder(linkedFolder);
    expect(await studio.fail('tests:create', { name: 'planted' })).toMatchObject({ code: 'outside-workspace' });
    expect(await studio.fail('tests:create', { name: 'kept' })).toMatchObject({ code: 'outside-workspace' });
    expect(readdirSync(outside)).toEqual(['kept.yaml']);
    expect(readFileSync(secret, 'utf8')).toBe('mine\n');

    // A link where the new file would go: to a file outside, or dangling (writing would create its target).
    const linkedFiles = exampleCopy({ tests: true });
    symlinkSync(secret, path.join(linkedFiles, 'tests', 'kept.yaml'));
    symlinkSync(path.join(outside, 'new.yaml'), path.join(linkedFiles, 'tests', 'dangling.yaml'));
    await studio.openFolder(linkedFiles);
    expect(await studio.fail('tests:create', { name: 'kept' })).toMatchObject({ code: 'outside-workspace' });
    expect(await studio.fail('tests:create', { name: 'dangling' })).toMatchObject({ code: 'outside-workspace' });
    expect(readdirSync(outside)).toEqual(['kept.yaml']);
    expect(readFileSync(secret, 'utf8')).toBe('mine\n');

    // tests/ a file, not a folder.
    const fileInstead = exampleCopy();
    writeFileSync(path.join(fileInstead, 'tests'), 'not a folder');
    await studio.openFolder(fileInstead);
    expect(await studio.fail('tests:create', { name: 'a' })).toMatchObject({ code: 'not-a-folder' });
  });

  it('works in a restricted workspace (writing runs nothing), making tests/ when there is none', async () => {
    const root = exampleCopy();
    const studio = contractStudio();
    const opened = await studio.openFolder(root);
    expect((await studio.call('trust:status', {})).state).toBe('restricted');
    expect(await studio.call('tests:create', { name: 'first' })).toEqual({ file: 'tests/first.yaml' });
    const listing = await studio.call('tests:list', {});
    expect(listing.files.map((file) => [file.file, file.cases.length, file.problems])).toEqual([
      ['tests/first.yaml', 1, []],
    ]);
    expect(existsSync(path.join(opened.root, 'runs'))).toBe(false);
    expect(studio.pushed.some((p) => p.name === 'run-event' || p.name === 'tests-progress')).toBe(false);
  });

  it('quotes an agent path YAML would misread, and the case still names that agent', async () => {
    const root = exampleCopy();
    const odd = 'agents/x: #y.lua';
    writeFileSync(path.join(root, odd), readFileSync(path.join(root, 'agents', 'echo-loop.lua')));
    const studio = contractStudio();
    await studio.openFolder(root);
    await studio.call('tests:create', { name: 'odd', agent: odd });
    const listing = await studio.call('tests:list', {});
    expect(listing.files[0]!.cases[0]).toMatchObject({ agent: odd });
    expect(listing.files[0]!.problems).toEqual([]);
  });
});

describe("tests:list's earlier: the newest suite run of an earlier session", () => {
  // One workspace: a studio runs its tests, then another studio (a restart) opens it.
  let root = '';

  it('a first session runs every case', async () => {
    const studio = contractStudio();
    const opened = await studio.call('workspace:open-example', {});
    root = opened.root;
    const { suiteRunId } = await studio.call('tests:run', {});
    await studio.next('tests-progress', (p) => p.suiteRunId === suiteRunId && p.state !== 'running');
    // This session's own run is this session's, not an earlier one.
    const listing = await studio.call('tests:list', {});
    expect(listing.earlier).toBeNull();
    expect(listing.suite?.results).toHaveLength(4);
  });

  it("after a restart, the cases show that run's results with its time, and each opens its transcript", async () => {
    const studio = contractStudio();
    await studio.openFolder(root);
    const listing = await studio.call('tests:list', {});
    expect(listing.suite).toBeNull();
    const earlier = listing.earlier!;
    expect(earlier.suiteRunId).toMatch(/^suite-/);
    expect(earlier.folder).toBe(`runs/tests/${earlier.suiteRunId}`);
    expect(Date.parse(earlier.time)).toBeGreaterThan(Date.parse('2024-01-01'));
    expect(earlier.results.map((result) => [result.id, result.outcome])).toEqual(
      listing.files[0]!.cases.map((testCase) => [testCase.id, 'passed']),
    );
    const runId = earlier.results[0]!.run!.runId;
    const page = await studio.call('history:page', { runId, from: 0, count: 1 });
    expect(page.events[0]).toMatchObject({ type: 'run-start', runId });
  });

  it('reads a hostile report.json as untrusted: too large, invalid, relabelling, or through a link, it shows nothing false', async () => {
    const workspace = exampleCopy({ tests: true });
    const suites = path.join(workspace, 'runs', 'tests');
    const cases = [
      { id: 'examples/echo-loop-echoes-twice-then-answers', name: 'echo-loop echoes twice, then answers' },
    ];
    const result = (over: Record<string, unknown> = {}) => ({
      id: cases[0]!.id,
      name: cases[0]!.name,
      file: 'tests/examples.yaml',
      line: 1,
      model: 'scripted',
      outcome: 'failed',
      failures: [{ field: 'expect.final', expected: 'a', actual: 'b', step: { seq: 3 } }],
      ...over,
    });
    const suite = (stamp: string, body: unknown, raw?: string) => {
      const id = `suite-2024-05-${stamp}T10-00-00-000Z-abcdef`;
      mkdirSync(path.join(suites, id), { recursive: true });
      writeFileSync(
        path.join(suites, id, 'report.json'),
        raw ?? JSON.stringify({ suiteRunId: id, interrupted: false, results: [], ...(body as object) }),
      );
      return id;
    };
    // The oldest is the one valid report; every newer one is hostile.
    const valid = suite('01', { results: [result()] });
    suite('02', { results: [result({ outcome: 'passed' })], pad: 'x'.repeat(9 << 20) });
    suite('03', {}, 'not json');
    suite('04', {}, '['.repeat(1_000_000));
    suite('05', { suiteRunId: 'suite-2024-05-01T10-00-00-000Z-abcdef' });
    suite('06', { results: 'many' });
    suite('07', { results: [{ ...result(), outcome: 'excellent' }] });
    const fifo = path.join(suites, 'suite-2024-05-08T10-00-00-000Z-abcdef');
    mkdirSync(fifo);
    execFileSync('mkfifo', [path.join(fifo, 'report.json')]);
    const outside = mkdtempSync(path.join(tmpdir(), 'pf-outside-report-'));
    const linked = 'suite-2024-05-09T10-00-00-000Z-abcdef';
    writeFileSync(
      path.join(outside, 'report.json'),
      JSON.stringify({ suiteRunId: linked, interrupted: false, results: [result({ outcome: 'passed' })] }),
    );
    mkdirSync(path.join(suites, linked));
    symlinkSync(path.join(outside, 'report.json'), path.join(suites, linked, 'report.json'));
    symlinkSync(outside, path.join(suites, 'suite-2024-05-10T10-00-00-000Z-abcdef'));
    mkdirSync(path.join(suites, 'suite-9999-99-99T99-99-99-999Z-abcdef'));
    writeFileSync(
      path.join(suites, 'suite-9999-99-99T99-99-99-999Z-abcdef', 'report.json'),
      JSON.stringify({ suiteRunId: 'suite-9999-99-99T99-99-99-999Z-abcdef', interrupted: false, results: [] }),
    );

    const studio = contractStudio();
    await studio.openFolder(workspace);
    const listing = await studio.call('tests:list', {});
    expect(listing.earlier).toMatchObject({ suiteRunId: valid, time: '2024-05-01T10:00:00.000Z' });
    expect(listing.earlier!.results).toEqual([
      expect.objectContaining({
        id: cases[0]!.id,
        outcome: 'failed',
        line: 11,
        failures: [expect.objectContaining({ where: 'at event 3' })],
      }),
    ]);
  });

  it('keeps a result only for its own case, and a run only where that case is recorded and its id is free', async () => {
    const workspace = exampleCopy({ tests: true });
    const id = 'suite-2024-06-01T10-00-00-000Z-a1b2c3';
    const folder = path.join(workspace, 'runs', 'tests', id);
    mkdirSync(path.join(folder, 'examples'), { recursive: true });
    // A run of the person's in History, and the transcripts the suite records.
    writeFileSync(path.join(workspace, 'runs', 'history-run.jsonl'), '');
    const transcript = (caseId: string) => path.join(folder, ...`${caseId}.jsonl`.split('/'));
    const echoes = 'examples/echo-loop-echoes-twice-then-answers';
    const summarize = 'examples/summarize-page-reads-the-page-only-with-approval-and-its-text-is-untrusted';
    const weather = 'examples/weather-report-replays-its-recording';
    for (const caseId of [echoes, summarize, weather]) writeFileSync(transcript(caseId), '');
    const base = {
      file: 'tests/examples.yaml',
      line: 1,
      model: 'scripted',
      failures: [],
    };
    const run = (runId: string) => ({ run: { runId, status: 'ok', rounds: 1, tokens: 1, durationMs: 1 } });
    const report = {
      suiteRunId: id,
      interrupted: true,
      results: [
        // Another case's name under this id: would show one case's verdict as another's.
        { ...base, id: echoes, name: 'weather-report replays its recording', outcome: 'passed', ...run('r1') },
        // Its own name, its run id that of the person's run in History.
        { ...base, id: echoes, name: 'echo-loop echoes twice, then answers', outcome: 'failed', ...run('history-run') },
        // A later duplicate does not override the first.
        { ...base, id: echoes, name: 'echo-loop echoes twice, then answers', outcome: 'passed' },
        // A case that no longer exists, and one under another file.
        { ...base, id: 'examples/gone', name: 'gone', outcome: 'passed' },
        {
          ...base,
          id: weather,
          name: 'weather-report replays its recording',
          file: 'tests/other.yaml',
          outcome: 'passed',
        },
        // Two cases claiming one run id: the first keeps it, the second shows no run.
        {
          ...base,
          id: summarize,
          name: 'summarize-page reads the page only with approval, and its text is untrusted',
          outcome: 'passed',
          ...run('shared'),
        },
        { ...base, id: weather, name: 'weather-report replays its recording', outcome: 'error', ...run('shared') },
        // A run id that is a path.
        { ...base, id: 'examples/x', name: 'x', outcome: 'passed', ...run('../../history-run') },
      ],
    };
    writeFileSync(path.join(folder, 'report.json'), JSON.stringify(report));
    const studio = contractStudio();
    await studio.openFolder(workspace);
    const listing = await studio.call('tests:list', {});
    const names = new Map(listing.files[0]!.cases.map((testCase) => [testCase.id, testCase.name]));
    const shown = listing.earlier!.results;
    // Each shown result is its case's (id, file and name), once.
    for (const shownResult of shown) expect(names.get(shownResult.id)).toBe(shownResult.name);
    expect(shown.map((r) => [r.id, r.outcome, r.run?.runId ?? null])).toEqual([
      [echoes, 'failed', null],
      [summarize, 'passed', 'shared'],
      [weather, 'error', null],
    ]);
    expect(listing.earlier!.interrupted).toBe(true);
    // The person's run still opens as itself.
    expect(await studio.fail('history:page', { runId: 'r1', from: 0, count: 1 })).toMatchObject({
      code: 'run-not-found',
    });
  });
});
