import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { KeyringSecretStore } from '../../../main/core/credentials/keyring-secret-store.js';
import { readTranscript } from '../../../main/core/transcript/transcript-reader.js';
import { runCliInProcess } from './spawn-cli.js';

// Keys go to the real OS keychain (GNOME Keyring in CI), under a service name of their own so a
// person's real keys are never touched.
const SERVICE = 'PromptForge Studio (cli-test)';
const store = new KeyringSecretStore({ service: SERVICE });
const canary = 'sk-canary-keys-0123456789abcdefXYZ';

function cli(
  args: string[],
  stdinText: string,
  cwd = tmpdir(),
): Promise<{ code: number; stdout: string; stderr: string }> {
  return runCliInProcess(args, { cwd, secrets: store, stdin: stdinText });
}

afterAll(async () => {
  await store.delete('groq');
});

describe('promptforge keys (real OS keychain)', () => {
  it('set reads the key from stdin, status shows it as set without printing it, delete removes it', async () => {
    expect(await cli(['keys', 'set', 'groq'], `${canary}\n`)).toEqual({
      code: 0,
      stdout: 'Stored the key for groq in the OS keychain.\n',
      stderr: '',
    });
    expect(await store.get('groq')).toBe(canary);
    // The entry really is in Secret Service, where other tools (and the studio) find it.
    expect(execFileSync('secret-tool', ['lookup', 'service', SERVICE, 'username', 'groq']).toString()).toBe(canary);

    expect((await cli(['keys', 'set', 'groq'], 'sk-canary-second-key-000000\n')).stdout).toBe(
      'Replaced the key for groq in the OS keychain.\n',
    );
    const status = await cli(['keys', 'status'], '');
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/^groq\s+set in the OS keychain$/m);
    expect(status.stdout).toMatch(/^openai\s+not set$/m);
    expect(status.stdout).toMatch(/^ollama\s+not set \(not needed\)$/m);
    expect(status.stdout + status.stderr).not.toContain('sk-canary');

    expect(await cli(['keys', 'delete', 'groq'], '')).toMatchObject({ code: 0, stdout: 'Deleted the key for groq.\n' });
    expect(await store.has('groq')).toBe(false);
    expect((await cli(['keys', 'delete', 'groq'], '')).stdout).toBe('No key for groq was stored.\n');
  });

  it('refuses a key on the command line, an empty key, and a bad name', async () => {
    const onArgv = await cli(['keys', 'set', 'openai', canary], '');
    expect(onArgv.code).toBe(2);
    expect(onArgv.stderr).toContain('the key is read from stdin, never from the command line');
    expect(onArgv.stderr).not.toContain(canary);
    expect((await cli(['keys', 'set', 'openai'], '  \n')).stderr).toContain('no key given on stdin');
    expect((await cli(['keys', 'set', '../etc'], 'x')).stderr).toContain('"../etc" is not a provider id');
    expect((await cli(['keys', 'frob'], '')).code).toBe(2);
  });
});

describe('promptforge run --approve ask (terminal prompt)', () => {
  it('offers approve, edit then approve, and deny with a reason; the transcript records each', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pf-ask-'));
    writeFileSync(
      path.join(dir, 'tools.yaml'),
      `shout:\n  kind: builtin\n  builtin: echo\n  description: Echo that asks first\n  approval: ask\n`,
    );
    writeFileSync(
      path.join(dir, 'ask.lua'),
      `log(tools.call('shout', { text = 'one' }))\nlog(tools.call('shout', { text = 'two' }))\nlog(pcall(tools.call, 'shout', { text = 'three' }))`,
    );
    const transcript = path.join(dir, 'ask.jsonl');
    // approve; edit (then the edited JSON); deny (then the reason)
    const answers = 'a\ne\n{"text":"TWO, edited"}\nd\nnot this one\n';
    const result = await cli(['run', 'ask.lua', '--approve', 'ask', '--transcript', transcript], answers, dir);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("one\nTWO, edited\nfalse\task.lua:3: tools.call('shout') was denied: not this one\n");
    expect(result.stderr).toContain('shout');
    const decisions = readTranscript(transcript).flatMap((e) => (e.type === 'approval-decision' ? [e.decision] : []));
    expect(decisions).toMatchObject([
      { kind: 'approve', source: 'cli-prompt' },
      { kind: 'approve-edited', source: 'cli-prompt', arguments: { text: 'TWO, edited' } },
      { kind: 'deny', source: 'cli-prompt', reason: 'not this one' },
    ]);
  });
});
