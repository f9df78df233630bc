import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createToolRunner } from '../../../main/core/tools/tool-runner.js';
import { ToolFailure } from '../../../main/core/tools/tool-spec.js';
import { makeTempDir, removeTempDir, waitFor } from '../catalog/helpers.js';
import { isRunning, spec } from './helpers.js';
import { noSecrets } from '../../fixtures/stubs.js';

/**
 * Hostile command tools: descendants that detach (setsid, double fork), ignore SIGTERM, hold
 * stdout open, or flood the pipes. After every call, however it ended, none of them may survive,
 * and no call may wait on a pipe a descendant holds.
 */

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
const signal = () => new AbortController().signal;
const linuxOnly = process.platform === 'linux' ? it : it.skip;

async function setup() {
  const root = await makeTempDir('pf-tree-');
  temps.push(root);
  return { root, runner: createToolRunner({ workspaceRoot: root, secrets: noSecrets }) };
}

/** `sh -c script` as a command tool. */
const shell = (script: string, extra: { timeoutMs?: number; maxOutputBytes?: number } = {}) =>
  spec('sh', { kind: 'command', command: ['sh', '-c', script], timeoutMs: 60_000, ...extra });

/** The pids written (one per line, by the fixture) into `file`, once there are `count`. */
async function pidsIn(file: string, count: number): Promise<number[]> {
  const found = await waitFor(async () => {
    const text = await readFile(file, 'utf8').catch(() => '');
    const list = text.split('\n').filter(Boolean).map(Number);
    return list.length >= count ? list : undefined;
  }, `${count} pids in ${file}`);
  pids.push(...found);
  return found;
}

async function allGone(list: number[]): Promise<void> {
  for (const pid of list) await waitFor(() => (isRunning(pid) ? undefined : true), `process ${pid} to be gone`);
}

/** A shell line that waits until FILE has N lines (the detached processes wrote their pids). */
const waitLines = (file: string, n: number) =>
  `while [ "$(cat ${file} 2>/dev/null | wc -l)" -lt ${n} ]; do sleep 0.01; done`;

