#!/usr/bin/env node
// The `promptforge` bin. It loads the CLI built into out/cli (by `npm install` through npm's
// `prepare` script, or `npm run build:cli`); no TypeScript loader runs at run time.
import { existsSync } from 'node:fs';

// A Ctrl-C while the CLI is still loading exits with the documented 3, not Node's default
// death by SIGINT (which a shell reports as 130). Once main() runs, it handles Ctrl-C itself.
const interruptedWhileLoading = () => {
  process.stderr.write('promptforge: interrupted (Ctrl-C)\n');
  process.exit(3);
};
process.on('SIGINT', interruptedWhileLoading);
const built = new URL('../../out/cli/cli.js', import.meta.url);
if (!existsSync(built) || !existsSync(new URL('../../out/cli/lua-worker.js', import.meta.url))) {
  process.stderr.write(
    'promptforge: the CLI is not built (out/cli is missing). Run `npm install` in the checkout, or `npm run build:cli`.\n',
  );
  process.exit(2);
}
const { main } = await import(built.href);
const exit = main(process.argv.slice(2));
process.off('SIGINT', interruptedWhileLoading);
process.exitCode = await exit;
