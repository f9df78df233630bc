import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { keychainProbeFailure, type KeychainSituation, planTestKeychain } from '../../../scripts/lib/test-keychain.js';
import { repositoryRoot, run } from './project-copy.js';

const linux: KeychainSituation = {
  platform: 'linux',
  choice: undefined,
  insidePrivateSession: false,
  sessionBus: false,
  commands: { dbusRunSession: true, gnomeKeyringDaemon: true },
};

describe('planTestKeychain: which keychain npm test uses', () => {
  it('Linux with no D-Bus session at all: a private session with a throwaway keyring', () => {
    expect(planTestKeychain(linux)).toEqual({ kind: 'private-session' });
  });

  it("Linux with a session bus (whose keyring may be locked): still a private session, never the person's keyring", () => {
    expect(planTestKeychain({ ...linux, sessionBus: true })).toEqual({ kind: 'private-session' });
    expect(planTestKeychain({ ...linux, sessionBus: true, choice: 'private' })).toEqual({ kind: 'private-session' });
  });

  it('inside the private session: starts the throwaway keyring', () => {
    expect(planTestKeychain({ ...linux, insidePrivateSession: true, sessionBus: true })).toEqual({
      kind: 'throwaway-keyring',
    });
  });

  it('macOS and Windows: the OS keychain as it is', () => {
    expect(planTestKeychain({ ...linux, platform: 'darwin' })).toEqual({ kind: 'os-keychain' });
    expect(
      planTestKeychain({ ...linux, platform: 'win32', commands: { dbusRunSession: false, gnomeKeyringDaemon: false } }),
    ).toEqual({
      kind: 'os-keychain',
    });
  });

  it('names the missing commands and the Debian packages to install', () => {
    const plan = planTestKeychain({ ...linux, commands: { dbusRunSession: true, gnomeKeyringDaemon: false } });
    expect(plan.kind).toBe('error');
    if (plan.kind !== 'error') return;
    expect(plan.message).toContain('but gnome-keyring-daemon is not installed');
    expect(plan.message).toContain('sudo apt-get install -y gnome-keyring dbus dbus-x11 libsecret-tools');
    const both = planTestKeychain({ ...linux, commands: { dbusRunSession: false, gnomeKeyringDaemon: false } });
    expect(both).toMatchObject({ kind: 'error' });
    if (both.kind === 'error')
      expect(both.message).toContain('dbus-run-session and gnome-keyring-daemon are not installed');
  });

  it('PROMPTFORGE_TEST_KEYCHAIN=session uses the session keyring, and needs a session bus', () => {
    expect(planTestKeychain({ ...linux, choice: 'session', sessionBus: true })).toEqual({ kind: 'session-keychain' });
    const plan = planTestKeychain({ ...linux, choice: 'session' });
    expect(plan).toMatchObject({ kind: 'error' });
    if (plan.kind === 'error') expect(plan.message).toContain('DBUS_SESSION_BUS_ADDRESS is unset');
  });

  it('refuses an unknown PROMPTFORGE_TEST_KEYCHAIN value, quoting it', () => {
    expect(planTestKeychain({ ...linux, choice: 'yes please' })).toEqual({
      kind: 'error',
      message: 'PROMPTFORGE_TEST_KEYCHAIN must be "private" or "session", got "yes please".',
    });
  });

  it('explains a failing keychain per plan, bounded', () => {
    expect(keychainProbeFailure({ kind: 'session-keychain' }, 'unlock prompt was dismissed')).toContain(
      "This session's keyring cannot be used for the tests: unlock prompt was dismissed. Unlock it",
    );
    expect(keychainProbeFailure({ kind: 'throwaway-keyring' }, 'x'.repeat(5000)).length).toBeLessThan(600);
  });
});

const tsx = path.join(repositoryRoot, 'node_modules', 'tsx', 'dist', 'cli.mjs');
const withTestKeychain = path.join(repositoryRoot, 'scripts', 'with-test-keychain.ts');
// Writes, reads back and deletes a secret with the product's keychain library (pinned to Secret
// Service), then prints the bus it used.
const probe = `
const { AsyncEntry } = require('@napi-rs/keyring');
const entry = new AsyncEntry('PromptForge Studio (setup test)', 'probe', { linux: { store: 'secret-service' } });
(async () => {
  await entry.setPassword('probe-secret');
  const read = await entry.getPassword();
  await entry.deleteCredential();
  console.log(JSON.stringify({ read, bus: process.env.DBUS_SESSION_BUS_ADDRESS ?? null }));
})().catch((error) => { console.error('probe failed: ' + error.message); process.exit(1); });
`;

/** This environment without any D-Bus session or test-keychain settings. */
function withoutSession(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (name === 'DBUS_SESSION_BUS_ADDRESS' || name.startsWith('PROMPTFORGE_TEST_')) continue;
    env[name] = value;
  }
  return { ...env, ...extra };
}

/** Processes whose environment holds `NAME=value`: what a run left running. */
function processesWith(name: string, value: string): number[] {
  const needle = `${name}=${value}\0`;
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        return readFileSync(`/proc/${entry}/environ`, 'latin1').includes(needle);
      } catch {
        return false;
      }
    })
    .map(Number);
}

const canRunReal =
  process.platform === 'linux' &&
  ['dbus-run-session', 'gnome-keyring-daemon', 'secret-tool', 'dbus-send'].every(
    (command) => spawnSync('sh', ['-c', `command -v ${command}`]).status === 0,
  );

