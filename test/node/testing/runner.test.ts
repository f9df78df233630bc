import { once } from 'node:events';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PolicyApprover } from '../../../main/core/approval/policy-approver.js';
import { loadWorkspace } from '../../../main/core/catalog/workspace.js';
import { prepareRun, type PrepareRunOptions } from '../../../main/core/run/prepare-run.js';
import { listRuns } from '../../../main/core/transcript/run-history.js';
import { readTranscript } from '../../../main/core/transcript/transcript-reader.js';
import { exampleWorkspace, root, runFile, suitePool, testFile, TOOL_LOOP_AGENT } from './harness.js';

/** Runs a prepared run to its end: its status and each round's reply text. */
async function harnessRun(options: PrepareRunOptions): Promise<{ status: string; finals: string[] }> {
  const finals: string[] = [];
  const run = await prepareRun({
    ...options,
    onEvent: (event) => {
      if (event.type === 'round-response') finals.push(event.content);
    },
  });
  await run.start();
  return { status: (await run.done).status, finals };
}

let dir: string;
beforeAll(async () => {
  dir = await exampleWorkspace();
  writeFileSync(path.join(dir, 'agents', 'loop.lua'), TOOL_LOOP_AGENT);
  writeFileSync(path.join(dir, 'agents', 'spin.lua'), `log('spinning') while true do end`);
  writeFileSync(path.join(dir, 'agents', 'broken.lua'), `local x = = 1`);
});

