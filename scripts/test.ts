/**
 * `npm test`: builds the app, then runs every suite with vitest, with a keychain the tests may use
 * (scripts/lib/keychain-session.ts: on Linux a private D-Bus session with a throwaway GNOME Keyring).
 *
 *   npm test                                   # everything
 *   npm test -- test/node/credentials          # arguments after -- go to `vitest run`
 */
import { runStep, runWithTestKeychain } from './lib/keychain-session.js';
import { warnIfNodeTooOld } from './lib/node-version.js';
import { packageFile, projectRoot } from './lib/project.js';

warnIfNodeTooOld(projectRoot);
const vitestArgs = process.argv.slice(2);
await runWithTestKeychain(async () => {
  const built = await runStep(process.execPath, [packageFile('electron-vite', 'bin/electron-vite.js'), 'build']);
  if (built !== 0) return built;
  return runStep(process.execPath, [packageFile('vitest', 'vitest.mjs'), 'run', ...vitestArgs]);
});
