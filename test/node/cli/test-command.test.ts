import { once } from 'node:events';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main, type CliIo } from '../../../main/cli/cli.js';
import { TEST_EXIT } from '../../../main/cli/exit-codes.js';
import { byAssistantCount, startScriptedServer, type ScriptedServer } from '../../fixtures/scripted-openai-server.js';
import { testPool } from '../run/run-harness.js';
import { trustForTests } from '../trust/trust-for-tests.js';
import { root, spawnCli } from './spawn-cli.js';
import { mapSecretStore } from '../../fixtures/stubs.js';

interface Captured {
  code: number;
  stdout: string;
  stderr: string;
}

async function cli(args: string[], cwd: string, terminal?: { answer: string }): Promise<Captured> {
  const stdout = new PassThrough();
  // On a terminal, stderr is one too: the progress line is drawn there.
  const stderr = Object.assign(new PassThrough(), terminal ? { isTTY: true } : {});
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const stdin = Object.assign(new PassThrough(), terminal ? { isTTY: true } : {});
  stdin.end(terminal?.answer ?? '');
  const io: CliIo = {
    stdin,
    stdout,
    stderr,
    env: { PROMPTFORGE_CONFIG_DIR: process.env['PROMPTFORGE_CONFIG_DIR'] },
    cwd,
    onInterrupt: () => () => undefined,
    secrets: () => mapSecretStore(),
    pool: testPool(),
  };
  const code = await main(args, io);
  return { code, stdout: out, stderr: err };
}

/** A copy of the examples workspace with its example tests in tests/. */
function workspace(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'pf-test-cli-'));
  cpSync(path.join(root, 'examples'), dir, { recursive: true, filter: (src) => !src.includes(`${path.sep}runs`) });
  mkdirSync(path.join(dir, 'tests'), { recursive: true });
  cpSync(path.join(root, 'examples', 'tests', 'examples.yaml'), path.join(dir, 'tests', 'examples.yaml'));
  return dir;
}

const FAILING = `cases:
  - name: says <hello> & "bye" 'now'
    agent: agents/echo-loop.lua
    model:
      replies:
        - calls: [{ name: echo, arguments: { text: hello } }]
        - content: "done \\u0001 <b>"
    expect:
      calls: [{ tool: echo, arguments: { text: goodbye } }]
`;

