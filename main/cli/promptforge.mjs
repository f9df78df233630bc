#!/usr/bin/env node
// The `promptforge` bin. It loads the CLI built into out/cli (by `npm install` through npm's
// `prepare` script, or `npm run build:cli`); no TypeScript loader runs at run time.
import { existsSync } from 'node:fs';
import module from 'node:module';
import { warnIfNodeTooOld } from './node-version.mjs';

// An older Node.js than package.json's floor is named first: what fails later would not say why.
warnIfNodeTooOld(new URL('../../package.json', import.meta.url));

// V8 keeps the compiled CLI on disk (Node's compile cache, in the system's temporary folder), so a
// start after the first skips parsing it. NODE_DISABLE_COMPILE_CACHE=1 turns this off.
module.enableCompileCache?.();

// A Ctrl-C while the CLI is still loading exits with the documented 3, not Node's default
// death by SIGINT (which a shell reports as 130). Once main() runs, it handles Ctrl-C itself.
const interruptedWhileLoading = () => {
  process.stderr.write('promptforge: interrupted (Ctrl-C)\n');
  process.exit(3);
};
process.on('SIGINT', interruptedWhileLoading);
const built = new URL('../../out/cli/cli.js', import.meta.url);
const workerPool = new URL('../../out/cli/worker-pool.js', import.meta.url);
if (
  !['cli.js', 'lua-worker.js', 'worker-pool.js'].every((file) =>
    existsSync(new URL(`../../out/cli/${file}`, import.meta.url)),
  )
) {
  process.stderr.write(
    'promptforge: the CLI is not built (out/cli is missing). Run `npm install` in the checkout, or `npm run build:cli`.\n',
  );
  process.exit(2);
}
const args = process.argv.slice(2);
// `run` needs a Lua worker: it boots (wasmoon's compile) on its own thread while the CLI loads.
// (Mirrors wantsHelp in help.ts: `run --help` starts none.)
const options = args.slice(1, args.includes('--') ? args.indexOf('--') : undefined);
let pool;
if (args[0] === 'run' && !options.includes('--help') && !options.includes('-h')) {
  const { WorkerPool } = await import(workerPool.href);
  pool = new WorkerPool({ size: 1 });
  pool.prewarm();
}
const { main, defaultIo } = await import(built.href);
const exit = main(args, pool ? { ...defaultIo(), pool } : defaultIo());
process.off('SIGINT', interruptedWhileLoading);
try {
  process.exitCode = await exit;
} finally {
  await pool?.close();
}
