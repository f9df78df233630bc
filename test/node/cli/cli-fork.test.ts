import { appendFileSync, cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../common/run-events.js';
import { readTranscript } from '../../../main/core/transcript/transcript-reader.js';
import { byAssistantCount, startScriptedServer, type ScriptedServer } from '../../fixtures/scripted-openai-server.js';
import { trustForTests } from '../trust/trust-for-tests.js';
import { root, runCliInProcess } from './spawn-cli.js';

const examples = path.join(root, 'examples');
const RECORDING = 'recordings/echo-loop.jsonl';
/** The recording's steps (model rounds and tool outputs), by seq: rounds 1-3 and the two echo outputs. */
const recorded = readTranscript(path.join(examples, RECORDING));
const [round1, output1, round2, , round3] = recorded.flatMap((e) =>
  e.type === 'round-response' || e.type === 'tool-output' ? [String(e.seq)] : [],
) as [string, string, string, string, string];

function tempWorkspace(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'pf-fork-'));
  cpSync(examples, dir, { recursive: true, filter: (src) => !src.includes(`${path.sep}runs`) });
  return dir;
}

/** The transcript the CLI said it wrote. */
function transcriptOf(dir: string, stderr: string): RunEvent[] {
  const match = /transcript (\S+\.jsonl)/.exec(stderr);
  expect(match, stderr).not.toBeNull();
  return readTranscript(path.resolve(dir, match![1]!));
}

function start(events: RunEvent[]): Extract<RunEvent, { type: 'run-start' }> {
  const first = events[0];
  if (first?.type !== 'run-start') throw new Error('no run-start');
  return first;
}

function fork(dir: string, ...extra: string[]) {
  return runCliInProcess(['run', 'agents/echo-loop.lua', '--replay', RECORDING, ...extra], { cwd: dir });
}

describe('promptforge run --fork-at: offline forks of a recording', () => {
  it('answers from the recording up to a model step, with the reply edited, and records its parent', async () => {
    const dir = tempWorkspace();
    const result = await fork(dir, '--fork-at', round3, '--edit-reply', 'I echoed nothing at all.');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('round 1: echo(hello) -> hello');
    expect(result.stdout).toContain('model: I echoed nothing at all.');
    const events = transcriptOf(dir, result.stderr);
    const parent = readTranscript(path.join(dir, RECORDING));
    expect(start(events).forkOf).toEqual({
      runId: parent[0]!.runId,
      transcript: RECORDING,
      step: Number(round3),
      kind: 'model',
      edit: { reply: 'I echoed nothing at all.' },
      then: 'replay',
    });
    expect(start(events).replayOf).toBeUndefined();
  });

  it('reads an edit from @FILE', async () => {
    const dir = tempWorkspace();
    writeFileSync(path.join(dir, 'reply.txt'), 'From a file.');
    const result = await fork(dir, '--fork-at', round3, '--edit-reply', '@reply.txt');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('model: From a file.');
  });

  it('with an edited tool output and no model, goes on replaying only while the recording matches', async () => {
    const dir = tempWorkspace();
    const result = await fork(dir, '--fork-at', output1, '--edit-output', 'HELLO');
    expect(result.stdout).toContain('round 1: echo(hello) -> HELLO');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /replay diverged at model round 2 \(.*echo-loop\.jsonl:\d+\) \(after the fork's step /,
    );
    expect(result.stderr).toContain(
      `(after the fork's step ${output1}: pass --model ALIAS (or --base-url URL --model-id ID) to go on live after the edit): message 4 differs`,
    );
  });

  it('a step past the end of the recording is a usage error naming the last step', async () => {
    const dir = tempWorkspace();
    const result = await fork(dir, '--fork-at', '99');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `fork point 99 is past the end of ${RECORDING}: its last step is ${round3} (model round 3); the events after it (up to ${recorded.at(-1)!.seq}) are not steps`,
    );
  });

  it('an event that is not a step is refused with the list of steps', async () => {
    const dir = tempWorkspace();
    const notAStep = recorded.find((e) => e.type === 'tool-call-requested')!.seq;
    const result = await fork(dir, '--fork-at', String(notAStep));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`event ${notAStep} of`);
    expect(result.stderr).toContain('is a tool-call-requested, not a step');
    expect(result.stderr).toContain(
      `${round1} (model round 1), ${output1} (tool call 1 (echo) output), ${round2} (model round 2)`,
    );
  });

  it('an edit that does not fit its step is refused', async () => {
    const dir = tempWorkspace();
    const output = await fork(dir, '--fork-at', round1, '--edit-output', 'x');
    expect(output.code).toBe(2);
    expect(output.stderr).toContain(`step ${round1} is model round 1: a model step's edit is its reply or its calls`);
    const call = await fork(
      dir,
      '--fork-at',
      round1,
      '--edit-calls',
      '[{"name": "weather", "arguments": {"city": "Oslo"}}]',
    );
    expect(call.code).toBe(2);
    expect(call.stderr).toContain(
      'edited call 1 names tool "weather", which round 1 did not offer the model (it offered echo)',
    );
    const calls = await fork(dir, '--fork-at', round1, '--edit-calls', '{"name": "echo"}');
    expect(calls.code).toBe(2);
    expect(calls.stderr).toContain('--edit-calls must be a JSON list of calls');
  });

  it('bad flag combinations are usage errors', async () => {
    const dir = tempWorkspace();
    const noReplay = await runCliInProcess(['run', 'agents/echo-loop.lua', '--fork-at', round1], { cwd: dir });
    expect(noReplay.code).toBe(2);
    expect(noReplay.stderr).toContain('--fork-at needs --replay TRANSCRIPT');
    const noFork = await fork(dir, '--edit-reply', 'x');
    expect(noFork.code).toBe(2);
    expect(noFork.stderr).toContain('--edit-reply goes with --fork-at STEP');
    const badStep = await fork(dir, '--fork-at', 'three');
    expect(badStep.code).toBe(2);
    expect(badStep.stderr).toContain('--fork-at must be a step');
    const missing = await fork(dir, '--fork-at', round3, '--edit-reply', '@nope.txt');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--edit-reply @nope.txt: ');
  });

  it('a script changed since the recording is refused, and --force forks it anyway', async () => {
    const dir = tempWorkspace();
    appendFileSync(path.join(dir, 'agents/echo-loop.lua'), '-- a comment added later\n');
    const refused = await fork(dir, '--fork-at', round3);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('agents/echo-loop.lua changed since run');
    expect(refused.stderr).toContain('pass --force to fork anyway');
    const forced = await fork(dir, '--fork-at', round3, '--force');
    expect(forced.code, forced.stderr).toBe(0);
    expect(start(transcriptOf(dir, forced.stderr)).forkOf?.scriptChanged).toBe(true);
  });

  it('a divergence before the fork point is the replay error', async () => {
    const dir = tempWorkspace();
    const file = path.join(dir, 'agents/echo-loop.lua');
    writeFileSync(file, readFileSync(file, 'utf8').replace('Echo "hello"', 'Echo "bonjour"'));
    const result = await fork(dir, '--fork-at', round3, '--force');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/replay diverged at model round 1 \(.*echo-loop\.jsonl:\d+\): message 2 differs/);
    expect(result.stderr).not.toContain('after the fork');
  });
});

