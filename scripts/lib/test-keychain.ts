/**
 * Which keychain the test suite uses. The keychain tests talk to the real OS keychain (under
 * service names of their own). On macOS and Windows that is the OS keychain as it is. On Linux
 * the suite runs in a private D-Bus session with a throwaway GNOME Keyring, created unlocked for
 * the run and deleted afterwards, so a missing session bus, a locked keyring or a desktop without
 * GNOME Keyring make no difference, and a person's own keyring is never touched.
 * `PROMPTFORGE_TEST_KEYCHAIN=session` uses the current session's Secret Service instead.
 *
 * Pure decisions only; scripts/lib/keychain-session.ts acts on them.
 */

/** Set for the script this script runs again under dbus-run-session (and for no other process). */
export const PRIVATE_SESSION_MARKER = 'PROMPTFORGE_TEST_PRIVATE_SESSION';
export const KEYCHAIN_CHOICE = 'PROMPTFORGE_TEST_KEYCHAIN';
export const LINUX_PACKAGES = 'gnome-keyring dbus dbus-x11 libsecret-tools';

export interface KeychainSituation {
  platform: NodeJS.Platform;
  /** The value of PROMPTFORGE_TEST_KEYCHAIN, if set. */
  choice: string | undefined;
  /** Whether this process runs inside the private session (PRIVATE_SESSION_MARKER is set). */
  insidePrivateSession: boolean;
  /** Whether DBUS_SESSION_BUS_ADDRESS is set (a session bus may be reachable). */
  sessionBus: boolean;
  /** Which of the commands the private session needs are on PATH. */
  commands: { dbusRunSession: boolean; gnomeKeyringDaemon: boolean };
}

export type KeychainPlan =
  /** macOS, Windows: the OS keychain as it is. */
  | { kind: 'os-keychain' }
  /** Linux, on request: the Secret Service of the current D-Bus session. */
  | { kind: 'session-keychain' }
  /** Linux: run this script again under dbus-run-session. */
  | { kind: 'private-session' }
  /** Linux, inside the private session: start a throwaway, unlocked GNOME Keyring. */
  | { kind: 'throwaway-keyring' }
  | { kind: 'error'; message: string };

export function planTestKeychain(situation: KeychainSituation): KeychainPlan {
  const choice = situation.choice ?? '';
  if (choice !== '' && choice !== 'private' && choice !== 'session') {
    return {
      kind: 'error',
      message: `${KEYCHAIN_CHOICE} must be "private" or "session", got ${JSON.stringify(choice.slice(0, 80))}.`,
    };
  }
  if (situation.platform !== 'linux') return { kind: 'os-keychain' };
  if (choice === 'session') {
    if (situation.sessionBus) return { kind: 'session-keychain' };
    return {
      kind: 'error',
      message:
        `${KEYCHAIN_CHOICE}=session asks for this session's keyring, but there is no D-Bus session ` +
        `(DBUS_SESSION_BUS_ADDRESS is unset). Unset ${KEYCHAIN_CHOICE} to let the tests start their own.`,
    };
  }
  if (situation.insidePrivateSession) return { kind: 'throwaway-keyring' };
  const missing = [
    ...(situation.commands.dbusRunSession ? [] : ['dbus-run-session']),
    ...(situation.commands.gnomeKeyringDaemon ? [] : ['gnome-keyring-daemon']),
  ];
  if (missing.length === 0) return { kind: 'private-session' };
  return {
    kind: 'error',
    message:
      `The keychain tests run in a private D-Bus session with a throwaway GNOME Keyring, but ${missing.join(' and ')} ` +
      `${missing.length === 1 ? 'is' : 'are'} not installed. On Debian or Ubuntu: sudo apt-get install -y ${LINUX_PACKAGES}` +
      ` (or set ${KEYCHAIN_CHOICE}=session to use your desktop session's keyring, unlocked).`,
  };
}

/** The message when the keychain the plan chose does not answer a write, read and delete. */
export function keychainProbeFailure(plan: KeychainPlan, detail: string): string {
  const shown = detail.length > 300 ? `${detail.slice(0, 300)}…` : detail;
  switch (plan.kind) {
    case 'throwaway-keyring':
      return (
        `The throwaway GNOME Keyring for the tests does not work: ${shown}. ` +
        `Check that these Debian packages are installed: ${LINUX_PACKAGES}.`
      );
    case 'session-keychain':
      return (
        `This session's keyring cannot be used for the tests: ${shown}. Unlock it (log in to the desktop, ` +
        `or unlock it in your keyring app), or unset ${KEYCHAIN_CHOICE} so the tests start a throwaway one.`
      );
    default:
      return `The OS keychain cannot be used for the tests: ${shown}.`;
  }
}
