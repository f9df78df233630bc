/**
 * `npm test`: builds the app, then runs every suite with vitest, with a keychain the tests may use
 * (scripts/lib/keychain-session.ts: on Linux a private D-Bus session with a throwaway GNOME Keyring).
 *
 *   npm test                                   # everything
 *   npm test -- test/node/credentials          # arguments after -- go to `vitest run`
 *   npm run test:node                          # the Node tests (test/node), no browser
 *   npm run test:node -- test/node/run         # some of them
 */
import path from 'node:path';
import { runStep, runWithTestKeychain } from './lib/keychain-session.js';
import { warnIfNodeTooOld } from '../main/cli/node-version.mjs';
import { packageFile, projectRoot } from './lib/project.js';

warnIfNodeTooOld(path.join(projectRoot, 'package.json'));
// `npx tsx scripts/test.ts -- FILE` passes the `--` on (npm consumes its own); vitest would then
// ignore the file filters after it and run everything, so a leading `--` is dropped.
// `--node` (npm run test:node, the fast tier): the Node tests only (test/node), or the files and
// folders given after it.
const given = process.argv.slice(2);
const nodeTier = given[0] === '--node';
const rest = nodeTier ? given.slice(1) : given;
const filters = rest[0] === '--' ? rest.slice(1) : rest;
const vitestArgs = nodeTier && !filters.some((arg) => !arg.startsWith('-')) ? ['test/node', ...filters] : filters;
// Node's compile cache for every process of the run (vitest's, the CLI's and the MCP servers the
// tests start): V8 keeps the compiled code of the dependencies and of out/ on disk, so a run after
// the first parses and compiles none of it again. It lives with the installed packages (a fresh
// clone starts without it), and a stale entry is refused by V8's own checks, never used.
// NODE_DISABLE_COMPILE_CACHE=1 turns it off; a NODE_COMPILE_CACHE of your own is kept.
process.env['NODE_COMPILE_CACHE'] ??= path.join(projectRoot, 'node_modules', '.cache', 'node-compile-cache');
await runWithTestKeychain(async () => {
  const built = await runStep(process.execPath, [packageFile('electron-vite', 'bin/electron-vite.js'), 'build']);
  if (built !== 0) return built;
  return runStep(process.execPath, [packageFile('vitest', 'vitest.mjs'), 'run', ...vitestArgs]);
});