describe('promptforge test: exit codes, reporters and files', () => {
  it('exits 0 when every case passes, and says where the transcripts are', async () => {
    const dir = workspace();
    await trustForTests(dir);
    const result = await cli(['test'], dir);
    expect(result.stderr).not.toMatch(/error/i);
    expect(result.stdout).toMatch(/^4 passed, 0 failed, 0 could not run \(4 in all, [\d.]+ s\)$/m);
    expect(result.code).toBe(TEST_EXIT.passed);
    const [suite] = readdirSync(path.join(dir, 'runs', 'tests'));
    expect(readdirSync(path.join(dir, 'runs', 'tests', suite!, 'examples'))).toHaveLength(4);
    expect(result.stderr).toContain(`transcripts and report.json in ${path.join('runs', 'tests', suite!)}`);
  });

  it("given the workspace's own folder, tests its tests/ (never its catalogs); a workspace inside it is named, with how to test it", async () => {
    const dir = workspace();
    await trustForTests(dir);
    const parent = path.dirname(dir);
    const own = await cli(['test', path.basename(dir)], parent);
    expect(own.stderr).not.toMatch(/error/i);
    expect(own.stdout).toMatch(/^4 passed, 0 failed/m);
    expect(own.code).toBe(TEST_EXIT.passed);
    // agentdojo/ holds catalogs of its own: its tests are that workspace's, not this one's.
    const inner = await cli(['test', 'agentdojo'], dir);
    expect(inner.code).toBe(2);
    expect(inner.stderr).toContain(
      'agentdojo is a workspace of its own; test it with: promptforge test --workspace agentdojo',
    );
    expect(inner.stderr).not.toMatch(/does not exist in the workspace|unknown field/);
  });

  it('exits 1 on a failure, printing expected, actual, the step and how to replay it; --json and --junit say the same', async () => {
    const dir = workspace();
    writeFileSync(path.join(dir, 'tests', 'failing.yaml'), `${FAILING}      logs: { contains: never logged }\n`);
    await trustForTests(dir);
    const junit = path.join(dir, 'out', 'junit.xml');
    const human = await cli(['test', 'tests/failing.yaml', '--junit', 'out/junit.xml'], dir);
    expect(human.code).toBe(TEST_EXIT.failed);
    expect(human.stdout).toContain(`FAIL tests/failing.yaml:2 says <hello> & "bye" 'now' [scripted]`);
    expect(human.stdout).toMatch(
      / {2}expect\.calls\[1\]\.arguments at event \d+ \(round 1, call 1\)\n {4}expected: \{"text":"goodbye"\}\n {4}actual: {3}\{"text":"hello"\}/,
    );
    // An assertion on the whole run names its step as after the run, the same in every report.
    expect(human.stdout).toMatch(
      / {2}expect\.logs after the run \(event \d+, its end\)\n {4}expected: contains "never logged"/,
    );
    expect(human.stdout).toMatch(/replay: promptforge run \S*echo-loop\.lua --replay \S*says-hello-bye-now\.jsonl/);
    expect(human.stdout).toContain('0 passed, 1 failed');

    const xml = readFileSync(junit, 'utf8');
    expect(xml).toMatch(
      /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites name="promptforge test suite-[^"]+" tests="1" failures="1" errors="0" skipped="0" time="[\d.]+">/,
    );
    expect(xml).toContain('<testsuite name="tests/failing.yaml" tests="1" failures="1" errors="0" skipped="0"');
    expect(xml).toContain(
      `<testcase name="says &lt;hello&gt; &amp; &quot;bye&quot; &apos;now&apos;" classname="tests.failing" file="tests/failing.yaml" line="2" time="`,
    );
    expect(xml).toContain(
      '<failure message="expect.calls[1].arguments: expected {&quot;text&quot;:&quot;goodbye&quot;}" type="AssertionError">',
    );
    expect(xml).toMatch(
      /expect\.logs after the run \(event \d+, its end\)\n {2}expected: contains &quot;never logged&quot;/,
    );
    expect(xml).toContain('</testcase>\n  </testsuite>\n</testsuites>\n');

    const json = await cli(['test', 'tests/failing.yaml', '--json'], dir);
    expect(json.code).toBe(TEST_EXIT.failed);
    const report = JSON.parse(json.stdout) as {
      counts: object;
      results: { failures: { field: string; step: object }[] }[];
      folder: string;
    };
    expect(report.counts).toEqual({ total: 1, passed: 0, failed: 1, errors: 0, notRun: 0 });
    expect(report.results[0]!.failures[0]).toMatchObject({
      field: 'expect.calls[1].arguments',
      step: { round: 1, call: 1 },
    });
    expect(report.results[0]!.failures[1]).toMatchObject({ field: 'expect.logs', step: { afterRun: true } });
    expect(JSON.parse(readFileSync(path.join(report.folder, 'report.json'), 'utf8'))).toMatchObject({
      counts: report.counts,
    });
  });

  it('--filter runs only the cases it matches', async () => {
    const dir = workspace();
    await trustForTests(dir);
    const result = await cli(['test', '--filter', 'weather', '--json'], dir);
    const report = JSON.parse(result.stdout) as { results: { name: string }[] };
    expect(report.results.map((r) => r.name)).toEqual(['weather-report replays its recording']);
    expect(result.code).toBe(0);
  });

  it.each([
    [['test', 'tests/nope.yaml'], /no such test file or folder: .*nope\.yaml/],
    [
      ['test', '--model', 'fast,nope'],
      /unknown model "nope" \(from --model\); models\.yaml defines fast, claude, local/,
    ],
    [['test', '--filter', 'zzz'], /no case matches --filter "zzz"/],
    [['test', '--jobs', '0'], /--jobs must be a whole number of 1 or more, got "0"/],
  ])('exits 2 on a usage error: %j', async (args, message) => {
    const dir = workspace();
    const result = await cli(args, dir);
    expect(result.stderr).toMatch(message);
    expect(result.code).toBe(TEST_EXIT.usage);
  });

  it('exits 2 on a test file with errors, naming file:line:column, the field and the fix, and runs nothing', async () => {
    const dir = workspace();
    writeFileSync(
      path.join(dir, 'tests', 'bad.yaml'),
      `cases:\n  - name: x\n    agent: agents/nope.lua\n    model: { replies: [] }\n`,
    );
    const result = await cli(['test'], dir);
    expect(result.stderr).toContain(
      'tests/bad.yaml:3:12: error: agent "agents/nope.lua" does not exist in the workspace (fix: Give the script\'s path relative to the workspace',
    );
    expect(result.stderr).toContain('1 problem(s) in the test files; nothing ran');
    expect(result.code).toBe(TEST_EXIT.usage);
    expect(existsSync(path.join(dir, 'runs', 'tests'))).toBe(false);
  });

  it('exits 4 in a workspace that is not trusted, with no terminal to ask on, and runs nothing', async () => {
    const dir = workspace();
    const result = await cli(['test'], dir);
    expect(result.stderr).toContain('is not a trusted workspace, and there is no terminal to ask on');
    expect(result.stderr).not.toContain('--restricted');
    expect(result.code).toBe(TEST_EXIT.untrusted);
    expect(existsSync(path.join(dir, 'runs'))).toBe(false);
  });

  it('on a terminal, an untrusted workspace is shown and asked about (no restricted choice); a yes runs the cases with a progress line', async () => {
    const declined = workspace();
    const no = await cli(['test'], declined, { answer: 'n\n' });
    expect(no.stderr).toContain('is not a trusted workspace.');
    expect(no.stderr).toContain('Trust this workspace? [y]es, [N]o: ');
    expect(no.code).toBe(TEST_EXIT.untrusted);
    expect(existsSync(path.join(declined, 'runs'))).toBe(false);

    const accepted = workspace();
    const yes = await cli(['test'], accepted, { answer: 'y\n' });
    expect(yes.stderr).toContain('\r\x1b[K[1/4] ');
    expect(yes.stderr).toContain('\r\x1b[K[4/4] 4 passed, 0 failed');
    expect(yes.stdout).toContain('4 passed, 0 failed');
    expect(yes.code).toBe(TEST_EXIT.passed);
  });

  it('has its help: test --help and help test', async () => {
    const dir = workspace();
    for (const args of [
      ['test', '--help'],
      ['help', 'test'],
    ]) {
      const result = await cli(args, dir);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^Usage: promptforge test \[PATH\.\.\.\] \[options\]/);
      expect(result.stdout).toContain('--junit FILE');
      expect(result.stdout).toContain('3 interrupted (Ctrl-C');
    }
    expect((await cli(['--help'], dir)).stdout).toContain('test [PATH...]             run the workspace');
  });

  it('--help shows a minimal case that runs green as written, and points to docs/testing.md', async () => {
    const dir = workspace();
    await trustForTests(dir);
    const help = (await cli(['test', '--help'], dir)).stdout;
    expect(help).toContain(
      'The full format (every assertion, approvals, recordings, live models, test environments, limits)\nis in docs/testing.md',
    );
    // The example is the help's indented block after "tests/echo.yaml": copied out, it passes.
    const lines = help.split('\n');
    const start = lines.findIndex((line) => line === '  cases:');
    const end = lines.findIndex((line, index) => index > start && line === '');
    const example = lines
      .slice(start, end)
      .map((line) => line.slice(2))
      .join('\n');
    expect(example).toMatch(/^cases:\n {2}- name: echoes hello, then answers\n/);
    writeFileSync(path.join(dir, 'tests', 'echo.yaml'), `${example}\n`);
    const result = await cli(['test', 'tests/echo.yaml'], dir);
    expect(result.stdout).toMatch(/^1 passed, 0 failed, 0 could not run/m);
    expect(result.code).toBe(TEST_EXIT.passed);
  });

  it('--update writes what the failing run did as its expectations, shows the diff, and the case then passes', async () => {
    const dir = workspace();
    writeFileSync(path.join(dir, 'tests', 'failing.yaml'), FAILING);
    await trustForTests(dir);
    const updated = await cli(['test', 'tests/failing.yaml', '--update'], dir);
    expect(updated.code).toBe(TEST_EXIT.failed);
    expect(updated.stderr).toContain('--update wrote new expectations for 1 case(s) into tests/failing.yaml');
    expect(updated.stdout).toContain('--- tests/failing.yaml\n+++ tests/failing.yaml (updated)');
    expect(updated.stdout).toMatch(/^-.*goodbye/m);
    expect(updated.stdout).toMatch(/^\+.*hello/m);
    const text = readFileSync(path.join(dir, 'tests', 'failing.yaml'), 'utf8');
    expect(text).toContain('status: ok');
    const again = await cli(['test', 'tests/failing.yaml'], dir);
    expect(again.stdout).toContain('1 passed, 0 failed');
    expect(again.code).toBe(TEST_EXIT.passed);
  });
});

