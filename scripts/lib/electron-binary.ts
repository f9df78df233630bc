/**
 * Decisions about the Electron executable that `npm start` and `npm run dev` launch. Since
 * Electron 42 the `electron` package no longer downloads its binary when it is installed; its own
 * installer (`node_modules/electron/install.js`) does that on demand and then writes `path.txt`,
 * the executable's path inside `node_modules/electron/dist`. electron-vite reads only that file
 * (or `ELECTRON_EXEC_PATH`), so the start scripts settle which executable to run first.
 *
 * Everything here is pure: scripts/ensure-electron.ts gathers the facts and acts on the plan.
 */

/** What is on disk (and in the environment) about the Electron binary. */
export interface ElectronFacts {
  platform: NodeJS.Platform;
  /** `version` from node_modules/electron/package.json. */
  packageVersion: string;
  /** node_modules/electron/path.txt: absent, its text, or why it could not be read. */
  pathTxt: { kind: 'missing' } | { kind: 'text'; text: string } | { kind: 'unreadable'; reason: string };
  /** node_modules/electron/dist/version, or null when absent. */
  distVersion: string | null;
  /** Whether node_modules/electron/dist/<the platform's executable> is a file. */
  distExecutableExists: boolean;
  /** electron-vite's own override: the executable itself. */
  execPathOverride?: { path: string; exists: boolean } | undefined;
  /** Electron's override: a folder that holds the platform's executable. */
  distPathOverride?: { folder: string; executable: string; exists: boolean } | undefined;
}

export type ElectronPlan =
  /** Launch this executable; nothing to download. */
  | { kind: 'ready'; executable: string; source: 'ELECTRON_EXEC_PATH' | 'ELECTRON_OVERRIDE_DIST_PATH' | 'node_modules' }
  /** The binary is there but path.txt is wrong: rewrite it with `expected`. */
  | { kind: 'repair-path-txt'; executable: string; expected: string; found: string }
  /** Run Electron's own installer; `reason` says why, for the one line printed before it. */
  | { kind: 'install'; reason: string; corruptPathTxt: string | null }
  | { kind: 'error'; message: string };

/** The executable's path inside dist/, as Electron's install.js writes it to path.txt. */
export function platformExecutable(platform: NodeJS.Platform | 'mas'): string | null {
  switch (platform) {
    case 'darwin':
    case 'mas':
      return 'Electron.app/Contents/MacOS/Electron';
    case 'linux':
    case 'freebsd':
    case 'openbsd':
      return 'electron';
    case 'win32':
      return 'electron.exe';
    default:
      return null;
  }
}

/** Shows a file's text in a message: quoted, escaped, at most 80 characters. */
function quoteForMessage(text: string): string {
  const shown = text.length > 80 ? `${text.slice(0, 80)}…` : text;
  return JSON.stringify(shown);
}

export function planElectron(facts: ElectronFacts): ElectronPlan {
  const expected = platformExecutable(facts.platform);
  if (expected === null) {
    return { kind: 'error', message: `Electron has no builds for this platform (${facts.platform}).` };
  }
  if (facts.execPathOverride) {
    const { path, exists } = facts.execPathOverride;
    if (exists) return { kind: 'ready', executable: path, source: 'ELECTRON_EXEC_PATH' };
    return {
      kind: 'error',
      message:
        `ELECTRON_EXEC_PATH is set to ${quoteForMessage(path)}, but no file is there.\n` +
        'Point it at an Electron executable, or unset it to use (and if needed download) the one in node_modules/electron.',
    };
  }
  if (facts.distPathOverride) {
    const { folder, executable, exists } = facts.distPathOverride;
    if (exists) return { kind: 'ready', executable, source: 'ELECTRON_OVERRIDE_DIST_PATH' };
    return {
      kind: 'error',
      message:
        `ELECTRON_OVERRIDE_DIST_PATH is set to ${quoteForMessage(folder)}, but ${quoteForMessage(executable)} does not exist.\n` +
        `Point it at the folder that holds an Electron ${facts.packageVersion} executable (${expected}), ` +
        'or unset it to download Electron into node_modules/electron.',
    };
  }
  const versionMatches = facts.distVersion !== null && facts.distVersion.replace(/^v/, '') === facts.packageVersion;
  const binaryPresent = versionMatches && facts.distExecutableExists;
  const pathTxt = facts.pathTxt;
  if (pathTxt.kind === 'text' && pathTxt.text === expected) {
    if (binaryPresent) return { kind: 'ready', executable: expected, source: 'node_modules' };
    return {
      kind: 'install',
      reason: facts.distExecutableExists
        ? `node_modules/electron/dist holds Electron ${facts.distVersion ?? '(of no known version)'} instead`
        : 'the binary is missing from node_modules/electron/dist',
      corruptPathTxt: null,
    };
  }
  if (pathTxt.kind === 'missing') {
    return {
      kind: 'install',
      reason: 'the binary is not downloaded yet (first start after npm install)',
      corruptPathTxt: null,
    };
  }
  const found = pathTxt.kind === 'text' ? quoteForMessage(pathTxt.text) : `unreadable (${pathTxt.reason})`;
  if (binaryPresent) return { kind: 'repair-path-txt', executable: expected, expected, found };
  return {
    kind: 'install',
    reason: `node_modules/electron/path.txt is corrupt (${found}, expected ${quoteForMessage(expected)}) and the binary is missing`,
    corruptPathTxt: found,
  };
}

