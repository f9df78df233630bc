/**
 * `npm run test:loaded`: the whole suite (`npm test`, arguments passed on) while other processes
 * keep every core busy, to show that no test depends on timing. Each load process is a plain Node
 * busy loop (nothing to install); it ends with the run, or by itself if this script dies.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { runStep } from './lib/keychain-session.js';
import { projectRoot } from './lib/project.js';

// Spins, and every few million turns checks that its parent is still the one that started it.
const busyLoop = `
const parent = process.ppid;
for (let i = 0; ; i++) {
  if ((i & 0x3fffff) === 0 && process.ppid !== parent) process.exit(0);
}`;

const cores = os.availableParallelism();
const load: ChildProcess[] = [];
for (let i = 0; i < cores; i += 1) {
  load.push(spawn(process.execPath, ['-e', busyLoop], { stdio: 'ignore' }));
}
const stopLoad = () => {
  for (const child of load) child.kill('SIGKILL');
};
process.on('exit', stopLoad);
// Ctrl-C reaches npm test through the terminal; wait for it to finish, then stop the load.
process.on('SIGINT', () => undefined);
process.stdout.write(`test:loaded: ${cores} busy-loop processes keep all ${cores} cores busy during npm test\n`);

const code = await runStep(process.execPath, [
  ...process.execArgv,
  path.join(projectRoot, 'scripts', 'test.ts'),
  ...process.argv.slice(2),
]);
stopLoad();
process.stdout.write(`test:loaded: npm test under load exited with ${code}\n`);
process.exit(code);
