import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformExecutable } from '../../../scripts/lib/electron-binary.js';
import { cleanEnvironment, copyProject, repositoryRoot, run } from './project-copy.js';
import { storedZip } from './stored-zip.js';

// `npm start` and `npm run dev` as a user runs them, in a temporary copy of the project (see
// project-copy.ts), with a STAND-IN for the Electron executable (test/fixtures/stand-in-electron.mjs):
// a script that records how it was started. Downloads go to a loopback "mirror" that answers 404,
// so these tests never reach the network and never write to this checkout's node_modules.

const standIn = path.join(repositoryRoot, 'test', 'fixtures', 'stand-in-electron.mjs');
const tsxCli = path.join(repositoryRoot, 'node_modules', 'tsx', 'dist', 'cli.mjs');
const executable = platformExecutable(process.platform) ?? 'electron';
const electronVersion = (
  JSON.parse(readFileSync(path.join(repositoryRoot, 'node_modules', 'electron', 'package.json'), 'utf8')) as {
    version: string;
  }
).version;

interface StandInRecord {
  standIn: boolean;
  executable: string;
  args: string[];
  cwd: string;
  entry: string | null;
  entryExists: boolean;
  env: Record<string, string>;
}

/** Puts the stand-in where an Electron executable would be, under `folder`. */
function placeStandIn(folder: string): string {
  const target = path.join(folder, executable);
  mkdirSync(path.dirname(target), { recursive: true });
  copyFileSync(standIn, target);
  chmodSync(target, 0o755);
  return target;
}

let mirror: Server;
let mirrorUrl: string;
const mirrorRequests: string[] = [];
const electronBefore = readdirSync(path.join(repositoryRoot, 'node_modules', 'electron')).sort();

