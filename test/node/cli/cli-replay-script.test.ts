import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { byAssistantCount, startScriptedServer, type ScriptedServer } from '../../fixtures/scripted-openai-server.js';
import { trustForTests } from '../trust/trust-for-tests.js';
import { root, runCliInProcess } from './spawn-cli.js';

const examples = path.join(root, 'examples');
const RECORDING = 'recordings/mine.jsonl';
const ECHO = 'agents/echo-loop.lua';

let server: ScriptedServer;
let dir: string;

beforeAll(async () => {
  server = await startScriptedServer(
    byAssistantCount([
      { toolCalls: [{ id: 'call_1', name: 'echo', arguments: '{"text":"hello"}' }] },
      { content: 'I echoed hello.' },
    ]),
  );
  // One recording, made by the CLI against a model on loopback, for every test below.
  dir = mkdtempSync(path.join(tmpdir(), 'pf-replay-script-'));
  cpSync(examples, dir, { recursive: true, filter: (src) => !src.includes(`${path.sep}runs`) });
  await trustForTests(dir);
  const recorded = await runCliInProcess(
    ['run', ECHO, '--base-url', server.url, '--model-id', 'gpt-test', '--transcript', RECORDING],
    { cwd: dir },
  );
  expect(recorded.code, recorded.stderr).toBe(0);
  expect(recorded.stdout).toContain('model: I echoed hello.');
});
afterAll(() => server.close());

/** echo-loop.lua asking for something else: the same shape, a different first message. */
function otherScript(name: string): string {
  const text = readFileSync(path.join(dir, ECHO), 'utf8').replace('Echo "hello"', 'Echo "goodbye"');
  writeFileSync(path.join(dir, name), text);
  return name;
}

describe('a replay that diverges names the script it was recorded from when another one runs', () => {
  it('the recorded script replays it without a word about scripts', async () => {
    const result = await runCliInProcess(['run', ECHO, '--replay', RECORDING], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain('The recording was made from');
  });

  it('another script: both are named, with the two ways out', async () => {
    const other = otherScript('agents/other.lua');
    const result = await runCliInProcess(['run', other, '--replay', RECORDING], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /replay diverged at model round 1 \(\S*recordings\/mine\.jsonl:\d+\): message 2 differs/,
    );
    expect(result.stderr).toContain(
      '. The recording was made from agents/echo-loop.lua, and the script running now is agents/other.lua: ' +
        'replay it with agents/echo-loop.lua, or record agents/other.lua again to get a recording of its own',
    );
  });

  it('the recorded script, changed since: says so, with both hashes', async () => {
    const copy = mkdtempSync(path.join(tmpdir(), 'pf-replay-changed-'));
    cpSync(dir, copy, { recursive: true });
    await trustForTests(copy);
    const before = readFileSync(path.join(copy, ECHO), 'utf8');
    writeFileSync(path.join(copy, ECHO), before.replace('Echo "hello"', 'Echo "goodbye"'));
    const result = await runCliInProcess(['run', ECHO, '--replay', RECORDING], { cwd: copy });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /replay diverged at model round 1 \(\S*recordings\/mine\.jsonl:\d+\): message 2 differs: .*\. agents\/echo-loop\.lua changed since the recording was made \(script sha256 [0-9a-f]{12}… then, [0-9a-f]{12}… now\): record it again, or put back the script as it was/,
    );
  });

  it("a test case's recording played by another agent names both scripts in the case's failure", async () => {
    const other = otherScript('agents/other-case.lua');
    writeFileSync(
      path.join(dir, 'tests', 'replay-other.yaml'),
      `cases:\n  - name: other script\n    agent: ${other}\n    model: { recording: ${RECORDING} }\n    expect: { status: ok }\n`,
    );
    const result = await runCliInProcess(['test', 'tests/replay-other.yaml'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout + result.stderr).toContain(
      `The recording was made from agents/echo-loop.lua, and the script running now is agents/other-case.lua: replay it with agents/echo-loop.lua, or record agents/other-case.lua again`,
    );
  });
});
