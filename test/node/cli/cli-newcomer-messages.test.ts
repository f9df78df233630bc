import { cpSync, existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTranscript } from '../../../main/core/transcript/transcript-reader.js';
import { trustForTests } from '../trust/trust-for-tests.js';
import { NO_BUS, root, runCli } from './spawn-cli.js';

const examples = path.join(root, 'examples');
const RECORDING = 'recordings/echo-loop.jsonl';
const recorded = readTranscript(path.join(examples, RECORDING));
const firstOutput = String(recorded.find((e) => e.type === 'tool-output')!.seq);
const USAGE_LINE = 'Run `promptforge --help` for usage.';

/** A copy of the examples workspace, without runs/. */
function tempWorkspace(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'pf-newcomer-'));
  cpSync(examples, dir, { recursive: true, filter: (src) => !src.includes(`${path.sep}runs`) });
  return dir;
}

/** The transcripts a command left in the workspace's runs/ folder. */
function runsIn(dir: string): string[] {
  return existsSync(path.join(dir, 'runs')) ? readdirSync(path.join(dir, 'runs')) : [];
}

/** This environment without npm's variables: the CLI is not started through npx here. */
const NOT_NPX = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('npm_')));

/** A machine with no keychain and no provider key in the environment. */
const NO_KEYCHAIN = { DBUS_SESSION_BUS_ADDRESS: NO_BUS };

describe('messages a newcomer meets on the command line', () => {
  it('an offline fork that diverges after an edit says which flags go on live, and quotes whole words', async () => {
    const dir = tempWorkspace();
    const result = await runCli(
      ['run', 'agents/echo-loop.lua', '--replay', RECORDING, '--fork-at', firstOutput, '--edit-output', 'HELLO'],
      { cwd: dir },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `(after the fork's step ${firstOutput}: pass --model ALIAS (or --base-url URL --model-id ID) to go on live after the edit): message 4 differs`,
    );
    expect(result.stderr).not.toContain('choose a model');
  });

  it.each([
    [['run', 'agents/echo-loop.lua', '--forkat', '19'], 'run has no option --forkat; did you mean --fork-at?'],
    [
      ['run', 'agents/echo-loop.lua', '--replay', RECORDING, '--fork-at', '-3'],
      '--fork-at must be a step, a positive integer (the seq of a model round or tool output in the recording), got "-3"',
    ],
    [
      ['run', 'agents/echo-loop.lua', '--replay', '--fork-at', '19'],
      '--replay needs a value (a transcript file), but --fork-at follows it; put the value right after --replay',
    ],
    [['run', 'agents/echo-loop.lua', '--replay'], '--replay needs a value (a transcript file) after it'],
    [['run', 'agents/echo-loop.lua', '--json=1'], '--json takes no value; write just --json'],
    [['runn', 'agents/echo-loop.lua'], 'unknown command "runn"; did you mean run?'],
    [['keys', 'stauts'], 'unknown keys command "stauts"; did you mean status?'],
  ])('%j is one usage line with the fix', async (args, message) => {
    const result = await runCli(args, { cwd: tempWorkspace(), env: NOT_NPX });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`promptforge: ${message}\n${USAGE_LINE}\n`);
  });

  it('a transcript given as the script is a usage error that shows the --replay command, and writes nothing', async () => {
    const dir = tempWorkspace();
    const result = await runCli(['run', RECORDING], { cwd: dir, env: NOT_NPX });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `promptforge: ${RECORDING} is a transcript, not a Lua script; did you mean: promptforge run SCRIPT --replay ${RECORDING}?\n${USAGE_LINE}\n`,
    );
    expect(runsIn(dir)).toEqual([]);
  });

  it('a fork step that is not a step reads "an approval-decision" and ends with the usage line', async () => {
    const notAStep = recorded.find((e) => e.type === 'approval-decision')!.seq;
    const result = await runCli(['run', 'agents/echo-loop.lua', '--replay', RECORDING, '--fork-at', String(notAStep)], {
      cwd: tempWorkspace(),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`event ${notAStep} of ${RECORDING} is an approval-decision, not a step`);
    expect(result.stderr.endsWith(`\n${USAGE_LINE}\n`)).toBe(true);
  });

  it('a run without a key or a keychain also says how to run the agent offline from its recording', async () => {
    const dir = tempWorkspace();
    await trustForTests(dir);
    const result = await runCli(['run', 'agents/echo-loop.lua'], { cwd: dir, env: NO_KEYCHAIN });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Secret Service over D-Bus');
    expect(result.stderr).toContain(
      '\nor run it offline from its recording: promptforge run agents/echo-loop.lua --replay recordings/echo-loop.jsonl\n',
    );
    expect(result.stderr).not.toContain('npx promptforge');
  });

  it('started through npx, the pasteable commands say npx promptforge', async () => {
    const dir = tempWorkspace();
    await trustForTests(dir);
    const result = await runCli(['run', 'agents/echo-loop.lua'], {
      cwd: dir,
      env: { ...NO_KEYCHAIN, npm_command: 'exec', npm_lifecycle_event: 'npx' },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('>/dev/null && npx promptforge keys status');
    expect(result.stderr).toContain(
      '\nor run it offline from its recording: npx promptforge run agents/echo-loop.lua --replay recordings/echo-loop.jsonl\n',
    );
    const keys = await runCli(['keys', 'status'], { cwd: dir, env: { ...NO_KEYCHAIN, npm_command: 'exec' } });
    expect(keys.code).toBe(2);
    expect(keys.stderr).toContain('>/dev/null && npx promptforge keys status');
  });

  it('an agent without a recording gets no offline hint', async () => {
    const dir = tempWorkspace();
    cpSync(path.join(dir, 'agents/echo-loop.lua'), path.join(dir, 'agents/no-recording.lua'));
    await trustForTests(dir);
    const result = await runCli(['run', 'agents/no-recording.lua'], { cwd: dir, env: NO_KEYCHAIN });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Secret Service over D-Bus');
    expect(result.stderr).not.toContain('run it offline');
  });
});