describe.runIf(process.platform === 'linux')('the test keychain for real (Linux)', () => {
  it('has what it needs (Debian: gnome-keyring dbus dbus-x11 libsecret-tools)', () => {
    expect(canRunReal).toBe(true);
  });

  it.runIf(canRunReal)(
    'with no D-Bus session at all: a private bus and an unlocked throwaway keyring, both stopped afterwards',
    async () => {
      const temporary = mkdtempSync(path.join(tmpdir(), 'pf-keychain-'));
      const result = await run(process.execPath, [tsx, withTestKeychain, process.execPath, '-e', probe], {
        cwd: repositoryRoot,
        env: withoutSession({ TMPDIR: temporary }),
      });
      expect(result.code, result.stderr).toBe(0);
      const seen = JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}') as { read: string; bus: string | null };
      expect(seen.read).toBe('probe-secret');
      expect(seen.bus).toMatch(/^unix:/);
      expect(seen.bus).not.toBe(process.env['DBUS_SESSION_BUS_ADDRESS'] ?? '');
      // The keyring's folder is gone, and nothing the run started (the bus, the keyring) is left.
      expect(readdirSync(temporary).filter((name) => name.startsWith('promptforge-test-keyring-'))).toEqual([]);
      expect(processesWith('TMPDIR', temporary)).toEqual([]);
    },
    120_000,
  );

  it.runIf(canRunReal)(
    'a throwaway keyring daemon that dies is started again, unlocked, with what was stored in it',
    async () => {
      const temporary = mkdtempSync(path.join(tmpdir(), 'pf-crash-keyring-'));
      // Stores a secret, kills the daemon as a crash would, then reads the secret back. Until the
      // new daemon serves and is unlocked, a read fails (or finds the collection locked); on a busy
      // machine that takes a while, so the read is tried again until it answers (at most 1,200
      // times, a tenth of a second apart, within the test's own timeout).
      const script = [
        'echo -n kept | secret-tool store --label=t service pf-crash account a',
        'daemon=$(pgrep -P $PPID gnome-keyring)',
        'kill -SEGV $daemon',
        'while kill -0 $daemon 2>/dev/null; do :; done',
        'value=; for i in $(seq 1200); do value=$(secret-tool lookup service pf-crash account a 2>/dev/null) && [ -n "$value" ] && break; sleep 0.1; done',
        'echo "read=$value"',
      ].join('; ');
      const result = await run(process.execPath, [tsx, withTestKeychain, 'bash', '-c', script], {
        cwd: repositoryRoot,
        env: withoutSession({ TMPDIR: temporary }),
      });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain('read=kept');
      expect(result.stderr).toMatch(/gnome-keyring-daemon ended \(SIGSEGV\); started again, unlocked/);
      expect(processesWith('TMPDIR', temporary)).toEqual([]);
    },
    120_000,
  );

  it.runIf(canRunReal)(
    'in a D-Bus session whose keyring is locked: the tests get their own keyring, and the locked one is not touched',
    async () => {
      const home = mkdtempSync(path.join(tmpdir(), 'pf-locked-home-'));
      mkdirSync(path.join(home, 'run'), { mode: 0o700 });
      const script = path.join(home, 'locked-session.sh');
      writeFileSync(
        script,
        [
          'printf pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null',
          // Wait (on the bus itself) until the daemon serves the Secret Service, then lock it.
          'dbus-send --session --print-reply --dest=org.freedesktop.secrets /org/freedesktop/secrets org.freedesktop.Secret.Service.Lock array:objpath:/org/freedesktop/secrets/collection/login >/dev/null || exit 90',
          'if printf x | secret-tool store --label=l service pf-locked-check username u 2>/dev/null; then exit 91; fi',
          'cksum "$XDG_DATA_HOME/keyrings/login.keyring" > "$HOME/before.txt"',
          `"${process.execPath}" "${tsx}" "${withTestKeychain}" "${process.execPath}" -e "$PROBE" > "$HOME/private.txt" 2>&1; echo "private=$?" >> "$HOME/codes.txt"`,
          `PROMPTFORGE_TEST_KEYCHAIN=session "${process.execPath}" "${tsx}" "${withTestKeychain}" true > "$HOME/session.txt" 2>&1; echo "session=$?" >> "$HOME/codes.txt"`,
          'cksum "$XDG_DATA_HOME/keyrings/login.keyring" > "$HOME/after.txt"',
        ].join('\n'),
      );
      const result = await run('dbus-run-session', ['--', 'sh', script], {
        cwd: repositoryRoot,
        env: withoutSession({
          HOME: home,
          XDG_DATA_HOME: path.join(home, 'data'),
          XDG_CONFIG_HOME: path.join(home, 'config'),
          XDG_CACHE_HOME: path.join(home, 'cache'),
          XDG_RUNTIME_DIR: path.join(home, 'run'),
          PROBE: probe,
        }),
      });
      expect(result.code, result.stderr).toBe(0);
      const codes = readFileSync(path.join(home, 'codes.txt'), 'utf8');
      const privateOutput = readFileSync(path.join(home, 'private.txt'), 'utf8');
      expect(codes, privateOutput).toContain('private=0');
      expect(privateOutput).toContain('"read":"probe-secret"');
      // Asked to use the locked session keyring instead, it refuses with what to do.
      expect(codes).toContain('session=1');
      expect(readFileSync(path.join(home, 'session.txt'), 'utf8')).toContain(
        "This session's keyring cannot be used for the tests:",
      );
      expect(readFileSync(path.join(home, 'after.txt'), 'utf8')).toBe(
        readFileSync(path.join(home, 'before.txt'), 'utf8'),
      );
    },
    180_000,
  );
});