describe('promptforge test against live models (loopback servers standing in for paid APIs)', () => {
  let good: ScriptedServer;
  let lazy: ScriptedServer;
  let closedPort: number;
  beforeAll(async () => {
    good = await startScriptedServer(
      byAssistantCount([
        { toolCalls: [{ id: 'a', name: 'echo', arguments: '{"text":"hello"}' }] },
        { toolCalls: [{ id: 'b', name: 'echo', arguments: '{"text":"world"}' }] },
        { content: 'I echoed hello and world.' },
      ]),
    );
    lazy = await startScriptedServer(byAssistantCount([{ content: 'No.' }]));
    // A port that was just free and now refuses: a model server that is down.
    const probe = createServer();
    probe.listen(0, '127.0.0.1');
    await once(probe, 'listening');
    closedPort = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
  });
  afterAll(async () => {
    await good.close();
    await lazy.close();
  });

  function liveWorkspace(): string {
    const dir = workspace();
    writeFileSync(
      path.join(dir, 'models.yaml'),
      `good: { provider: openai-compatible, model: m, baseUrl: "${good.url}", price: { inputPerMillion: 1, outputPerMillion: 2 } }
lazy: { provider: openai-compatible, model: m, baseUrl: "${lazy.url}" }
down: { provider: openai-compatible, model: m, baseUrl: "http://127.0.0.1:${closedPort}/v1" }
`,
    );
    writeFileSync(path.join(dir, 'promptforge.yaml'), 'defaultModel: good\n');
    return dir;
  }

  it('--model A,B runs every case against each model and prints a comparison table', async () => {
    const dir = liveWorkspace();
    await trustForTests(dir);
    const result = await cli(['test', '--filter', 'echo-loop', '--model', 'good,lazy'], dir);
    expect(result.code).toBe(TEST_EXIT.failed);
    const table = result.stdout.split('\n').filter((line) => /^(model|good|lazy) /.test(line));
    expect(table[0]).toMatch(/^model\s+passed\s+tokens\s+cost\s+median latency$/);
    expect(table[1]).toMatch(/^good\s+1\/1 \(100%\)\s+\d+\s+\d+\.\d{4}\s+\d+ ms$/);
    expect(table[2]).toMatch(/^lazy\s+0\/1 \(0%\)\s+\d+\s+-\s+\d+ ms$/);
    const suite = readdirSync(path.join(dir, 'runs', 'tests'))[0]!;
    expect(readdirSync(path.join(dir, 'runs', 'tests', suite, 'examples')).sort()).toEqual([
      'echo-loop-echoes-twice-then-answers@good.jsonl',
      'echo-loop-echoes-twice-then-answers@lazy.jsonl',
    ]);
  });

  it('a live model that is down fails its case with the connection error', async () => {
    const dir = liveWorkspace();
    writeFileSync(
      path.join(dir, 'tests', 'down.yaml'),
      `cases:\n  - { name: down, agent: agents/echo-loop.lua, model: down }\n`,
    );
    await trustForTests(dir);
    const result = await cli(['test', 'tests/down.yaml'], dir);
    expect(result.code).toBe(TEST_EXIT.failed);
    expect(result.stdout).toMatch(
      /expect\.status \(default ok\) at event \d+\n {4}expected: ok\n {4}actual: {3}error: .*models\.chat: .*(connect|reach|ECONNREFUSED)/i,
    );
  });
});

