/**
 * Runs work (the test suite, or any command) with a keychain the tests may use: see
 * test-keychain.ts for the choice. On Linux this script runs itself again under
 * `dbus-run-session`, starts a throwaway GNOME Keyring there (its files in a temporary folder,
 * unlocked with a random password), checks that it answers, does the work, then stops the keyring
 * and deletes its folder; dbus-run-session stops the private bus when the script exits.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, constants, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  KEYCHAIN_CHOICE,
  keychainProbeFailure,
  type KeychainPlan,
  planTestKeychain,
  PRIVATE_SESSION_MARKER,
} from './test-keychain.js';
import { errorMessage } from '../../common/error-message.js';

const PROBE_SERVICE = 'PromptForge Studio (test probe)';
/** Only a guard against a keychain that never answers: the probe normally takes milliseconds. */
const PROBE_GUARD_MS = 60_000;

function onPath(command: string): boolean {
  for (const folder of (process.env['PATH'] ?? '').split(path.delimiter)) {
    if (folder === '') continue;
    try {
      accessSync(path.join(folder, command), constants.X_OK);
      return true;
    } catch {
      // not in this folder
    }
  }
  return false;
}

let current: ChildProcess | undefined;

/** Runs a command with inherited stdio; resolves its exit code (1 when killed by a signal). */
export function runStep(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'inherit', env });
    current = child;
    child.on('error', (error) => {
      process.stderr.write(`${command}: ${error.message}\n`);
      resolve(127);
    });
    child.on('close', (code, signal) => {
      current = undefined;
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

/** Ctrl-C reaches the running step through the terminal; this process waits for it to end. */
function forwardSignals(): void {
  process.on('SIGINT', () => undefined);
  for (const signal of ['SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      if (current) current.kill(signal);
      else process.exit(1);
    });
  }
}

/** Writes, reads and deletes one entry, the way the product does (pinned to Secret Service). */
async function probeKeychain(): Promise<string | null> {
  const { AsyncEntry } = await import('@napi-rs/keyring');
  const entry = new AsyncEntry(PROBE_SERVICE, `probe-${process.pid}`, { linux: { store: 'secret-service' } });
  const value = randomBytes(8).toString('hex');
  let guard: NodeJS.Timeout | undefined;
  const timedOut = new Promise<string>((resolve) => {
    guard = setTimeout(() => resolve(`no answer within ${PROBE_GUARD_MS / 1000} s`), PROBE_GUARD_MS);
  });
  const probe = (async () => {
    await entry.setPassword(value);
    const read = await entry.getPassword();
    await entry.deleteCredential();
    return read === value ? null : 'an entry written could not be read back';
  })().catch((error: unknown) => errorMessage(error));
  try {
    return await Promise.race([probe, timedOut]);
  } finally {
    clearTimeout(guard);
  }
}

interface ThrowawayKeyring {
  stop(): Promise<void>;
}

function waitForExit(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('close', (code) => resolve(code)));
}

/**
 * The longest path a Unix socket may have (sun_path holds 108 bytes with its NUL). The daemon binds
 * its control socket at $XDG_RUNTIME_DIR/keyring/control; a longer path is cut short and the
 * daemon cannot be reached ("couldn't bind to control socket").
 */
const SOCKET_PATH_MAX = 107;

/**
 * The keyring's runtime folder (mode 0700): inside `folder`, or, when $TMPDIR is so deep that the
 * control socket's path would be too long there, a short folder of its own under /tmp.
 */
function runtimeFolder(folder: string): string {
  const inside = path.join(folder, 'run');
  if (Buffer.byteLength(path.join(inside, 'keyring', 'control')) <= SOCKET_PATH_MAX) {
    mkdirSync(inside, { mode: 0o700 });
    return inside;
  }
  return mkdtempSync('/tmp/pf-keyring-');
}