beforeAll(async () => {
  mirror = createServer((request, response) => {
    mirrorRequests.push(request.url ?? '');
    response.writeHead(404, { 'content-type': 'text/plain' }).end('no such release here');
  });
  await new Promise<void>((resolve) => mirror.listen(0, '127.0.0.1', resolve));
  mirrorUrl = `http://127.0.0.1:${(mirror.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  await new Promise((resolve) => mirror.close(resolve));
  // Nothing here may change the real checkout's electron package.
  expect(readdirSync(path.join(repositoryRoot, 'node_modules', 'electron')).sort()).toEqual(electronBefore);
});

function environment(record: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return cleanEnvironment({
    STAND_IN_ELECTRON_RECORD: record,
    ELECTRON_MIRROR: mirrorUrl,
    electron_config_cache: mkdtempSync(path.join(tmpdir(), 'pf-electron-cache-')),
    ...extra,
  });
}

function readRecord(file: string): StandInRecord {
  return JSON.parse(readFileSync(file, 'utf8')) as StandInRecord;
}

const TIMEOUT = 180_000;

describe.skipIf(process.platform === 'win32')('npm start with a stand-in Electron executable', () => {
  it(
    'builds the app and launches the executable in ELECTRON_OVERRIDE_DIST_PATH with the built main entry',
    async () => {
      const project = copyProject();
      const folder = mkdtempSync(path.join(tmpdir(), 'pf-stand-in-'));
      placeStandIn(folder);
      const record = path.join(folder, 'record.json');
      const before = mirrorRequests.length;
      const result = await run('npm', ['start'], {
        cwd: project.root,
        env: environment(record, { ELECTRON_OVERRIDE_DIST_PATH: folder }),
      });
      expect(result.code, result.stderr).toBe(0);
      const started = readRecord(record);
      expect(started.standIn).toBe(true);
      expect(started.args[0]).toBe('.');
      expect(started.cwd).toBe(project.root);
      expect(started.entry).toBe(path.join(project.root, 'out', 'main', 'index.js'));
      expect(started.entryExists).toBe(true);
      expect(started.env['NODE_ENV_ELECTRON_VITE']).toBe('production');
      expect(started.env['ELECTRON_EXEC_PATH']).toBe(path.join(folder, executable));
      expect(existsSync(path.join(project.root, 'out', 'renderer', 'index.html'))).toBe(true);
      // The override never downloads, and leaves node_modules/electron as npm install left it.
      expect(mirrorRequests.length).toBe(before);
      expect(readdirSync(project.electronDir).sort()).toEqual([
        'checksums.json',
        'cli.js',
        'index.js',
        'install.js',
        'node_modules',
        'package.json',
      ]);
    },
    TIMEOUT,
  );

  it.runIf(process.platform === 'linux' && process.arch === 'x64')(
    "first start on an online machine: Electron's own installer downloads and unpacks the binary, then it is launched",
    async () => {
      const project = copyProject();
      // A release archive as Electron publishes it (here: the stand-in and a version file), and
      // its checksum list, served by a loopback mirror.
      const archiveName = `electron-v${electronVersion}-linux-x64.zip`;
      const archive = storedZip([
        { name: 'electron', data: readFileSync(standIn), mode: 0o755 },
        { name: 'version', data: Buffer.from(electronVersion) },
      ]);
      const sums = `${createHash('sha256').update(archive).digest('hex')} *${archiveName}\n`;
      const served: string[] = [];
      const release = createServer((request, response) => {
        served.push(request.url ?? '');
        if (request.url === `/v${electronVersion}/${archiveName}`) {
          response.writeHead(200, { 'content-length': archive.length }).end(archive);
        } else if (request.url === `/v${electronVersion}/SHASUMS256.txt`) {
          response.writeHead(200).end(sums);
        } else {
          response.writeHead(404).end();
        }
      });
      await new Promise<void>((resolve) => release.listen(0, '127.0.0.1', resolve));
      try {
        const record = path.join(mkdtempSync(path.join(tmpdir(), 'pf-stand-in-')), 'record.json');
        const env = environment(record, {
          ELECTRON_MIRROR: `http://127.0.0.1:${(release.address() as AddressInfo).port}/`,
          electron_use_remote_checksums: '1',
        });
        const result = await run('npm', ['start'], { cwd: project.root, env });
        expect(result.code, result.stderr).toBe(0);
        expect(result.stdout).toContain(
          `Electron ${electronVersion}: the binary is not downloaded yet (first start after npm install). Downloading it with Electron's installer.`,
        );
        expect(result.stdout).toContain('Downloading Electron: 100%');
        expect(served).toContain(`/v${electronVersion}/${archiveName}`);
        expect(readFileSync(path.join(project.electronDir, 'path.txt'), 'utf8')).toBe('electron');
        const started = readRecord(record);
        expect(started.executable).toBe(path.join(project.electronDir, 'dist', 'electron'));
        expect(started.entry).toBe(path.join(project.root, 'out', 'main', 'index.js'));
        expect(started.entryExists).toBe(true);
        // Installed now: the next start downloads nothing.
        const requests = served.length;
        const again = await run(process.execPath, [tsxCli, 'scripts/ensure-electron.ts'], { cwd: project.root, env });
        expect(again.code, again.stderr).toBe(0);
        expect(served.length).toBe(requests);
      } finally {
        await new Promise((resolve) => release.close(resolve));
      }
    },
    TIMEOUT,
  );

  it(
    'npm run dev starts the dev server and the stand-in with the renderer URL',
    async () => {
      const project = copyProject();
      const folder = mkdtempSync(path.join(tmpdir(), 'pf-stand-in-'));
      placeStandIn(folder);
      const record = path.join(folder, 'record.json');
      const result = await run('npm', ['run', 'dev'], {
        cwd: project.root,
        env: environment(record, { ELECTRON_OVERRIDE_DIST_PATH: folder }),
      });
      expect(result.code, result.stderr).toBe(0);
      const started = readRecord(record);
      expect(started.entry).toBe(path.join(project.root, 'out', 'main', 'index.js'));
      expect(started.entryExists).toBe(true);
      expect(started.env['NODE_ENV_ELECTRON_VITE']).toBe('development');
      expect(started.env['ELECTRON_RENDERER_URL']).toMatch(/^http:\/\/localhost:\d+$/);
    },
    TIMEOUT,
  );

  it(
    'offline (the download fails): one clear message, exit 1, no "Electron uninstall", no stack trace',
    async () => {
      const project = copyProject();
      const record = path.join(mkdtempSync(path.join(tmpdir(), 'pf-stand-in-')), 'record.json');
      const before = mirrorRequests.length;
      const result = await run('npm', ['start'], { cwd: project.root, env: environment(record) });
      expect(result.code).toBe(1);
      const output = result.stdout + result.stderr;
      expect(result.stderr).toContain(
        `npm start: could not download Electron ${electronVersion} (the binary is not downloaded yet (first start after npm install)).`,
      );
      expect(result.stderr).toContain(`  Tried: ${mirrorUrl}v${electronVersion}/electron-v${electronVersion}-`);
      expect(result.stderr).toContain('  Answer: HTTP 404');
      expect(result.stderr).toContain('ELECTRON_MIRROR');
      expect(result.stderr).toContain('ELECTRON_OVERRIDE_DIST_PATH');
      expect(output).not.toContain('Electron uninstall');
      expect(output).not.toMatch(/^\s+at /m);
      expect(mirrorRequests.length).toBe(before + 1);
      // Nothing was half-installed, and nothing was started.
      expect(existsSync(path.join(project.electronDir, 'path.txt'))).toBe(false);
      expect(existsSync(path.join(project.electronDir, 'dist'))).toBe(false);
      expect(existsSync(record)).toBe(false);
    },
    TIMEOUT,
  );

  it(
    'offline with nothing listening: the message names the connection error',
    async () => {
      const project = copyProject();
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const port = (closed.address() as AddressInfo).port;
      await new Promise((resolve) => closed.close(resolve));
      const record = path.join(mkdtempSync(path.join(tmpdir(), 'pf-stand-in-')), 'record.json');
      const result = await run('npm', ['run', 'dev'], {
        cwd: project.root,
        env: environment(record, { ELECTRON_MIRROR: `http://127.0.0.1:${port}/` }),
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`npm run dev: could not download Electron ${electronVersion}`);
      expect(result.stderr).toMatch(/ {2}Error: .*ECONNREFUSED.* \(nothing answered at that address\)/);
      expect(result.stderr).toContain('then run `npm run dev` again');
    },
    TIMEOUT,
  );

  it.each([
    [
      'garbage text',
      (file: string) => writeFileSync(file, 'garbage\u0000../../bin/sh'),
      '"garbage\\u0000../../bin/sh"',
    ],
    ['a folder', (file: string) => mkdirSync(file), 'unreadable (not a file)'],
  ])(
    'a corrupt node_modules/electron/path.txt (%s) next to a good binary is repaired, then the app starts',
    async (_name, corrupt, shown) => {
      const project = copyProject();
      placeStandIn(path.join(project.electronDir, 'dist'));
      writeFileSync(path.join(project.electronDir, 'dist', 'version'), electronVersion);
      corrupt(path.join(project.electronDir, 'path.txt'));
      const record = path.join(mkdtempSync(path.join(tmpdir(), 'pf-stand-in-')), 'record.json');
      const before = mirrorRequests.length;
      const result = await run('npm', ['start'], { cwd: project.root, env: environment(record) });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain(
        `Repaired node_modules/electron/path.txt: it held ${shown}; the Electron binary is dist/${executable}.`,
      );
      expect(readFileSync(path.join(project.electronDir, 'path.txt'), 'utf8')).toBe(executable);
      const started = readRecord(record);
      expect(started.entry).toBe(path.join(project.root, 'out', 'main', 'index.js'));
      expect(started.entryExists).toBe(true);
      expect(started.env['ELECTRON_EXEC_PATH']).toBe(path.join(project.electronDir, 'dist', executable));
      expect(mirrorRequests.length).toBe(before);
      // Idempotent and free once repaired: no repair, no download.
      const again = await run(process.execPath, [tsxCli, 'scripts/ensure-electron.ts'], {
        cwd: project.root,
        env: environment(record),
      });
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toBe(`Electron is ready: ${path.join(project.electronDir, 'dist', executable)}\n`);
      expect(mirrorRequests.length).toBe(before);
    },
    TIMEOUT,
  );

  it(
    'a corrupt path.txt with no binary: downloads again, and says path.txt was corrupt when that fails',
    async () => {
      const project = copyProject();
      writeFileSync(path.join(project.electronDir, 'path.txt'), 'junk');
      const record = path.join(mkdtempSync(path.join(tmpdir(), 'pf-stand-in-')), 'record.json');
      const result = await run('npm', ['start'], { cwd: project.root, env: environment(record) });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(
        `npm start: could not download Electron ${electronVersion} (node_modules/electron/path.txt is corrupt ("junk", expected "${executable}") and the binary is missing).`,
      );
      expect(result.stdout + result.stderr).not.toContain('Electron uninstall');
    },
    TIMEOUT,
  );

  it(
    'behind a proxy: with ELECTRON_GET_USE_PROXY=1 the installer goes through HTTP_PROXY',
    async () => {
      const project = copyProject();
      // A loopback proxy that answers every tunnelled request itself (with the 404 mirror), so the
      // unresolvable host below is never looked up and nothing leaves this machine.
      const tunnels: string[] = [];
      const proxy = createServer((_request, response) => response.writeHead(502).end());
      proxy.on('connect', (request, socket) => {
        tunnels.push(request.url ?? '');
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        mirror.emit('connection', socket);
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      try {
        const record = path.join(mkdtempSync(path.join(tmpdir(), 'pf-stand-in-')), 'record.json');
        const before = mirrorRequests.length;
        const result = await run('npm', ['start'], {
          cwd: project.root,
          env: environment(record, {
            ELECTRON_MIRROR: 'http://electron-mirror.invalid/',
            ELECTRON_GET_USE_PROXY: '1',
            HTTP_PROXY: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
          }),
        });
        expect(result.code).toBe(1);
        expect(tunnels).toEqual(['electron-mirror.invalid:80']);
        expect(mirrorRequests.length).toBe(before + 1);
        expect(result.stderr).toContain(`  Tried: http://electron-mirror.invalid/v${electronVersion}/`);
        expect(result.stderr).toContain('  Answer: HTTP 404');
      } finally {
        await new Promise((resolve) => proxy.close(resolve));
      }
    },
    TIMEOUT,
  );

  it(
    'before npm install put electron there: says to run npm install',
    async () => {
      const project = copyProject();
      rmSync(project.electronDir, { recursive: true });
      const record = path.join(mkdtempSync(path.join(tmpdir(), 'pf-stand-in-')), 'record.json');
      const result = await run('npm', ['start'], { cwd: project.root, env: environment(record) });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('npm start: the electron package is not installed; run `npm install` first.');
      expect(result.stderr).not.toMatch(/^\s+at /m);
    },
    TIMEOUT,
  );

  it(
    'ELECTRON_OVERRIDE_DIST_PATH pointing at an empty folder: a clear error, no download',
    async () => {
      const project = copyProject();
      const empty = mkdtempSync(path.join(tmpdir(), 'pf-empty-'));
      const record = path.join(empty, 'record.json');
      const before = mirrorRequests.length;
      const result = await run('npm', ['start'], {
        cwd: project.root,
        env: environment(record, { ELECTRON_OVERRIDE_DIST_PATH: empty }),
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(
        `npm start: ELECTRON_OVERRIDE_DIST_PATH is set to ${JSON.stringify(empty)}, but ${JSON.stringify(path.join(empty, executable))} does not exist.`,
      );
      expect(mirrorRequests.length).toBe(before);
    },
    TIMEOUT,
  );
});
