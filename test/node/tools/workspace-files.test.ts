import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBuiltinCatalog } from '../../../main/core/catalog/tool-catalog.js';
import { createToolRunner } from '../../../main/core/tools/tool-runner.js';
import type { ToolRunner } from '../../../main/core/tools/tool-spec.js';
import { makeTempDir, removeTempDir } from '../catalog/helpers.js';
import { noSecrets } from '../../fixtures/stubs.js';

/**
 * read_file and list_files against a hostile workspace: special files that would block or never
 * end, and a concurrent process swapping symbolic links in a loop while the tools run.
 */

const catalog = createBuiltinCatalog();
const readFileTool = catalog.get('read_file')!;
const listFilesTool = catalog.get('list_files')!;
const signal = () => new AbortController().signal;
const linuxOnly = process.platform === 'linux' ? it : it.skip;
let root: string;
let outside: string;
let runner: ToolRunner;
const cleanups: (() => Promise<void> | void)[] = [];

beforeEach(async () => {
  root = await makeTempDir('pf-ws-');
  outside = await makeTempDir('pf-outside-');
  await writeFile(path.join(outside, 'secret.txt'), 'OUTSIDE SECRET');
  runner = createToolRunner({ workspaceRoot: root, secrets: noSecrets });
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await removeTempDir(root);
  await removeTempDir(outside);
});

const read = (p: string) => runner.run(readFileTool, { path: p }, signal());
const list = (p: string) => runner.run(listFilesTool, { path: p }, signal());

describe('read_file refuses what is not a regular file, without blocking', () => {
  linuxOnly('a FIFO (opening it for reading would block forever)', async () => {
    expect(spawnSync('mkfifo', [path.join(root, 'pipe')]).status).toBe(0);
    await expect(read('pipe')).rejects.toThrow(
      '"pipe" is not a regular file (it is a named pipe); only files can be read',
    );
  });

  it('a unix socket', async () => {
    const server: Server = createServer();
    await new Promise<void>((resolve) => server.listen(path.join(root, 'sock'), resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    await expect(read('sock')).rejects.toThrow('"sock" is not a regular file');
  });

  it('/dev/zero and /dev/urandom through symbolic links (outside, and endless)', async () => {
    await symlink('/dev/zero', path.join(root, 'zero'));
    await symlink('/dev/urandom', path.join(root, 'random'));
    await expect(read('zero')).rejects.toThrow('path "zero" leads outside the workspace');
    await expect(read('random')).rejects.toThrow('path "random" leads outside the workspace');
  });

  const asRoot = process.platform === 'linux' && process.getuid?.() === 0 ? it : it.skip;
  asRoot('a character device node inside the workspace (mknod c 1 5, a /dev/zero)', async () => {
    expect(spawnSync('mknod', [path.join(root, 'zero-node'), 'c', '1', '5']).status).toBe(0);
    await expect(read('zero-node')).rejects.toThrow('"zero-node" is not a regular file (it is a device)');
    await expect(list('zero-node')).rejects.toThrow('"zero-node" is not a folder');
  });
});

/** A child process swapping links in a loop until killed (at most `iterations` swaps). */
async function startSwapper(code: string, iterations = 2_000_000): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-e', code, String(iterations)], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`the swapper exited early (${code})`)));
  });
  return child;
}

const SWAP_FILE = `
const fs = require('node:fs');
const [, outside] = [0, process.env.PF_OUTSIDE];
fs.writeFileSync('inside.txt', 'inside text');
fs.symlinkSync(outside + '/secret.txt', 'evil.tmp');
process.stdout.write('ready');
for (let i = 0, n = Number(process.argv[1]); i < n; i += 1) {
  // 'target' is a regular file, then atomically a symbolic link to the outside, and back.
  fs.copyFileSync('inside.txt', 'good.tmp');
  fs.renameSync('good.tmp', 'target');
  for (let k = 0; k < 1000; k += 1) fs.statSync('target'); // mostly inside, so reads succeed too
  try { fs.symlinkSync(outside + '/secret.txt', 'evil.tmp'); } catch {}
  fs.renameSync('evil.tmp', 'target');
}
`;

const SWAP_FOLDER = `
const fs = require('node:fs');
const outside = process.env.PF_OUTSIDE;
fs.mkdirSync('real-d');
fs.writeFileSync('real-d/secret.txt', 'inside text');
fs.mkdirSync('d');
fs.writeFileSync('d/secret.txt', 'inside text');
process.stdout.write('ready');
for (let i = 0, n = Number(process.argv[1]); i < n; i += 1) {
  // 'd' is a real folder, then a symbolic link to the outside folder, and back.
  fs.renameSync('d', 'd.away');
  fs.symlinkSync(outside, 'd');
  fs.unlinkSync('d');
  fs.renameSync('d.away', 'd');
  for (let k = 0; k < 1000; k += 1) fs.statSync('d'); // mostly inside, so reads succeed too
}
`;

describe('a concurrent writer swapping symbolic links never gets a read outside', () => {
  for (const [name, code, target] of [
    ['the file itself swapped for a link', SWAP_FILE, 'target'],
    ['a folder on the way swapped for a link', SWAP_FOLDER, 'd/secret.txt'],
  ] as const) {
    it(`${name}: zero escapes in 400 reads`, async () => {
      process.env['PF_OUTSIDE'] = outside;
      await startSwapper(code);
      let inside = 0;
      const escapes: string[] = [];
      for (let i = 0; i < 400; i += 1) {
        const output = await read(target).catch((error: Error) => error.message);
        if (output.includes('OUTSIDE SECRET')) escapes.push(output);
        if (output === 'inside text') inside += 1;
      }
      expect(escapes).toEqual([]);
      // The race was real: the reads also saw the file while it was inside.
      expect(inside).toBeGreaterThan(0);
    });
  }

  it('list_files on a folder swapped for a link: zero listings of the outside folder in 400 tries', async () => {
    process.env['PF_OUTSIDE'] = outside;
    await mkdir(path.join(outside, 'only-outside'));
    await startSwapper(SWAP_FOLDER);
    let listed = 0;
    const escapes: string[] = [];
    for (let i = 0; i < 400; i += 1) {
      const output = await list('d').catch((error: Error) => error.message);
      if (output.includes('only-outside')) escapes.push(output);
      if (output === 'secret.txt') listed += 1;
    }
    expect(escapes).toEqual([]);
    expect(listed).toBeGreaterThan(0);
  });
});