describe('promptforge run --fork-at with a model: live after the step', () => {
  let server: ScriptedServer;
  beforeAll(async () => {
    // Live rounds only: the recording answers round 1, so the first live request holds one assistant message.
    server = await startScriptedServer(
      byAssistantCount([
        { content: 'unused' },
        { content: 'Live now.', toolCalls: [{ id: 'call_live', name: 'echo', arguments: '{"text":"live"}' }] },
        { content: 'The live model is done.' },
      ]),
    );
  });
  afterAll(() => server.close());
  /** A fork that goes on live past its step, with the scripted server as a one-off endpoint. */
  const forkLive = (dir: string, ...args: string[]) =>
    fork(dir, ...args, '--base-url', server.url, '--model-id', 'gpt-fork');

  it('an edited tool output reaches the live model, and later calls run the real tool', async () => {
    const dir = tempWorkspace();
    await trustForTests(dir);
    const before = server.requests.length;
    const result = await forkLive(dir, '--fork-at', output1, '--edit-output', 'HELLO (edited)');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('round 1: echo(hello) -> HELLO (edited)');
    expect(result.stdout).toContain('round 2: echo(live) -> live');
    expect(result.stdout).toContain('model: The live model is done.');
    const sent = server.requests.slice(before) as { messages: { role: string; content: string }[] }[];
    expect(sent).toHaveLength(2);
    expect(sent[0]!.messages.at(-1)).toMatchObject({ role: 'tool', content: 'HELLO (edited)' });
    const events = transcriptOf(dir, result.stderr);
    expect(start(events).forkOf).toMatchObject({
      step: Number(output1),
      kind: 'tool',
      then: 'live',
      edit: { output: 'HELLO (edited)' },
    });
    expect(start(events).model).toEqual({ alias: 'cli-endpoint', provider: 'openai-compatible', modelId: 'gpt-fork' });
    const rounds = events.filter((e) => e.type === 'round-request').map((e) => e.model.provider);
    expect(rounds).toEqual(['replay', 'openai-compatible', 'openai-compatible']);
    const outputs = events.filter((e) => e.type === 'tool-output').map((e) => e.output);
    expect(outputs).toEqual(['HELLO (edited)', 'live']);
  });

  it('edited requested calls at a model step are dispatched live', async () => {
    const dir = tempWorkspace();
    await trustForTests(dir);
    const result = await forkLive(
      dir,
      '--fork-at',
      round1,
      '--edit-calls',
      '[{"name": "echo", "arguments": {"text": "bonjour"}}]',
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('round 1: echo(bonjour) -> bonjour');
    const events = transcriptOf(dir, result.stderr);
    const requested = events.find((e) => e.type === 'round-response');
    expect(requested).toMatchObject({
      toolCalls: [{ id: 'call_echo_1', name: 'echo', rawArguments: '{"text":"bonjour"}' }],
    });
    // The edited call ran through the dispatcher and the gate: a real decision, not a replayed one.
    const decision = events.find((e) => e.type === 'approval-decision');
    expect(decision).toMatchObject({ decision: { source: 'policy' } });
  });
});
