import { spawn, spawnSync, type ChildProcessByStdio } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { machineForkCount, ProcessTree } from '../../../main/core/tools/process-tree.js';
import { makeTempDir, removeTempDir } from '../catalog/helpers.js';
import { isRunning } from './helpers.js';

/**
 * A process tree skips reading the process table when the machine created no process since its
 * last full snapshot (the fork count of /proc/stat). A grandchild forked after a snapshot, in a
 * session of its own, with an empty environment and its parent gone before the kill, is known
 * only from a snapshot taken after its fork: that snapshot must read the table.
 */

const temps: string[] = [];
const strays: number[] = [];
afterEach(async () => {
  for (const pid of strays.splice(0))
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone, as it should be
    }
  await Promise.all(temps.splice(0).map(removeTempDir));
});

/** The root: on "fork" starts an intermediate that starts the grandchild and prints its pid; on "release" the intermediate exits. */
const ROOT = `
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
const grandchild = "process.on('SIGTERM', () => {}); setInterval(() => {}, 1e6);";
const middleCode = \`
const { spawn } = require('node:child_process');
const g = spawn(process.execPath, ['-e', \${JSON.stringify(grandchild)}], { detached: true, stdio: 'ignore', env: {} });
process.stdout.write(g.pid + '\\\\n');
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
\`;
let middle;
for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'fork') {
    middle = spawn(process.execPath, ['-e', middleCode], { stdio: ['pipe', 'pipe', 'ignore'] });
    middle.stdout.on('data', (chunk) => process.stdout.write(chunk));
  } else if (line === 'release') {
    middle.on('exit', () => process.stdout.write('released\\n'));
    middle.stdin.end();
  }
}
`;

function lines(child: ChildProcessByStdio<Writable, Readable, null>): () => Promise<string> {
  const queue: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    const next = waiting.shift();
    if (next) next(line);
    else queue.push(line);
  });
  return () => {
    const line = queue.shift();
    return line === undefined ? new Promise((resolve) => waiting.push(resolve)) : Promise.resolve(line);
  };
}

describe.skipIf(process.platform !== 'linux')('process tree snapshots and the fork count', () => {
  it('the fork count is a positive integer that rises across a spawn', () => {
    const before = machineForkCount();
    expect(spawnSync(process.execPath, ['-e', '0']).status).toBe(0);
    const after = machineForkCount();
    expect(before).toBeGreaterThan(0);
    expect(after).toBeGreaterThan(before!);
  });

  it('the count read again through the kept descriptor is fresh each time, and the same as a fresh read of /proc/stat', () => {
    const fresh = () => Number(/^processes (\d+)$/m.exec(readFileSync('/proc/stat', 'latin1'))![1]);
    let last = machineForkCount()!;
    for (let round = 0; round < 5; round += 1) {
      expect(spawnSync(process.execPath, ['-e', '0']).status).toBe(0);
      const now = machineForkCount()!;
      expect(now).toBeGreaterThan(last);
      // Read after ours: other processes on the machine may fork in between, never the other way.
      expect(fresh()).toBeGreaterThanOrEqual(now);
      last = now;
    }
  });

  it('a grandchild forked after a snapshot, detached, without environment and orphaned, is still killed', async () => {
    const dir = await makeTempDir('pf-tree-forks-');
    temps.push(dir);
    const script = path.join(dir, 'root.mjs');
    writeFileSync(script, ROOT);
    const before = machineForkCount();
    const root = spawn(process.execPath, [script], { detached: true, stdio: ['pipe', 'pipe', 'ignore'] });
    await new Promise((resolve) => root.once('spawn', resolve));
    strays.push(root.pid!);
    const next = lines(root);
    const tree = new ProcessTree(root.pid!, 'pf-test-marker', before);
    tree.snapshot();
    tree.snapshot();
    root.stdin.write('fork\n');
    const grandchild = Number(await next());
    strays.push(grandchild);
    expect(grandchild).toBeGreaterThan(0);
    tree.snapshot();
    tree.snapshot();
    root.stdin.write('release\n');
    expect(await next()).toBe('released');
    expect(isRunning(grandchild)).toBe(true);
    tree.kill();
    await expect.poll(() => isRunning(grandchild) || isRunning(root.pid!)).toBe(false);
  });
});
