import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEADLESS_KEYRING_RECIPE } from '../../../main/core/credentials/keyring-secret-store.js';
import { byAssistantCount, startScriptedServer, type ScriptedServer } from '../../fixtures/scripted-openai-server.js';
import { approveKeyOriginForTests, trustForTests } from '../trust/trust-for-tests.js';
import { bin, NO_BUS, runCli } from './spawn-cli.js';

/** Two machines with no Secret Service: no D-Bus variable at all, and one that points nowhere. */
const NO_KEYCHAIN: [string, NodeJS.ProcessEnv][] = [
  ['DBUS_SESSION_BUS_ADDRESS unset', {}],
  ['DBUS_SESSION_BUS_ADDRESS at a missing socket', { DBUS_SESSION_BUS_ADDRESS: NO_BUS }],
];

let server: ScriptedServer;
let dir: string;
beforeAll(async () => {
  server = await startScriptedServer(byAssistantCount([{ content: 'hello from loopback' }]));
  dir = mkdtempSync(path.join(tmpdir(), 'pf-keyless-'));
  const models = ['ollama', 'lmstudio', 'vllm', 'openai-compatible', 'openai']
    .map((provider) => `${provider}-local:\n  provider: ${provider}\n  model: m\n  baseUrl: ${server.url}/v1\n`)
    .join('');
  writeFileSync(path.join(dir, 'models.yaml'), models);
  // An http tool whose header names a keychain secret: the keychain is read only if it is called.
  writeFileSync(
    path.join(dir, 'tools.yaml'),
    `search:\n  kind: http\n  url: ${server.url}/search\n  headers:\n    Authorization: { secret: search-proxy }\n`,
  );
  writeFileSync(path.join(dir, 'chat.lua'), `log(models.chat({ { role = 'user', content = 'hi' } }).content)`);
  // Its http tool names a keychain secret (only a trusted workspace's does), and each provider's
  // key (none here) may go to the loopback server.
  await trustForTests(dir);
  for (const provider of ['ollama', 'lmstudio', 'vllm', 'openai-compatible', 'openai'])
    await approveKeyOriginForTests(provider, server.url);
});
afterAll(() => server.close());

/** The environment of a machine without a keychain (PATH and HOME are added by spawnCli). */
function machine(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...extra };
}

describe.each(NO_KEYCHAIN)('keyless providers run with no keychain at all (%s)', (_name, env) => {
  it.each(['ollama', 'lmstudio', 'vllm', 'openai-compatible'])(
    '%s',
    async (provider) => {
      const before = server.authHeaders.length;
      const result = await runCli(['run', 'chat.lua', '--model', `${provider}-local`], { cwd: dir, env: machine(env) });
      expect(result.code, JSON.stringify(result)).toBe(0);
      expect(result.stdout).toBe('hello from loopback\n');
      expect(result.stderr).toMatch(
        new RegExp(
          `^promptforge: ${provider}: no key \\(the OS keychain is not available; .+ needs none\\); sending requests without one$`,
          'm',
        ),
      );
      expect(result.stderr).not.toMatch(/key from nowhere|key from\s*$|Secret Service over D-Bus/m);
      expect(server.authHeaders.length).toBe(before + 1);
      expect(server.authHeaders.at(-1)).toBeUndefined();
    },
    60_000,
  );

  it('--base-url with no key set', async () => {
    const result = await runCli(['run', 'chat.lua', '--base-url', `${server.url}/v1`, '--model-id', 'm'], {
      cwd: dir,
      env: machine(env),
    });
    expect(result.code, JSON.stringify(result)).toBe(0);
    expect(result.stdout).toBe('hello from loopback\n');
    expect(result.stderr).toContain('promptforge: openai-compatible: no key (the OS keychain is not available;');
    expect(server.authHeaders.at(-1)).toBeUndefined();
  }, 60_000);

  it('--base-url with OPENAI_API_KEY: the key from the environment, and why not the keychain', async () => {
    const canary = 'sk-canary-keyless-0123456789abcdef';
    const result = await runCli(['run', 'chat.lua', '--base-url', `${server.url}/v1`, '--model-id', 'm'], {
      cwd: dir,
      env: machine({ ...env, OPENAI_API_KEY: canary }),
    });
    expect(result.code, JSON.stringify(result)).toBe(0);
    expect(result.stderr).toContain(
      'promptforge: openai-compatible key from OPENAI_API_KEY in the environment (the OS keychain is not available)\n',
    );
    expect(server.authHeaders.at(-1)).toBe(`Bearer ${canary}`);
    expect(result.stdout + result.stderr).not.toContain(canary);
  }, 60_000);

  it('a provider that needs a key still gets the clear keychain error', async () => {
    const before = server.requests.length;
    const result = await runCli(['run', 'chat.lua', '--model', 'openai-local'], { cwd: dir, env: machine(env) });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^chat\.lua:1: .*No OS keychain \(Secret Service over D-Bus\) is available/m);
    expect(result.stderr).toContain(`\n  ${HEADLESS_KEYRING_RECIPE}\n`);
    expect(server.requests.length).toBe(before);
  }, 60_000);
});

describe('the keychain hint is a recipe that works when pasted', () => {
  it('extracted verbatim from the error and run in a shell with no D-Bus session, it reaches a keychain', async () => {
    const failed = await runCli(['keys', 'status'], { cwd: dir, env: {} });
    expect(failed.code).toBe(2);
    const recipe = /^ {2}(dbus-run-session .*)$/m.exec(failed.stderr)?.[1];
    expect(recipe, failed.stderr).toBeDefined();
    expect(recipe).not.toMatch(/\\\||`/);

    // A person's shell: `promptforge` on PATH, no D-Bus session, a home of its own.
    const home = mkdtempSync(path.join(tmpdir(), 'pf-recipe-'));
    const binDir = path.join(home, 'bin');
    mkdirSync(binDir);
    writeFileSync(path.join(binDir, 'promptforge'), `#!/bin/sh\nexec "${process.execPath}" "${bin}" "$@"\n`);
    chmodSync(path.join(binDir, 'promptforge'), 0o755);
    const shell = spawn('sh', ['-c', recipe!], {
      cwd: home,
      env: { PATH: `${binDir}:${process.env.PATH}`, HOME: home, XDG_DATA_HOME: path.join(home, 'share') },
    });
    let out = '';
    let err = '';
    shell.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    shell.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => shell.on('close', resolve));
    expect(code, err).toBe(0);
    expect(out).toMatch(/^openai\s+not set$/m);
    expect(out).toMatch(/^ollama\s+not set \(not needed\)$/m);
    expect(out + err).not.toContain('No OS keychain');
  }, 60_000);
});
