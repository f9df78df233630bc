import { mkdir, readFile, symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createToolRunner } from '../../../main/core/tools/tool-runner.js';
import { ToolFailure } from '../../../main/core/tools/tool-spec.js';
import { makeTempDir, removeTempDir, waitFor } from '../catalog/helpers.js';
import { commandFixture, isRunning, spec } from './helpers.js';
import { noSecrets } from '../../fixtures/stubs.js';

const temps: string[] = [];
const pids: number[] = [];
afterEach(async () => {
  for (const pid of pids.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone, as it should be.
    }
  }
  await Promise.all(temps.splice(0).map(removeTempDir));
});
async function workspace(): Promise<string> {
  const dir = await makeTempDir('pf-tools-');
  temps.push(dir);
  return dir;
}
const node = process.execPath;
const signal = () => new AbortController().signal;

describe('command tools', () => {
  it('sends the arguments as JSON on stdin and returns stdout; cwd is relative to the workspace', async () => {
    const root = await workspace();
    await mkdir(path.join(root, 'sub'));
    const runner = createToolRunner({ workspaceRoot: root, secrets: noSecrets });
    const output = await runner.run(
      spec('echo_args', { kind: 'command', command: [node, commandFixture('echo-args.mjs')], cwd: 'sub' }),
      { text: 'héllo', n: 2 },
      signal(),
    );
    const parsed = JSON.parse(output) as { args: unknown; cwd: string };
    expect(parsed.args).toEqual({ text: 'héllo', n: 2 });
    expect(parsed.cwd).toBe(path.join(await (await import('node:fs/promises')).realpath(root), 'sub'));
  });

  it('passes only PATH and the allow-listed variables', async () => {
    const root = await workspace();
    process.env['PF_TEST_ALLOWED'] = 'yes';
    process.env['PF_TEST_SECRET'] = 'should-not-leak';
    try {
      const runner = createToolRunner({ workspaceRoot: root, secrets: noSecrets });
      const output = await runner.run(
        spec('env', {
          kind: 'command',
          command: [node, commandFixture('echo-args.mjs')],
          env: ['PF_TEST_ALLOWED', 'PF_TEST_UNSET'],
        }),
        {},
        signal(),
      );
      const env = (JSON.parse(output) as { env: Record<string, string> }).env;
      expect(env['PF_TEST_ALLOWED']).toBe('yes');
      expect(env['PF_TEST_SECRET']).toBeUndefined();
      expect(env['PATH']).toBe(process.env['PATH']);
      expect(env['HOME']).toBeUndefined();
      // Node itself may add a few variables of its own; nothing else from the host comes through.
      expect(
        Object.keys(env)
          .filter((name) => process.env[name] !== undefined)
          .sort(),
      ).toEqual(['PATH', 'PF_TEST_ALLOWED']);
    } finally {
      delete process.env['PF_TEST_ALLOWED'];
      delete process.env['PF_TEST_SECRET'];
    }
  });

  it('a non-zero exit is a ToolFailure with the code and the stderr tail', async () => {
    const root = await workspace();
    const runner = createToolRunner({ workspaceRoot: root, secrets: noSecrets });
    const failure = await runner
      .run(spec('fail', { kind: 'command', command: [node, commandFixture('fail.mjs')] }), {}, signal())
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ToolFailure);
    expect((failure as ToolFailure).message).toBe('exited with code 3: something broke: the widget is missing');
  });

  it('a timeout kills the whole process group, grandchild included', async () => {
    const root = await workspace();
    const pidFile = path.join(root, 'grandchild.pid');
    const runner = createToolRunner({ workspaceRoot: root, secrets: noSecrets });
    const failure = await runner
      .run(
        spec('hang', { kind: 'command', command: [node, commandFixture('spawn-grandchild.mjs')], timeoutMs: 1500 }),
        { pidFile },
        signal(),
      )
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ToolFailure);
    expect((failure as Error).message).toBe('timed out after 1500 ms (the process and its children were killed)');
    const grandchild = Number(await readFile(pidFile, 'utf8'));
    pids.push(grandchild);
    expect(grandchild).toBeGreaterThan(0);
    await waitFor(() => (isRunning(grandchild) ? undefined : true), `grandchild ${grandchild} to be gone`);
    expect(isRunning(grandchild)).toBe(false);
  });

  it('aborting the signal kills the tree too', async () => {
    const root = await workspace();
    const pidFile = path.join(root, 'grandchild.pid');
    const runner = createToolRunner({ workspaceRoot: root, secrets: noSecrets });
    const controller = new AbortController();
    const pending = runner
      .run(
        spec('hang', { kind: 'command', command: [node, commandFixture('spawn-grandchild.mjs')] }),
        { pidFile },
        controller.signal,
      )
      .catch((error: unknown) => error);
    const grandchild = await waitFor(async () => {
      try {
        const text = await readFile(pidFile, 'utf8');
        return text ? Number(text) : undefined;
      } catch {
        return undefined;
      }
    }, 'the grandchild pid');
    pids.push(grandchild);
    controller.abort();
    const failure = await pending;
    expect((failure as Error).message).toBe('cancelled (the process and its children were killed)');
    await waitFor(() => (isRunning(grandchild) ? undefined : true), `grandchild ${grandchild} to be gone`);
  });

  it('a command that exits leaving a background child returns, and the child is killed', async () => {
    const root = await workspace();
    const pidFile = path.join(root, 'bg.pid');
    const runner = createToolRunner({ workspaceRoot: root, secrets: noSecrets });
    const output = await runner.run(
      spec('bg', { kind: 'command', command: [node, commandFixture('leave-background.mjs')], timeoutMs: 20_000 }),
      { pidFile },
      signal(),
    );
    expect(output).toBe('done');
    const background = Number(await readFile(pidFile, 'utf8'));
    pids.push(background);
    await waitFor(() => (isRunning(background) ? undefined : true), `background ${background} to be gone`);
  });

  it('output over the cap fails with "output exceeded N bytes"', async () => {
    const root = await workspace();
    const runner = createToolRunner({ workspaceRoot: root, secrets: noSecrets });
    const tool = spec('big', {
      kind: 'command',
      command: [node, commandFixture('big-output.mjs')],
      maxOutputBytes: 1000,
    });
    expect(await runner.run(tool, { bytes: 1000 }, signal())).toBe('x'.repeat(1000));
    await expect(runner.run(tool, { bytes: 200_000 }, signal())).rejects.toThrow('output exceeded 1000 bytes');
  });

  it('a cwd outside the workspace, or a symlink leading out, is refused', async () => {
    const root = await workspace();
    await symlink('/tmp', path.join(root, 'out'));
    const runner = createToolRunner({ workspaceRoot: root, secrets: noSecrets });
    await expect(
      runner.run(spec('x', { kind: 'command', command: [node, '-e', ''], cwd: '../' }), {}, signal()),
    ).rejects.toThrow('working directory "../" is outside the workspace');
    await expect(
      runner.run(spec('x', { kind: 'command', command: [node, '-e', ''], cwd: 'out' }), {}, signal()),
    ).rejects.toThrow('working directory "out" leads outside the workspace');
  });

  it('a program that does not exist is a clear ToolFailure; no shell is involved', async () => {
    const root = await workspace();
    const runner = createToolRunner({ workspaceRoot: root, secrets: noSecrets });
    await expect(
      runner.run(spec('x', { kind: 'command', command: ['pf-no-such-program-xyz'] }), {}, signal()),
    ).rejects.toThrow('cannot start "pf-no-such-program-xyz": not found');
    // With a shell, `;` would start a second command; without one it is just part of the name.
    await expect(
      runner.run(spec('x', { kind: 'command', command: ['true; echo pwned'] }), {}, signal()),
    ).rejects.toThrow('not found');
  });
});
