import { describe, expect, it } from 'vitest';
import {
  DOWNLOAD_REPORT_PREFIX,
  downloadFailureMessage,
  type ElectronFacts,
  installerErrorLine,
  parseDownloadReport,
  planElectron,
  platformExecutable,
} from '../../../scripts/lib/electron-binary.js';

const installed: ElectronFacts = {
  platform: 'linux',
  packageVersion: '45.5.0',
  pathTxt: { kind: 'text', text: 'electron' },
  distVersion: '45.5.0',
  distExecutableExists: true,
};

describe('planElectron: what npm start does about the Electron binary', () => {
  it('launches an installed binary without downloading anything', () => {
    expect(planElectron(installed)).toEqual({ kind: 'ready', executable: 'electron', source: 'node_modules' });
    expect(planElectron({ ...installed, distVersion: 'v45.5.0' })).toMatchObject({ kind: 'ready' });
  });

  it.each([
    ['darwin', 'Electron.app/Contents/MacOS/Electron'],
    ['win32', 'electron.exe'],
    ['freebsd', 'electron'],
  ] as const)('knows the executable path Electron writes to path.txt on %s', (platform, executable) => {
    expect(platformExecutable(platform)).toBe(executable);
    expect(planElectron({ ...installed, platform, pathTxt: { kind: 'text', text: executable } })).toMatchObject({
      kind: 'ready',
      executable,
    });
  });

  it('runs the installer on the first start after npm install (no path.txt)', () => {
    expect(
      planElectron({ ...installed, pathTxt: { kind: 'missing' }, distVersion: null, distExecutableExists: false }),
    ).toEqual({
      kind: 'install',
      reason: 'the binary is not downloaded yet (first start after npm install)',
      corruptPathTxt: null,
    });
  });

  it('runs the installer when path.txt is right but the binary is gone or of another version', () => {
    expect(planElectron({ ...installed, distExecutableExists: false })).toMatchObject({
      kind: 'install',
      reason: 'the binary is missing from node_modules/electron/dist',
    });
    expect(planElectron({ ...installed, distVersion: '44.0.0' })).toMatchObject({
      kind: 'install',
      reason: 'node_modules/electron/dist holds Electron 44.0.0 instead',
    });
    expect(planElectron({ ...installed, distVersion: null })).toMatchObject({ kind: 'install' });
  });

  it.each([
    ['garbage', '"garbage"'],
    ['', '""'],
    ['electron\n', '"electron\\n"'],
    ['../../../bin/sh', '"../../../bin/sh"'],
    ['\u0000\u0001binary', '"\\u0000\\u0001binary"'],
    ['x'.repeat(500), `"${'x'.repeat(80)}…"`],
  ])('repairs a corrupt path.txt (%j) when the binary is there', (text, shown) => {
    expect(planElectron({ ...installed, pathTxt: { kind: 'text', text } })).toEqual({
      kind: 'repair-path-txt',
      executable: 'electron',
      expected: 'electron',
      found: shown,
    });
  });

  it('repairs a path.txt that cannot be read (a folder, say) when the binary is there', () => {
    expect(planElectron({ ...installed, pathTxt: { kind: 'unreadable', reason: 'not a file' } })).toMatchObject({
      kind: 'repair-path-txt',
      found: 'unreadable (not a file)',
    });
  });

  it('downloads again when path.txt is corrupt and the binary is missing, and says so', () => {
    expect(
      planElectron({ ...installed, pathTxt: { kind: 'text', text: 'junk' }, distExecutableExists: false }),
    ).toEqual({
      kind: 'install',
      reason: 'node_modules/electron/path.txt is corrupt ("junk", expected "electron") and the binary is missing',
      corruptPathTxt: '"junk"',
    });
  });

  it('uses ELECTRON_OVERRIDE_DIST_PATH and ELECTRON_EXEC_PATH as they are, never downloading', () => {
    const nothing: ElectronFacts = { ...installed, pathTxt: { kind: 'missing' }, distExecutableExists: false };
    expect(
      planElectron({ ...nothing, distPathOverride: { folder: '/opt/e', executable: '/opt/e/electron', exists: true } }),
    ).toEqual({ kind: 'ready', executable: '/opt/e/electron', source: 'ELECTRON_OVERRIDE_DIST_PATH' });
    expect(planElectron({ ...nothing, execPathOverride: { path: '/opt/e/electron', exists: true } })).toEqual({
      kind: 'ready',
      executable: '/opt/e/electron',
      source: 'ELECTRON_EXEC_PATH',
    });
  });

  it('refuses an override that points at nothing, naming the variable and the fix', () => {
    const plan = planElectron({
      ...installed,
      distPathOverride: { folder: '/nowhere', executable: '/nowhere/electron', exists: false },
    });
    expect(plan.kind).toBe('error');
    if (plan.kind !== 'error') return;
    expect(plan.message).toContain(
      'ELECTRON_OVERRIDE_DIST_PATH is set to "/nowhere", but "/nowhere/electron" does not exist',
    );
    expect(plan.message).toContain('Electron 45.5.0 executable (electron)');
    const exec = planElectron({ ...installed, execPathOverride: { path: '/nope/electron', exists: false } });
    expect(exec).toMatchObject({ kind: 'error' });
    if (exec.kind === 'error')
      expect(exec.message).toContain('ELECTRON_EXEC_PATH is set to "/nope/electron", but no file is there');
  });

  it('says when Electron has no build for the platform', () => {
    expect(planElectron({ ...installed, platform: 'aix' })).toEqual({
      kind: 'error',
      message: 'Electron has no builds for this platform (aix).',
    });
  });
});