describe('command tools: no descendant outlives the call', () => {
  linuxOnly(
    'a setsid grandchild holding stdout open: the call returns when the command exits, and it dies',
    async () => {
      const { root, runner } = await setup();
      const file = path.join(root, 'pids');
      // The grandchild keeps the stdout pipe open forever; waiting for 'close' would hang.
      const output = await runner.run(
        shell(`setsid sh -c 'echo $$ >> ${file}; exec sleep 1000' & ${waitLines(file, 1)}; echo done`),
        {},
        signal(),
      );
      expect(output).toBe('done\n');
      await allGone(await pidsIn(file, 1));
    },
  );

  linuxOnly('a setsid grandchild holding stdout while the command hangs: the timeout fires and both die', async () => {
    const { root, runner } = await setup();
    const file = path.join(root, 'pids');
    const pending = runner
      .run(
        shell(`setsid sh -c 'echo $$ >> ${file}; exec sleep 1000' & echo $$ >> ${file}; exec sleep 1000`, {
          timeoutMs: 1500,
        }),
        {},
        signal(),
      )
      .catch((error: unknown) => error);
    const both = await pidsIn(file, 2);
    const failure = await pending;
    expect(failure).toBeInstanceOf(ToolFailure);
    expect((failure as Error).message).toBe('timed out after 1500 ms (the process and its children were killed)');
    await allGone(both);
  });

  linuxOnly(
    'a double fork (parent gone, grandchild reparented, in its own session, ignoring SIGTERM) dies',
    async () => {
      const { root, runner } = await setup();
      const file = path.join(root, 'pids');
      const output = await runner.run(
        shell(
          `sh -c "setsid sh -c 'trap \\"\\" TERM HUP; echo \\$\\$ >> ${file}; while :; do sleep 1; done' </dev/null >/dev/null 2>&1 &" ; ` +
            `${waitLines(file, 1)}; echo ok`,
        ),
        {},
        signal(),
      );
      expect(output).toBe('ok\n');
      await allGone(await pidsIn(file, 1));
    },
  );

  linuxOnly('a double fork that renames itself and keeps stdout open, started after a delay, dies', async () => {
    const { root, runner } = await setup();
    const file = path.join(root, 'pids');
    // The intermediate exits at once, so the ppid chain to the grandchild is gone before any
    // snapshot can see it; the inherited marker still finds it.
    const output = await runner.run(
      shell(
        `(setsid bash -c 'sleep 0.2; echo $$ >> ${file}; exec -a innocent sleep 1000' &) ; ` +
          `${waitLines(file, 1)}; echo ok`,
      ),
      {},
      signal(),
    );
    expect(output).toBe('ok\n');
    await allGone(await pidsIn(file, 1));
  });

  linuxOnly('twenty detached sleepers started in a loop all die', async () => {
    const { root, runner } = await setup();
    const file = path.join(root, 'pids');
    const output = await runner.run(
      shell(
        `for i in $(seq 20); do setsid sh -c 'echo $$ >> ${file}; exec sleep 1000' & done; ${waitLines(file, 20)}; echo many`,
      ),
      {},
      signal(),
    );
    expect(output).toBe('many\n');
    await allGone(await pidsIn(file, 20));
  });

  it('a command that keeps starting detached processes until the timeout: every one that started dies', async () => {
    const { root, runner } = await setup();
    const file = path.join(root, 'pids');
    const failure = await runner
      .run(
        shell(
          `i=0; while [ $i -lt 300 ]; do setsid sh -c 'echo $$ >> ${file}; exec sleep 1000' & i=$((i+1)); done; wait`,
          {
            timeoutMs: 1500,
          },
        ),
        {},
        signal(),
      )
      .catch((error: unknown) => error);
    expect((failure as Error).message).toMatch(/^timed out after 1500 ms|^exited with code/);
    // Every process that got as far as writing its pid is gone.
    const text = await readFile(file, 'utf8').catch(() => '');
    const started = text.split('\n').filter(Boolean).map(Number);
    pids.push(...started);
    expect(started.length).toBeGreaterThan(0);
    await allGone(started);
  });

  it('a command that ignores SIGTERM is still killed on timeout, and its children with it', async () => {
    const { root, runner } = await setup();
    const file = path.join(root, 'pids');
    const pending = runner
      .run(
        shell(`trap '' TERM INT HUP; sleep 1000 & echo $! >> ${file}; echo $$ >> ${file}; while :; do sleep 1; done`, {
          timeoutMs: 1000,
        }),
        {},
        signal(),
      )
      .catch((error: unknown) => error);
    const both = await pidsIn(file, 2);
    expect(((await pending) as Error).message).toBe(
      'timed out after 1000 ms (the process and its children were killed)',
    );
    await allGone(both);
  });

  it('an endless stdout flood stops at the cap, and the flooder dies', async () => {
    const { root, runner } = await setup();
    const file = path.join(root, 'pids');
    const failure = await runner
      .run(shell(`echo $$ >> ${file}; exec yes flood`, { maxOutputBytes: 64 * 1024 }), {}, signal())
      .catch((error: unknown) => error);
    expect((failure as Error).message).toBe(`output exceeded ${64 * 1024} bytes`);
    await allGone(await pidsIn(file, 1));
  });

  it('an endless stderr flood does not grow memory: the timeout ends it', async () => {
    const { root, runner } = await setup();
    const file = path.join(root, 'pids');
    const failure = await runner
      .run(shell(`echo $$ >> ${file}; exec yes flood >&2`, { timeoutMs: 1500 }), {}, signal())
      .catch((error: unknown) => error);
    expect((failure as Error).message).toMatch(/^timed out after 1500 ms/);
    await allGone(await pidsIn(file, 1));
  });

  it('a 20 MB stderr before a failing exit is reported as a short tail', async () => {
    const { runner } = await setup();
    const failure = await runner
      .run(shell(`head -c 20000000 /dev/zero | tr '\\0' e >&2; echo END >&2; exit 3`), {}, signal())
      .catch((error: unknown) => error);
    const message = (failure as Error).message;
    expect(message).toMatch(/^exited with code 3: \.\.\.e+END$/);
    expect(message.length).toBeLessThan(600);
  });

  it('a grandchild flooding stdout after the command exited is cut at the cap or killed; the call ends', async () => {
    const { root, runner } = await setup();
    const file = path.join(root, 'pids');
    const result = await runner
      .run(
        shell(`sh -c 'echo $$ >> ${file}; exec yes late' & ${waitLines(file, 1)}; echo first`, {
          maxOutputBytes: 1024 * 1024,
        }),
        {},
        signal(),
      )
      .catch((error: unknown) => error);
    // Either the flood passed the cap first, or the command's exit killed the flooder first.
    if (result instanceof Error) expect(result.message).toBe(`output exceeded ${1024 * 1024} bytes`);
    else expect(typeof result).toBe('string');
    await allGone(await pidsIn(file, 1));
  });
});
