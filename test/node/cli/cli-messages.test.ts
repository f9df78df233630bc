import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT, exitCodeFor } from '../../../main/cli/exit-codes.js';
import { PROVIDER_PRESETS } from '../../../main/core/providers/presets.js';
import { byAssistantCount, startScriptedServer, type ScriptedServer } from '../../fixtures/scripted-openai-server.js';
import { approveKeyOriginForTests, trustForTests } from '../trust/trust-for-tests.js';
import { inPrivateKeyring, runCli } from './spawn-cli.js';

const PROVIDERS = Object.keys(PROVIDER_PRESETS);
const RUN_FLAGS = [
  '--workspace',
  '--model',
  '--base-url',
  '--model-id',
  '--approve',
  '--replay',
  '--transcript',
  '--json',
  '--cpu-limit',
  '--memory-limit',
  '--timeout',
];

let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'pf-msg-'));
  writeFileSync(path.join(dir, 'ok.lua'), `log('fine')`);
  writeFileSync(path.join(dir, 'spin.lua'), `while true do end`);
  writeFileSync(path.join(dir, 'bad.lua'), `error('boom')`);
  writeFileSync(path.join(dir, 'ask.lua'), `log(select(2, pcall(tools.call, 'shout', { text = 'hi' })))`);
  writeFileSync(
    path.join(dir, 'tools.yaml'),
    [
      'shout:',
      '  kind: builtin',
      '  builtin: echo',
      '  approval: ask',
      'broken:',
      '  kind: command',
      '  command: 42',
      'proxy:',
      '  kind: http',
      '  url: http://127.0.0.1:9/',
      '  headers:',
      '    Authorization: { secret: search-proxy }',
      '',
    ].join('\n'),
  );
  // Its http tool sends a keychain secret: only a trusted workspace's does.
  await trustForTests(dir);
});