describe('downloadFailureMessage: one message saying what failed and what to do', () => {
  const base = {
    version: '45.5.0',
    platform: 'linux' as const,
    reason: 'the binary is not downloaded yet (first start after npm install)',
    exitCode: 1,
    command: 'npm start',
  };
  const report = (fields: object) => `${DOWNLOAD_REPORT_PREFIX}${JSON.stringify(fields)}\n`;

  it('names the URL and the network error from the reporter, and every way out', () => {
    const stderr =
      report({
        url: 'https://example.invalid/e.zip',
        code: 'ENOTFOUND',
        message: 'getaddrinfo ENOTFOUND example.invalid',
      }) + 'TypeError: fetch failed\n    at node:internal/deps/undici/undici:1:1\n';
    const message = downloadFailureMessage({ ...base, stderr });
    expect(message.split('\n')[0]).toBe(
      'npm start: could not download Electron 45.5.0 (the binary is not downloaded yet (first start after npm install)).',
    );
    expect(message).toContain('  Tried: https://example.invalid/e.zip');
    expect(message).toContain('  Error: getaddrinfo ENOTFOUND example.invalid (the host name could not be resolved');
    expect(message).toContain('ELECTRON_MIRROR');
    expect(message).toContain('ELECTRON_OVERRIDE_DIST_PATH');
    expect(message).toContain('HTTPS_PROXY');
    expect(message).not.toContain('    at ');
    expect(message).not.toContain('Electron uninstall');
  });

  it('reports an HTTP error status, and the last of several attempts', () => {
    const stderr =
      report({ url: 'http://a/1', code: 'ECONNRESET', message: 'socket hang up' }) +
      report({ url: 'http://b/2', status: 404 });
    const message = downloadFailureMessage({ ...base, stderr });
    expect(message).toContain('  Tried: http://b/2\n  Answer: HTTP 404');
    expect(message).not.toContain('http://a/1');
  });

  it('falls back to the installer error line, then to its exit code, when there is no report', () => {
    expect(
      downloadFailureMessage({ ...base, stderr: 'Error: EACCES: permission denied, mkdir dist\n    at x\n' }),
    ).toContain('  Error: Error: EACCES: permission denied, mkdir dist');
    expect(downloadFailureMessage({ ...base, exitCode: 7, stderr: 'noise\n' })).toContain(
      "  Error: Electron's installer exited with code 7",
    );
  });

  it('ignores garbled or hostile report lines', () => {
    expect(parseDownloadReport(`${DOWNLOAD_REPORT_PREFIX}{not json\n${DOWNLOAD_REPORT_PREFIX}[1,2]\n`)).toBeNull();
    expect(parseDownloadReport(`${DOWNLOAD_REPORT_PREFIX}{"url":42}\n`)).toBeNull();
    expect(installerErrorLine(`Error: ${'x'.repeat(1000)}`)?.length).toBeLessThanOrEqual(301);
  });

  it('names the executable of the platform in the override hint', () => {
    expect(downloadFailureMessage({ ...base, platform: 'win32', stderr: '' })).toContain('(electron.exe)');
  });
});
