import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunEventSchema, type RunEvent } from '../../../common/run-events.js';
import { main, type CliIo } from '../../../main/cli/cli.js';
import type { SecretStore } from '../../../main/core/credentials/secret-store.js';
import { readTranscript } from '../../../main/core/transcript/transcript-reader.js';
import { byAssistantCount, startScriptedServer, type ScriptedServer } from '../../fixtures/scripted-openai-server.js';
import { testPool } from '../run/run-harness.js';
import { trustForTests } from '../trust/trust-for-tests.js';
import { mapSecretStore } from '../../fixtures/stubs.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const examples = path.join(root, 'examples');

interface Captured {
  code: number;
  stdout: string;
  stderr: string;
}

async function cli(
  args: string[],
  options: {
    cwd?: string;
    env?: Record<string, string>;
    stdin?: string;
    store?: SecretStore;
    /** Presses Ctrl-C (once) as soon as stdout holds this text: an event, not a delay. */
    interruptOnStdout?: string;
  } = {},
): Promise<Captured> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  let interrupted = false;
  stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    if (options.interruptOnStdout === undefined || interrupted || !out.includes(options.interruptOnStdout)) return;
    interrupted = true;
    queueMicrotask(() => listeners.forEach((l) => l()));
  });
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const stdin = new PassThrough();
  stdin.end(options.stdin ?? '');
  const listeners = new Set<() => void>();
  const io: CliIo = {
    stdin,
    stdout,
    stderr,
    // This test run's config folder (workspace trust), never the person's.
    env: { PROMPTFORGE_CONFIG_DIR: process.env['PROMPTFORGE_CONFIG_DIR'], ...options.env },
    cwd: options.cwd ?? root,
    onInterrupt(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    secrets: () => options.store ?? mapSecretStore(),
    pool: testPool(),
  };
  const code = await main(args, io);
  return { code, stdout: out, stderr: err };
}

function tempWorkspace(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'pf-cli-'));
  cpSync(examples, dir, { recursive: true, filter: (src) => !src.includes(`${path.sep}runs`) });
  return dir;
}