describe('promptforge test cases, run in-process on the worker pool', () => {
  it('the example test file runs green against the example agents', async () => {
    const suite = await runFile(dir, path.join(root, 'examples', 'tests', 'examples.yaml'));
    expect(suite.results.map((result) => [result.name, result.outcome, result.failures])).toEqual(
      suite.cases.map((testCase) => [testCase.name, 'passed', []]),
    );
    expect(suite.results).toHaveLength(4);
  });

  it('a failed assertion says what was expected, what happened, and the step where the run diverged', async () => {
    const file = testFile(
      dir,
      'diverge.yaml',
      `cases:
  - name: wrong second argument
    agent: agents/echo-loop.lua
    model:
      replies:
        - calls: [{ name: echo, arguments: { text: hello } }]
        - calls: [{ name: echo, arguments: { text: world } }]
        - content: done
    expect:
      calls:
        - { tool: echo, arguments: { text: hello } }
        - { tool: echo, arguments: { text: mars } }
      final: { contains: mars }
      counts: { echo: { max: 1 } }
      max_rounds: 2
`,
    );
    const [result] = (await runFile(dir, file)).results;
    expect(result!.outcome).toBe('failed');
    const byField = Object.fromEntries(result!.failures.map((failure) => [failure.field, failure]));
    expect(byField['expect.calls[2].arguments']).toEqual({
      field: 'expect.calls[2].arguments',
      expected: '{"text":"mars"}',
      actual: '{"text":"world"}',
      step: { seq: expect.any(Number), round: 2, call: 2 },
    });
    expect(byField['expect.final']).toMatchObject({ expected: 'contains "mars"', step: { round: 3 } });
    expect(byField['expect.counts.echo']).toMatchObject({ actual: '2 call(s)', step: { call: 2 } });
    expect(byField['expect.max_rounds']).toMatchObject({ actual: '3 rounds', step: { round: 3 } });
    // The step is the seq of the call's tool-dispatch in the case's own transcript.
    const events = readTranscript(result!.run!.transcript!);
    const step = byField['expect.calls[2].arguments']!.step!;
    expect(events.find((event) => event.seq === step.seq)).toMatchObject({
      type: 'tool-dispatch',
      alias: 'echo',
      arguments: { text: 'world' },
    });
  });

  it('limits on tokens and cost say at which round the run went over', async () => {
    const file = testFile(
      dir,
      'budget.yaml',
      `cases:
  - name: over budget
    agent: agents/echo-loop.lua
    model:
      price: { inputPerMillion: 1000, outputPerMillion: 2000 }
      replies:
        - { calls: [{ name: echo, arguments: { text: a } }], usage: { input: 100, output: 10 } }
        - { content: done, usage: { input: 200, output: 20 } }
    expect: { max_tokens: 200, max_cost: 0.1 }
  - name: within budget
    agent: agents/echo-loop.lua
    model:
      price: { inputPerMillion: 1000, outputPerMillion: 2000 }
      replies: [{ content: done, usage: { input: 10, output: 1 } }]
    expect: { max_tokens: 11, max_cost: 0.013 }
`,
    );
    const [over, within] = (await runFile(dir, file, { concurrency: 1 })).results;
    expect(over!.failures).toEqual([
      expect.objectContaining({
        field: 'expect.max_tokens',
        actual: '330 tokens',
        step: expect.objectContaining({ round: 2 }),
      }),
      expect.objectContaining({
        field: 'expect.max_cost',
        actual: expect.stringMatching(/^0\.3(6|59)/),
        step: expect.objectContaining({ round: 1 }),
      }),
    ]);
    expect(within!.failures).toEqual([]);
    expect(within!.run).toMatchObject({ tokens: 11 });
    expect(within!.run!.cost).toBeCloseTo(0.012, 9);
  });

  it('asked, tainted, decision and trust are checked per call', async () => {
    const file = testFile(
      dir,
      'taint.yaml',
      `cases:
  - name: page text carried into a call is tainted and asks
    agent: agents/loop.lua
    input: { tools: [read_page, echo] }
    approve: { default: approve }
    model:
      replies:
        - calls: [{ name: read_page, arguments: { name: release-notes } }]
        - calls: [{ name: echo, arguments: { text: "Faster start-up: the index loads lazily, cutting cold starts by 40%." } }]
        - calls: [{ name: echo, arguments: { text: "my own words" } }]
        - content: ok
    expect:
      calls:
        - { tool: read_page, asked: true, decision: approve, trust: untrusted, tainted: false }
        - { tool: echo, asked: true, tainted: true, trust: untrusted }
        - { tool: echo, asked: false, tainted: false, trust: trusted, output: my own words }
      only_these_calls: true
  - name: the same expectations fail when the call is not tainted
    agent: agents/loop.lua
    input: { tools: [echo] }
    model:
      replies:
        - calls: [{ name: echo, arguments: { text: "Faster start-up: the index loads lazily, cutting cold starts by 40%." } }]
        - content: ok
    expect:
      calls:
        - { tool: echo, tainted: true }
`,
    );
    const [tainted, clean] = (await runFile(dir, file, { concurrency: 1 })).results;
    expect(tainted!.failures).toEqual([]);
    expect(clean!.failures).toEqual([
      expect.objectContaining({ field: 'expect.calls[1].tainted', expected: 'tainted', actual: 'not tainted' }),
    ]);
  });

  it('a scripted model that runs out of replies fails the case and says at which round', async () => {
    const file = testFile(
      dir,
      'short.yaml',
      `cases:
  - name: one reply for a three-round agent
    agent: agents/echo-loop.lua
    model: { replies: [{ calls: [{ name: echo, arguments: { text: hello } }] }] }
`,
    );
    const [result] = (await runFile(dir, file)).results;
    expect(result!.outcome).toBe('failed');
    expect(result!.run).toMatchObject({ status: 'error' });
    expect(result!.run!.error).toContain('has no reply for round 2 (it has 1)');
    expect(result!.failures[0]).toMatchObject({
      field: 'model.replies',
      actual: 'the agent asked for round 2, past the last scripted reply',
    });
  });

  it("a case that never ends is stopped by the run's limits", async () => {
    const file = testFile(
      dir,
      'spin.yaml',
      `cases:
  - name: spins
    agent: agents/spin.lua
    model: { replies: [] }
    limits: { cpu: 0.2 }
    expect: { status: limit, error: { contains: CPU limit } }
  - name: spins, expected to finish
    agent: agents/spin.lua
    model: { replies: [] }
    limits: { cpu: 0.2 }
`,
    );
    const [expected, unexpected] = (await runFile(dir, file, { concurrency: 1 })).results;
    expect(expected!.outcome).toBe('passed');
    expect(unexpected!.failures).toEqual([
      expect.objectContaining({
        field: 'expect.status (default ok)',
        expected: 'ok',
        actual: expect.stringMatching(/^limit: CPU limit/),
      }),
    ]);
  });

  it('a case whose model never answers ends by its wall-clock limit: status limit, the request dropped, no worker left running', async () => {
    // A real HTTP server on loopback that takes each request and never answers it.
    const requests: IncomingMessage[] = [];
    const server = createServer((request) => {
      requests.push(request);
      server.emit('asked');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    try {
      const models = path.join(dir, 'models.yaml');
      writeFileSync(
        models,
        `${readFileSync(models, 'utf8')}\nhang: { provider: openai-compatible, model: m, baseUrl: "http://127.0.0.1:${port}/v1" }\n`,
      );
      const file = testFile(
        dir,
        'hang.yaml',
        `cases:
  - name: waits for a model that never answers
    agent: agents/loop.lua
    model: hang
    limits: { timeout: 2 }
    expect: { status: limit, error: { contains: wall-clock limit of 2 s exceeded } }
  - name: waits, expected to finish
    agent: agents/loop.lua
    model: hang
    limits: { timeout: 2 }
`,
      );
      const closed: Promise<unknown>[] = [];
      server.on('asked', () => closed.push(once(requests.at(-1)!.socket, 'close')));
      const suite = await runFile(dir, file, { concurrency: 1 });
      const [expected, unexpected] = suite.results;
      expect(expected).toMatchObject({ outcome: 'passed', run: { status: 'limit', rounds: 0 } });
      expect(unexpected!.outcome).toBe('failed');
      expect(unexpected!.failures).toEqual([
        {
          field: 'expect.status (default ok)',
          expected: 'ok',
          actual: 'limit: wall-clock limit of 2 s exceeded',
          step: { seq: expect.any(Number) },
        },
      ]);
      // The run's end dropped every request its model was waiting on: nothing waits on. (Each case
      // asks once; on a machine so busy that a worker starts after the limit, a case ends before it asks.)
      expect(requests.length).toBeGreaterThan(0);
      expect(requests.length).toBeLessThanOrEqual(2);
      await Promise.all(closed);
      // The stopped runs gave up their workers: none is left running a script.
      expect(suitePool().running).toBe(0);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('malformed Lua is the run error of its case, with the line', async () => {
    const file = testFile(
      dir,
      'broken.yaml',
      `cases:\n  - { name: broken, agent: agents/broken.lua, model: { replies: [] } }\n`,
    );
    const [result] = (await runFile(dir, file)).results;
    expect(result!.outcome).toBe('failed');
    expect(result!.failures[0]!.actual).toMatch(/^error: .*broken\.lua:1:/);
  });

  it('an assertion on a tool the agent never advertises fails instead of passing for nothing', async () => {
    const file = testFile(
      dir,
      'unadvertised.yaml',
      `cases:
  - name: not_called on a tool the agent cannot reach
    agent: agents/echo-loop.lua
    model: { replies: [{ content: nothing to echo }] }
    expect: { not_called: [read_file] }
`,
    );
    const [result] = (await runFile(dir, file)).results;
    expect(result!.failures).toEqual([
      expect.objectContaining({
        field: 'expect (tool names)',
        expected: 'the agent to advertise read_file to the model',
        actual: expect.stringContaining('it advertises echo'),
      }),
    ]);
  });

  it('two cases whose names make the same file name each get a transcript of their own', async () => {
    const file = testFile(
      dir,
      'same.yaml',
      `defaults:
  agent: agents/echo-loop.lua
cases:
  - { name: "Say hi", model: { replies: [{ content: first }] } }
  - { name: "say-hi", model: { replies: [{ content: second }] } }
`,
    );
    const suite = await runFile(dir, file, { concurrency: 2, folder: path.join(dir, 'runs', 'tests', 'same') });
    const paths = suite.results.map((result) => result.run!.transcript!).sort();
    expect(paths.map((p) => path.basename(p))).toEqual(['say-hi-2.jsonl', 'say-hi.jsonl']);
    const finals = paths.map((p) => {
      const events = readTranscript(p);
      expect(events.filter((event) => event.type === 'run-start')).toHaveLength(1);
      return events.find((event) => event.type === 'round-response')!;
    });
    expect(finals.map((event) => (event as { content: string }).content).sort()).toEqual(['first', 'second']);
  });

  it("a failing case's transcript replays offline and forks at a step like any run's", async () => {
    const file = testFile(
      dir,
      'fork.yaml',
      `cases:
  - name: expects another answer
    agent: agents/echo-loop.lua
    model:
      replies:
        - calls: [{ name: echo, arguments: { text: hello } }]
        - content: the first answer
    expect: { final: the second answer }
`,
    );
    const [result] = (await runFile(dir, file)).results;
    expect(result!.outcome).toBe('failed');
    const transcript = result!.run!.transcript!;
    const workspace = await loadWorkspace(dir);
    const replayed = (options: Partial<PrepareRunOptions>) =>
      harnessRun({
        scriptFile: path.join(dir, 'agents', 'echo-loop.lua'),
        workspace,
        pool: suitePool(),
        approver: new PolicyApprover('deny'),
        replayPath: transcript,
        transcriptPath: false,
        ...options,
      });
    const replay = await replayed({});
    expect(replay.status).toBe('ok');
    expect(replay.finals).toEqual(['', 'the first answer']);
    const step = readTranscript(transcript).find((event) => event.type === 'round-response' && event.round === 2)!.seq;
    const fork = await replayed({ fork: { step, edit: { reply: 'the second answer' } } });
    expect(fork.status).toBe('ok');
    expect(fork.finals.at(-1)).toBe('the second answer');
  });

  it('test runs are recorded under runs/tests/, and History does not list them', async () => {
    const file = testFile(
      dir,
      'history.yaml',
      `cases:\n  - { name: one, agent: agents/echo-loop.lua, model: { replies: [{ content: hi }] } }\n`,
    );
    const suite = await runFile(dir, file, { folder: path.join(dir, 'runs', 'tests', 'history-suite') });
    const transcript = suite.results[0]!.run!.transcript!;
    expect(path.relative(dir, transcript)).toBe(path.join('runs', 'tests', 'history-suite', 'history', 'one.jsonl'));
    expect(existsSync(transcript)).toBe(true);
    // The same transcript at the top of runs/ is a History row; in runs/tests/ it is not.
    copyFileSync(transcript, path.join(dir, 'runs', 'copied.jsonl'));
    expect(listRuns(dir, 'runs').map((run) => run.file)).toEqual(['runs/copied.jsonl']);
    expect(readFileSync(transcript, 'utf8')).toContain('"provider":"scripted"');
  });
});