describe('help: every command has its own, on stdout with exit 0', () => {
  it.each([
    [['run', '--help'], 'Usage: promptforge run FILE.lua'],
    [['run', '-h'], 'Usage: promptforge run FILE.lua'],
    [['run', 'ok.lua', '--model', 'x', '--help'], 'Usage: promptforge run FILE.lua'],
    [['help', 'run'], 'Usage: promptforge run FILE.lua'],
    [['keys', '--help'], 'Usage: promptforge keys set|status|delete'],
    [['help', 'keys'], 'Usage: promptforge keys set|status|delete'],
    [['keys', 'set', '--help'], 'Usage: promptforge keys set NAME'],
    [['help', 'keys', 'set'], 'Usage: promptforge keys set NAME'],
    [['keys', 'status', '-h'], 'Usage: promptforge keys status'],
    [['keys', 'delete', '--help'], 'Usage: promptforge keys delete NAME'],
    [['--help'], 'Usage: promptforge COMMAND'],
    [['-h'], 'Usage: promptforge COMMAND'],
    [['help'], 'Usage: promptforge COMMAND'],
  ])('%j', async (args, first) => {
    const result = await runCli(args, { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout.startsWith(`${first}`)).toBe(true);
    expect(result.stdout).not.toMatch(/Unknown option|ERR_PARSE_ARGS/);
  });

  it('run --help lists every run flag, and the top-level help every command', async () => {
    const run = await runCli(['run', '--help'], { cwd: dir });
    for (const flag of RUN_FLAGS) expect(run.stdout).toMatch(new RegExp(`^ {2}${flag}\\b`, 'm'));
    expect(run.stdout).toContain('Exit codes: 0 success, 1 script error, 2 usage or catalog error, 3 limit');
    const top = await runCli(['--help'], { cwd: dir });
    for (const command of ['run FILE.lua', 'keys set NAME', 'keys status', 'keys delete NAME', 'help [COMMAND]'])
      expect(top.stdout).toContain(command);
    const set = await runCli(['keys', 'set', '--help'], { cwd: dir });
    expect(set.stdout).toContain('--workspace DIR');
  });

  it('no arguments: the usage on stderr, nothing on stdout, exit 2', async () => {
    const result = await runCli([], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.startsWith('Usage: promptforge COMMAND')).toBe(true);
  });

  it('help for something that does not exist is a usage error', async () => {
    const result = await runCli(['help', 'launch'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('no help for "launch"');
  });
});

describe('catalog problems print in the documented form', () => {
  it('file:line:column: error: message (fix: ...), with no second severity in front', async () => {
    const result = await runCli(['run', 'ok.lua'], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('fine\n');
    const lines = result.stderr
      .trimEnd()
      .split('\n')
      .filter((line) => !line.startsWith('promptforge: transcript '));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toMatch(/^tools\.yaml:\d+:\d+: (error|warning): \S.* \(fix: .+\)$/);
    expect(result.stderr).toMatch(/^tools\.yaml:7:\d+: error: .*broken/m);
    expect(result.stderr).not.toMatch(/^(error|warning): /m);
  });
});

describe('why an ask tool was denied is said truthfully', () => {
  it('no --approve flag and no terminal', async () => {
    const result = await runCli(['run', 'ask.lua'], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      "ask.lua:1: tools.call('shout') was denied: no terminal to ask on and no --approve flag (run on a terminal, or pass --approve ask to answer on stdin, or --approve auto to allow it)\n",
    );
    expect(result.stdout).not.toContain('--approve deny');
  });

  it('--approve deny given', async () => {
    const result = await runCli(['run', 'ask.lua', '--approve', 'deny'], { cwd: dir });
    expect(result.stdout).toBe("ask.lua:1: tools.call('shout') was denied: denied by --approve deny\n");
  });

  it('--approve auto runs it', async () => {
    const result = await runCli(['run', 'ask.lua', '--approve', 'auto'], { cwd: dir });
    expect(result.stdout).toBe('hi\n');
  });
});

describe('keys set|delete refuse names that are neither a provider nor a tools.yaml secret', () => {
  it.each([['set'], ['delete']])(
    'keys %s nosuchprovider: exit 2, the valid names listed, keychain untouched',
    async (action) => {
      // No D-Bus at all: had the CLI tried the keychain, the error would be the keychain's.
      const result = await runCli(['keys', action, 'nosuchprovider'], { cwd: dir, stdin: 'sk-should-not-be-stored\n' });
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(
        `"nosuchprovider" is not a provider id or a secret named in tools.yaml; providers: ${PROVIDERS.join(', ')}; tools.yaml secrets: search-proxy`,
      );
      expect(result.stderr).not.toMatch(/keychain|D-Bus/);
    },
  );

  it('outside a workspace only provider ids are valid', async () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'pf-msg-empty-'));
    const result = await runCli(['keys', 'set', 'search-proxy'], { cwd: empty, stdin: 'x\n' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`"search-proxy" is not a provider id; providers: ${PROVIDERS.join(', ')}\n`);
  });

  it('a provider id and a tools.yaml secret are stored in a real keychain, and status lists both', async () => {
    const home = mkdtempSync(path.join(tmpdir(), 'pf-msg-home-'));
    const keyring = inPrivateKeyring(home);
    const setSecret = await runCli(['keys', 'set', 'search-proxy'], {
      cwd: dir,
      stdin: 'sk-proxy-canary-000\n',
      ...keyring,
    });
    expect(setSecret.code, setSecret.stderr).toBe(0);
    // A tools.yaml secret is the workspace's own for its destination (see main/core/trust/secret-scope.ts).
    expect(setSecret.stdout).toBe('Stored the key for search-proxy@http://127.0.0.1:9 in the OS keychain.\n');
    const setProvider = await runCli(['keys', 'set', 'groq'], { cwd: dir, stdin: 'sk-groq-canary-000\n', ...keyring });
    expect(setProvider.stdout).toBe('Stored the key for groq in the OS keychain.\n');
    const status = await runCli(['keys', 'status'], { cwd: dir, ...keyring });
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/^groq\s+set in the OS keychain$/m);
    expect(status.stdout).toMatch(
      /^search-proxy@http:\/\/127\.0\.0\.1:9\s+set in the OS keychain \(used by proxy \(header Authorization\)\)$/m,
    );
    expect(status.stdout).not.toContain('canary');
    const deleted = await runCli(['keys', 'delete', 'search-proxy'], { cwd: dir, ...keyring });
    expect(deleted.stdout).toBe('Deleted the key for search-proxy@http://127.0.0.1:9.\n');
  }, 60_000);
});

describe('where a key came from is said truthfully (real keychain, loopback provider)', () => {
  let server: ScriptedServer;
  let work: string;
  beforeAll(async () => {
    server = await startScriptedServer(byAssistantCount([{ content: 'pong' }]));
    work = mkdtempSync(path.join(tmpdir(), 'pf-msg-src-'));
    writeFileSync(path.join(work, 'models.yaml'), `g:\n  provider: groq\n  model: m\n  baseUrl: ${server.url}/v1\n`);
    writeFileSync(path.join(work, 'chat.lua'), `log(models.chat({ { role = 'user', content = 'ping' } }).content)`);
    // The Groq key goes to the loopback server only once that origin is approved for it.
    await approveKeyOriginForTests('groq', server.url);
  });
  afterAll(() => server.close());

  it('no key anywhere: no "key from" line, the error says how to set one', async () => {
    const home = mkdtempSync(path.join(tmpdir(), 'pf-msg-home-'));
    const result = await runCli(['run', 'chat.lua', '--model', 'g'], { cwd: work, ...inPrivateKeyring(home) });
    expect(result.code).toBe(1);
    expect(result.stderr).not.toMatch(/key from/);
    expect(result.stderr).toContain(
      'chat.lua:1: models.chat: no key for Groq: set one with `promptforge keys set groq` (headless runs may use GROQ_API_KEY)',
    );
    expect(server.requests.length).toBe(0);
  }, 60_000);

  it('from the environment, then from the keychain', async () => {
    const home = mkdtempSync(path.join(tmpdir(), 'pf-msg-home-'));
    const fromEnv = await runCli(['run', 'chat.lua', '--model', 'g'], {
      cwd: work,
      ...inPrivateKeyring(home, { GROQ_API_KEY: 'sk-env-canary-1' }),
    });
    expect(fromEnv.code, fromEnv.stderr).toBe(0);
    expect(fromEnv.stderr).toMatch(/^promptforge: groq key from GROQ_API_KEY in the environment$/m);
    expect(server.authHeaders.at(-1)).toBe('Bearer sk-env-canary-1');

    const keyring = inPrivateKeyring(home);
    expect(
      (await runCli(['keys', 'set', 'groq'], { cwd: work, stdin: 'sk-keychain-canary-2\n', ...keyring })).code,
    ).toBe(0);
    const fromKeychain = await runCli(['run', 'chat.lua', '--model', 'g'], { cwd: work, ...keyring });
    expect(fromKeychain.code, fromKeychain.stderr).toBe(0);
    expect(fromKeychain.stdout).toBe('pong\n');
    expect(fromKeychain.stderr).toMatch(/^promptforge: groq key from the OS keychain$/m);
    expect(server.authHeaders.at(-1)).toBe('Bearer sk-keychain-canary-2');
    expect(fromEnv.stderr + fromKeychain.stderr).not.toContain('canary');
  }, 60_000);
});

describe('exit codes come from the run status, in one place', () => {
  it('maps every status', () => {
    expect(exitCodeFor('ok')).toBe(EXIT.ok);
    expect(exitCodeFor('error')).toBe(1);
    expect(exitCodeFor('limit')).toBe(3);
    expect(exitCodeFor('stopped')).toBe(3);
  });

  it.each([
    [['run', 'ok.lua'], 0],
    [['run', 'bad.lua'], 1],
    [['run', 'spin.lua', '--cpu-limit', '0.2'], 3],
    [['run', 'ok.lua', '--nope'], 2],
  ])('%j exits %i', async (args, code) => {
    expect((await runCli(args, { cwd: dir })).code).toBe(code);
  });
});