/** What the download attempt saw, as scripts/lib/report-electron-download.mjs prints it. */
export interface DownloadAttempt {
  url: string;
  /** HTTP status when the server answered with an error. */
  status?: number;
  /** The network error's code (ENOTFOUND, ECONNREFUSED, ...) and message when there was no answer. */
  code?: string;
  message?: string;
}

export const DOWNLOAD_REPORT_PREFIX = 'promptforge-electron-download:';

/** The last download attempt reported in the installer's stderr, if any. */
export function parseDownloadReport(stderr: string): DownloadAttempt | null {
  let last: DownloadAttempt | null = null;
  for (const line of stderr.split('\n')) {
    if (!line.startsWith(DOWNLOAD_REPORT_PREFIX)) continue;
    try {
      const value: unknown = JSON.parse(line.slice(DOWNLOAD_REPORT_PREFIX.length));
      if (typeof value === 'object' && value !== null && typeof (value as { url?: unknown }).url === 'string') {
        last = value as DownloadAttempt;
      }
    } catch {
      // A garbled report line is ignored; the installer's own error line is used instead.
    }
  }
  return last;
}

/** The installer's own error line: the first `SomethingError: ...` line of its output, bounded. */
export function installerErrorLine(stderr: string): string | null {
  for (const raw of stderr.split('\n')) {
    const line = raw.trim();
    if (line.startsWith(DOWNLOAD_REPORT_PREFIX)) continue;
    if (/^[A-Za-z]*Error\b/.test(line)) return line.length > 300 ? `${line.slice(0, 300)}…` : line;
  }
  return null;
}

function explainNetworkCode(code: string | undefined): string {
  switch (code) {
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return ' (the host name could not be resolved: no network, or no DNS)';
    case 'ECONNREFUSED':
      return ' (nothing answered at that address)';
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return ' (the connection timed out: a firewall or proxy may be in the way)';
    case 'ECONNRESET':
      return ' (the connection was cut: a proxy may be in the way)';
    default:
      return '';
  }
}

export interface DownloadFailure {
  version: string;
  platform: NodeJS.Platform;
  /** Why the installer ran (from the plan). */
  reason: string;
  exitCode: number | null;
  stderr: string;
  /** The command the user ran (`npm start`, `npm run dev`). */
  command: string;
}

/** The one message `npm start` prints when Electron could not be downloaded. */
export function downloadFailureMessage(failure: DownloadFailure): string {
  const attempt = parseDownloadReport(failure.stderr);
  const lines = [`${failure.command}: could not download Electron ${failure.version} (${failure.reason}).`];
  if (attempt) {
    lines.push(`  Tried: ${attempt.url}`);
    if (attempt.status !== undefined) lines.push(`  Answer: HTTP ${attempt.status}`);
    else if (attempt.message !== undefined || attempt.code !== undefined) {
      lines.push(`  Error: ${attempt.message ?? attempt.code}${explainNetworkCode(attempt.code)}`);
    }
  } else {
    const line = installerErrorLine(failure.stderr);
    lines.push(`  Error: ${line ?? `Electron's installer exited with code ${String(failure.exitCode)}`}`);
  }
  const executable = platformExecutable(failure.platform) ?? 'electron';
  lines.push(
    `Fix one of these, then run \`${failure.command}\` again:`,
    '  - the network: Electron downloads its binary once, from GitHub (behind a proxy, also set',
    '    ELECTRON_GET_USE_PROXY=1 with HTTPS_PROXY);',
    '  - a mirror you can reach: set ELECTRON_MIRROR to its base URL (ending in /);',
    `  - an Electron ${failure.version} you already have: set ELECTRON_OVERRIDE_DIST_PATH to the folder`,
    `    that holds its executable (${executable}).`,
  );
  return lines.join('\n');
}