describe('promptforge run: offline replays of the examples', () => {
  it.each(['echo-loop', 'weather-report', 'summarize-page'])('%s replays from its recording', async (name) => {
    const dir = tempWorkspace();
    const result = await cli(['run', `agents/${name}.lua`, '--replay', `recordings/${name}.jsonl`], { cwd: dir });
    expect(result.stderr).not.toMatch(/error/i);
    expect(result.code).toBe(0);
    const expected = readTranscript(path.join(dir, 'recordings', `${name}.jsonl`))
      .flatMap((e) => (e.type === 'log' ? [e.text] : []))
      .join('\n');
    expect(result.stdout.trimEnd()).toBe(expected);
    // The replay itself was recorded in the workspace's history.
    expect(result.stderr).toMatch(/promptforge: transcript runs\/run-.*\.jsonl/);
  });

  it('a replay whose script calls another tool fails with an error that says where', async () => {
    const dir = tempWorkspace();
    const script = readFileSync(path.join(dir, 'agents/echo-loop.lua'), 'utf8').replace(
      'local output = tools.call(call.name, call.arguments)',
      "local output = tools.call(call.name, { text = 'changed' })",
    );
    writeFileSync(path.join(dir, 'agents/echo-loop.lua'), script);
    const result = await cli(['run', 'agents/echo-loop.lua', '--replay', 'recordings/echo-loop.jsonl'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`replay diverged at tool call 1 (${path.join(dir, 'recordings/echo-loop.jsonl')}:`);
    expect(result.stderr).toContain(
      `the script called tools.call('echo', {"text":"changed"}), the recording has tools.call('echo', {"text":"hello"})`,
    );
  });

  it('a replay whose script asks the model differently fails at that round', async () => {
    const dir = tempWorkspace();
    const script = readFileSync(path.join(dir, 'agents/weather-report.lua'), 'utf8').replace(
      'in Oslo today',
      'in Lisbon today',
    );
    writeFileSync(path.join(dir, 'agents/weather-report.lua'), script);
    const result = await cli(['run', 'agents/weather-report.lua', '--replay', 'recordings/weather-report.jsonl'], {
      cwd: dir,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /replay diverged at model round 1 \(.*weather-report\.jsonl:\d+\): message 1 differs/,
    );
  });

  it('a truncated transcript gives a clear error, exit code 2, and nothing else', async () => {
    const dir = tempWorkspace();
    const text = readFileSync(path.join(dir, 'recordings/echo-loop.jsonl'), 'utf8');
    writeFileSync(path.join(dir, 'cut.jsonl'), text.slice(0, Math.floor(text.length / 2)));
    const result = await cli(['run', 'agents/echo-loop.lua', '--replay', 'cut.jsonl'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^promptforge: .*cut\.jsonl:\d+: the last line is incomplete \(no newline\); the transcript was cut off while it was being written\n$/,
    );
  });

  it('a corrupt transcript names the line', async () => {
    const dir = tempWorkspace();
    const lines = readFileSync(path.join(dir, 'recordings/echo-loop.jsonl'), 'utf8').split('\n');
    lines[3] = '{"type":"log","seq":"four"}';
    writeFileSync(path.join(dir, 'bad.jsonl'), lines.join('\n'));
    const result = await cli(['run', 'agents/echo-loop.lua', '--replay', 'bad.jsonl'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/bad\.jsonl:4: not a PromptForge run event/);
  });

  it('--json prints every event as a JSON line on stdout', async () => {
    const dir = tempWorkspace();
    const result = await cli(['run', 'agents/echo-loop.lua', '--replay', 'recordings/echo-loop.jsonl', '--json'], {
      cwd: dir,
    });
    expect(result.code).toBe(0);
    const events = result.stdout
      .trimEnd()
      .split('\n')
      .map((line) => RunEventSchema.parse(JSON.parse(line)) as RunEvent);
    expect(events[0]!.type).toBe('run-start');
    expect(events.at(-1)).toMatchObject({ type: 'run-end', status: 'ok', toolCalls: { echo: 2 } });
    expect(events.filter((e) => e.type === 'message-delta').length).toBeGreaterThan(0);
  });
});

describe('promptforge run: exit codes and errors', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'pf-cli-'));
    writeFileSync(path.join(dir, 'ok.lua'), `log('fine')`);
    writeFileSync(path.join(dir, 'syntax.lua'), `log('a')\nif then`);
    writeFileSync(path.join(dir, 'runtime.lua'), `log('a')\nlocal x = nil + 1`);
    writeFileSync(path.join(dir, 'spin.lua'), `while true do end`);
    writeFileSync(path.join(dir, 'ask.lua'), `log(pcall(tools.call, 'http_get', { url = 'http://127.0.0.1:9/' }))`);
  });

  it('0 on success, log() output on stdout, no transcript without a workspace', async () => {
    const result = await cli(['run', 'ok.lua'], { cwd: dir });
    expect(result).toEqual({ code: 0, stdout: 'fine\n', stderr: '' });
  });

  it('1 on a syntax error, reported as file:line: message on stderr', async () => {
    const result = await cli(['run', 'syntax.lua'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe("syntax.lua:2: unexpected symbol near 'then'\n");
  });

  it('1 on a runtime error, reported as file:line: message on stderr', async () => {
    const result = await cli(['run', 'runtime.lua'], { cwd: dir });
    expect(result).toEqual({
      code: 1,
      stdout: 'a\n',
      stderr: 'runtime.lua:2: attempt to perform arithmetic on a nil value\n',
    });
  });

  it('3 when a limit is exceeded', async () => {
    const result = await cli(['run', 'spin.lua', '--cpu-limit', '0.3'], { cwd: dir });
    expect(result.code).toBe(3);
    expect(result.stderr).toBe(
      'spin.lua: CPU limit of 0.3 s exceeded (the script computed without returning to the host)\n',
    );
    const timeout = await cli(['run', 'spin.lua', '--timeout', '0.3'], { cwd: dir });
    expect(timeout).toMatchObject({ code: 3, stderr: 'spin.lua: wall-clock limit of 0.3 s exceeded\n' });
  });

  it('3 when stopped with Ctrl-C, and the transcript says how it ended', async () => {
    const transcript = path.join(dir, 'stopped.jsonl');
    // Ctrl-C once the script is running (it says so first), however slowly the machine gets there.
    writeFileSync(path.join(dir, 'spin-logged.lua'), `log('spinning') while true do end`);
    const result = await cli(['run', 'spin-logged.lua', '--transcript', transcript], {
      cwd: dir,
      interruptOnStdout: 'spinning',
    });
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('spinning\n');
    expect(result.stderr).toContain('spin-logged.lua: interrupted (Ctrl-C)');
    expect(readTranscript(transcript).at(-1)).toMatchObject({
      type: 'run-end',
      status: 'stopped',
      error: { kind: 'stopped' },
    });
  });

  it('--approve deny refuses ask tools; the script sees the reason', async () => {
    const result = await cli(['run', 'ask.lua', '--approve', 'deny'], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("false\task.lua:1: tools.call('http_get') was denied: denied by --approve deny\n");
  });

  it.each([
    [['run'], 'run takes exactly one script'],
    [['run', 'missing.lua'], 'missing.lua: no such script file'],
    [['run', 'ok.lua', '--approve', 'maybe'], '--approve must be ask, auto or deny, got "maybe"'],
    [['run', 'ok.lua', '--cpu-limit', 'fast'], '--cpu-limit must be a positive number of seconds, got "fast"'],
    [['run', 'ok.lua', '--memory-limit=-1'], '--memory-limit must be a positive number of MiB, got "-1"'],
    [['run', 'ok.lua', '--base-url', 'http://x'], '--base-url and --model-id go together'],
    [['run', 'ok.lua', '--base-url', 'not a url', '--model-id', 'm'], '--base-url is not a URL: "not a url"'],
    [['run', 'ok.lua', '--frobnicate'], 'run has no option --frobnicate; `promptforge run --help` lists its options'],
    [['run', 'ok.lua', '--model', 'nope'], 'unknown model "nope" (from --model); models.yaml defines none'],
    [['run', 'ok.lua', '--workspace', 'nowhere'], '--workspace nowhere: no such folder'],
    [['launch'], 'unknown command "launch"'],
  ])('2 on usage errors: %j', async (args, message) => {
    const result = await cli(args, { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(message);
  });
});

describe('promptforge run --base-url against a loopback OpenAI-compatible server', () => {
  let server: ScriptedServer;
  const canary = 'sk-canary-cli-0123456789abcdefABCDEF';
  beforeAll(async () => {
    server = await startScriptedServer(
      byAssistantCount([
        { content: 'Calling.', toolCalls: [{ id: 'call_a', name: 'echo', arguments: '{"text":"via http"}' }] },
        { content: 'All done.' },
      ]),
    );
  });
  afterAll(() => server.close());

  it('streams a real tool loop, uses OPENAI_API_KEY, says where the key came from, and never prints it', async () => {
    const dir = tempWorkspace();
    await trustForTests(dir);
    const transcript = path.join(dir, 'http.jsonl');
    const result = await cli(
      [
        'run',
        'agents/echo-loop.lua',
        '--base-url',
        server.url,
        '--model-id',
        'gpt-test',
        '--transcript',
        transcript,
        '--json',
      ],
      { cwd: dir, env: { OPENAI_API_KEY: canary } },
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('promptforge: openai-compatible key from OPENAI_API_KEY');
    expect(server.authHeaders.at(-1)).toBe(`Bearer ${canary}`);
    const sent = server.requests.at(-1) as { model: string; messages: { role: string; tool_calls?: unknown }[] };
    expect(sent.model).toBe('gpt-test');
    expect(sent.messages.find((m) => m.role === 'assistant')?.tool_calls).toEqual([
      { id: 'call_a', type: 'function', function: { name: 'echo', arguments: '{"text":"via http"}' } },
    ]);
    for (const text of [result.stdout, result.stderr, readFileSync(transcript, 'utf8')])
      expect(text).not.toContain(canary);
  });
});

describe('a canary key never leaks, even when the server echoes it back', () => {
  it('a 401 whose body repeats the Authorization header: the error names the provider, not the key', async () => {
    const canary = 'sk-canary-leak-ABCDEFGHIJKLMNOPQRSTUVWX';
    const { createServer } = await import('node:http');
    const server = createServer((req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `Incorrect API key provided: ${req.headers.authorization}` } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const dir = tempWorkspace();
      await trustForTests(dir);
      const transcript = path.join(dir, 'leak.jsonl');
      const result = await cli(
        [
          'run',
          'agents/echo-loop.lua',
          '--base-url',
          `http://127.0.0.1:${port}/v1`,
          '--model-id',
          'm',
          '--transcript',
          transcript,
          '--json',
        ],
        { cwd: dir, env: { OPENAI_API_KEY: canary } },
      );
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/agents\/echo-loop\.lua:\d+: models\.chat: key rejected by/);
      for (const text of [result.stdout, result.stderr, readFileSync(transcript, 'utf8')]) {
        expect(text).not.toContain(canary);
        expect(text).not.toContain(canary.slice(8, 24));
      }
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('the promptforge bin, as a real process', () => {
  function spawnBin(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
    return spawn('npx', ['--no-install', 'promptforge', ...args], { cwd, env: { ...process.env, ...env } });
  }

  it('`npx promptforge` runs an example offline in the checkout', async () => {
    const child = spawnBin(
      [
        'run',
        'examples/agents/echo-loop.lua',
        '--replay',
        'examples/recordings/echo-loop.jsonl',
        '--transcript',
        path.join(mkdtempSync(path.join(tmpdir(), 'pf-')), 't.jsonl'),
      ],
      root,
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(0);
    expect(out).toContain('echo ran 2 times');
  }, 60_000);

  it('Ctrl-C (SIGINT) stops the run cleanly with exit code 3', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pf-'));
    writeFileSync(path.join(dir, 'spin.lua'), `log('spinning') while true do end`);
    const transcript = path.join(dir, 't.jsonl');
    const child = spawn(
      process.execPath,
      [path.join(root, 'main/cli/promptforge.mjs'), 'run', 'spin.lua', '--transcript', transcript],
      { cwd: dir },
    );
    child.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('spinning')) child.kill('SIGINT');
    });
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(3);
    expect(err).toContain('spin.lua: interrupted (Ctrl-C)');
    expect(readTranscript(transcript).at(-1)).toMatchObject({ type: 'run-end', status: 'stopped' });
  }, 60_000);
});