describe('Ctrl-C in the middle of a suite (a real child process and SIGINT)', () => {
  it('stops every running case, still writes the partial report, and exits 3', async () => {
    const pending: ServerResponse[] = [];
    const server = createServer((_req, res) => {
      pending.push(res);
      server.emit('asked');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    try {
      const dir = workspace();
      writeFileSync(
        path.join(dir, 'models.yaml'),
        `hang: { provider: openai-compatible, model: m, baseUrl: "http://127.0.0.1:${port}/v1" }\n`,
      );
      const cases = [
        '  - { name: first, agent: agents/echo-loop.lua, model: { replies: [{ content: hi }] } }',
        '  - { name: hangs, agent: agents/echo-loop.lua, model: hang }',
        ...Array.from(
          { length: 5 },
          (_, i) => `  - { name: later ${i}, agent: agents/echo-loop.lua, model: { replies: [{ content: hi }] } }`,
        ),
      ];
      writeFileSync(path.join(dir, 'tests', 'examples.yaml'), `cases:\n${cases.join('\n')}\n`);
      await trustForTests(dir);
      const child = spawnCli(['test', '--jobs', '1', '--junit', 'junit.xml'], { cwd: dir, detached: true });
      await once(server, 'asked');
      process.kill(-child.child.pid!, 'SIGINT');
      const result = await child.finished;
      expect(result).toMatchObject({ code: TEST_EXIT.interrupted, signal: null });
      expect(result.stderr).toContain(
        'interrupted (Ctrl-C): running cases were stopped; the partial report is written',
      );
      const suite = readdirSync(path.join(dir, 'runs', 'tests'))[0]!;
      const report = JSON.parse(readFileSync(path.join(dir, 'runs', 'tests', suite, 'report.json'), 'utf8')) as {
        interrupted: boolean;
        results: { name: string; outcome: string; run?: { status: string } }[];
        notRun: { name: string }[];
      };
      expect(report.interrupted).toBe(true);
      expect(report.results.map((r) => [r.name, r.outcome, r.run?.status])).toEqual([
        ['first', 'passed', 'ok'],
        ['hangs', 'error', 'stopped'],
      ]);
      expect(report.notRun.map((r) => r.name)).toEqual(['later 0', 'later 1', 'later 2', 'later 3', 'later 4']);
      expect(readFileSync(path.join(dir, 'junit.xml'), 'utf8')).toContain('skipped="5"');
    } finally {
      for (const res of pending) res.destroy();
      server.close();
    }
  }, 60_000);
});