async function startThrowawayKeyring(): Promise<ThrowawayKeyring> {
  const folder = mkdtempSync(path.join(tmpdir(), 'promptforge-test-keyring-'));
  const runtime = runtimeFolder(folder);
  // Its own HOME and XDG folders: the keyring files live in `folder`, and it never finds (or
  // unlocks) a daemon of the person's own session through $XDG_RUNTIME_DIR/keyring.
  const keyringEnv = {
    HOME: folder,
    XDG_DATA_HOME: path.join(folder, 'data'),
    XDG_CONFIG_HOME: path.join(folder, 'config'),
    XDG_CACHE_HOME: path.join(folder, 'cache'),
    XDG_RUNTIME_DIR: runtime,
  };
  // Should the bus ever start a keyring daemon itself (D-Bus activation), it gets the same folders.
  const activation = await runStep(
    'dbus-update-activation-environment',
    Object.entries(keyringEnv).map(([name, value]) => `${name}=${value}`),
  );
  if (activation !== 0) throw new Error(`dbus-update-activation-environment failed (exit ${activation})`);
  // --foreground: it stays this process's child; --unlock: it reads the password on stdin and
  // creates the login keyring unlocked (or unlocks the one its folder holds). It closes its stdout
  // once it serves the Secret Service.
  const password = randomBytes(16).toString('hex');
  let output = '';
  const keep = (chunk: string) => (output = (output + chunk).slice(-4096));
  let stopping = false;
  let restarts = 0;
  const startDaemon = (replace: boolean): { daemon: ChildProcess; ready: Promise<boolean> } => {
    const args = ['--foreground', ...(replace ? ['--replace'] : []), '--unlock', '--components=secrets'];
    const daemon = spawn('gnome-keyring-daemon', args, {
      env: { ...process.env, ...keyringEnv },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    daemon.stdout!.setEncoding('utf8').on('data', keep);
    daemon.stderr!.setEncoding('utf8').on('data', keep);
    daemon.stdin!.end(password);
    const ready = new Promise<boolean>((resolve) => {
      daemon.on('error', (error) => {
        keep(error.message);
        resolve(false);
      });
      daemon.stdout!.on('end', () => resolve(daemon.exitCode === null));
      daemon.on('close', () => resolve(false));
    });
    return { daemon, ready };
  };
  let current = startDaemon(false);
  const cleanUp = () => {
    stopping = true;
    current.daemon.kill('SIGTERM');
    for (const made of [runtime, folder]) rmSync(made, { recursive: true, force: true });
  };
  process.on('exit', cleanUp);
  if (!(await current.ready)) {
    cleanUp();
    throw new Error(`gnome-keyring-daemon did not start: ${output.trim() || 'no output'}`);
  }
  // The daemon has been seen to die under a heavy load (glib's trap in gnome-keyring-daemon). The
  // bus would then start one itself, with the keyring locked and no one to type its password, and
  // every keychain test after it would fail with "unlock prompt was dismissed". So it is started
  // again at once, with the same password (the keyring file, and what the tests stored, stay), and
  // replaces any daemon the bus started meanwhile.
  const supervise = (): void => {
    current.daemon.once('close', (code, signal) => {
      if (stopping || restarts >= MAX_KEYRING_RESTARTS) return;
      restarts += 1;
      process.stderr.write(
        `test keychain: gnome-keyring-daemon ended (${signal ?? `exit ${code}`}); started again, unlocked (${restarts} of at most ${MAX_KEYRING_RESTARTS})\n`,
      );
      current = startDaemon(true);
      supervise();
    });
  };
  supervise();
  return {
    async stop() {
      stopping = true;
      current.daemon.kill('SIGTERM');
      await waitForExit(current.daemon);
      process.off('exit', cleanUp);
      for (const made of [runtime, folder]) rmSync(made, { recursive: true, force: true });
    },
  };
}

/** How often a throwaway keyring daemon that died is started again in one run. */
const MAX_KEYRING_RESTARTS = 5;

function situation() {
  return {
    platform: process.platform,
    choice: process.env[KEYCHAIN_CHOICE],
    insidePrivateSession: process.env[PRIVATE_SESSION_MARKER] === '1',
    sessionBus: Boolean(process.env['DBUS_SESSION_BUS_ADDRESS']),
    commands: { dbusRunSession: onPath('dbus-run-session'), gnomeKeyringDaemon: onPath('gnome-keyring-daemon') },
  };
}

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

/** Does `work` with the test keychain in place, then exits with its exit code. */
export async function runWithTestKeychain(work: () => Promise<number>): Promise<never> {
  const plan: KeychainPlan = planTestKeychain(situation());
  // The marker is for this process only: tests that start the script again get their own session.
  delete process.env[PRIVATE_SESSION_MARKER];
  forwardSignals();
  if (plan.kind === 'error') fail(plan.message);
  if (plan.kind === 'private-session') {
    const script = process.argv[1] ?? fail('cannot tell which script to run again');
    const args = ['--', process.execPath, ...process.execArgv, script, ...process.argv.slice(2)];
    process.exit(await runStep('dbus-run-session', args, { ...process.env, [PRIVATE_SESSION_MARKER]: '1' }));
  }
  let keyring: ThrowawayKeyring | undefined;
  if (plan.kind === 'throwaway-keyring') {
    keyring = await startThrowawayKeyring().catch((error: unknown) =>
      fail(keychainProbeFailure(plan, errorMessage(error))),
    );
  }
  if (plan.kind !== 'os-keychain') {
    const problem = await probeKeychain();
    if (problem !== null) fail(keychainProbeFailure(plan, problem));
  }
  const code = await work();
  await keyring?.stop();
  process.exit(code);
}
