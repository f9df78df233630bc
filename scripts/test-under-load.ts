/**
 * `npm run test:loaded`: the whole suite (`npm test`, arguments passed on) while other processes
 * keep every core busy, to show that no test depends on timing: two busy loops per core by default
 * (a load average of about 6 on 2 cores besides the suite's own work), PROMPTFORGE_LOAD_PER_CORE to
 * change it. Each load process is a plain Node busy loop (nothing to install); it ends with the
 * run, or by itself if this script dies.
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
const perCore = Number(process.env['PROMPTFORGE_LOAD_PER_CORE'] ?? 2);
if (!Number.isInteger(perCore) || perCore < 0)
  throw new Error(
    `PROMPTFORGE_LOAD_PER_CORE must be a whole number, got "${process.env['PROMPTFORGE_LOAD_PER_CORE']}"`,
  );
const load: ChildProcess[] = [];
for (let i = 0; i < cores * perCore; i += 1) {
  load.push(spawn(process.execPath, ['-e', busyLoop], { stdio: 'ignore' }));
}
const stopLoad = () => {
  for (const child of load) child.kill('SIGKILL');
};
process.on('exit', stopLoad);
// Ctrl-C reaches npm test through the terminal; wait for it to finish, then stop the load.
process.on('SIGINT', () => undefined);
process.stdout.write(
  `test:loaded: ${load.length} busy-loop processes (${perCore} per core) keep all ${cores} cores busy during npm test\n`,
);

const code = await runStep(process.execPath, [
  ...process.execArgv,
  path.join(projectRoot, 'scripts', 'test.ts'),
  ...process.argv.slice(2),
]);
stopLoad();
process.stdout.write(`test:loaded: npm test under load exited with ${code}\n`);
process.exit(code);
