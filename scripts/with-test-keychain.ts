/**
 * Runs one command with the keychain the tests use (on Linux: a private D-Bus session with a
 * throwaway, unlocked GNOME Keyring, stopped and deleted afterwards), and exits with its code:
 *
 *   npx tsx scripts/with-test-keychain.ts npx vitest run test/node/credentials
 */
import { runStep, runWithTestKeychain } from './lib/keychain-session.js';

const [command, ...args] = process.argv.slice(2);
if (command === undefined) {
  process.stderr.write('usage: tsx scripts/with-test-keychain.ts COMMAND [ARGUMENTS...]\n');
  process.exit(2);
}
await runWithTestKeychain(() => runStep(command, args));
