import {
  appendFileSync,
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { extractAll, extractFile, getRawHeader } from '@electron/asar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN, CLI_RESOURCES } from '../../../build/cli-launcher.mjs';
import { RUNTIME_PACKAGES } from '../../../build/node-bundle.mjs';
import { contractMethodNames } from '../../../common/contract.js';
import { PROVIDER_PRESETS } from '../../../main/core/providers/presets.js';
import { BUILT_WORKER_ENV } from '../../../main/core/run/worker-pool.js';
import { Signal, SIGNAL_SLOTS, type ToWorker } from '../../../main/core/run/worker-protocol.js';
import { cleanEnvironment, copyProject, repositoryRoot, run, type Finished } from '../setup/project-copy.js';

// The package as release packages are made from it: `npm run pack:dir` (electron-vite build, the
// CLI build, electron-builder --linux dir) in a temporary copy of the
// project, against a STAND-IN Electron distribution, named as such: a folder holding a stand-in
// `electron` executable (test/fixtures/stand-in-electron-as-node.sh, a Node when run with
// ELECTRON_RUN_AS_NODE=1) and the files of Electron's Linux zip electron-builder copies. Nothing is
// downloaded. The tests then read the archive with @electron/asar, weigh the payload, start the
// packaged main process from an extracted copy of the archive in plain Node with a stand-in
// `electron` module, run a Lua script on the worker it started, and run the packaged CLI through
// its launcher. Every process of the package loads its modules through
// package-only-resolution.mjs: a module from outside the package fails the test, naming it.

const here = path.join(repositoryRoot, 'test', 'node', 'packaging');
const resolutionHooks = pathToFileURL(path.join(here, 'package-only-resolution.mjs')).href;
const standInElectronModule = path.join(here, 'stand-in-electron-module.mjs');
const driver = path.join(here, 'start-packaged-main.mjs');
const MiB = 1024 * 1024;
/** The most the package's resources/ folder may weigh. */
const PAYLOAD_LIMIT = 25 * MiB;

interface Manifest {
  name: string;
  version: string;
  main: string;
  devDependencies: Record<string, string>;
}
const manifest = JSON.parse(readFileSync(path.join(repositoryRoot, 'package.json'), 'utf8')) as Manifest;

const work = mkdtempSync(path.join(tmpdir(), 'pf-packaging-'));
let project = '';
let packageDir = '';
let resources = '';
let archive = '';
let unpacked = '';

/** @electron/fuses' marker in Electron's executable, before the fuse wire. */
const FUSE_SENTINEL = 'dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX';
/**
 * Electron's fuses in wire order, with Electron's defaults ('1' on, '0' off): runAsNode,
 * cookieEncryption, nodeOptions, nodeCliInspect, embeddedAsarIntegrityValidation,
 * onlyLoadAppFromAsar, loadBrowserProcessSpecificV8Snapshot, grantFileProtocolExtraPrivileges.
 */
const STAND_IN_FUSE_DEFAULTS = '10110001';

/** The stand-in Electron distribution electron-builder packs instead of Electron's Linux zip. */
function standInElectronDistribution(folder: string): string {
  mkdirSync(path.join(folder, 'locales'), { recursive: true });
  copyFileSync(path.join(repositoryRoot, 'test/fixtures/stand-in-electron-as-node.sh'), path.join(folder, 'electron'));
  // Electron's fuse wire, as a real executable carries it (after `exec`, so the shell never reads
  // it): the sentinel, the wire's version and length, then one byte per fuse in Electron's order,
  // at Electron's defaults. electron-builder flips them as electron-builder.yml says.
  appendFileSync(
    path.join(folder, 'electron'),
    Buffer.concat([
      Buffer.from(`# ${FUSE_SENTINEL}`),
      Buffer.from([1, STAND_IN_FUSE_DEFAULTS.length]),
      Buffer.from(STAND_IN_FUSE_DEFAULTS),
      Buffer.from('\n'),
    ]),
  );
  chmodSync(path.join(folder, 'electron'), 0o755);
  const electron = readFileSync(path.join(repositoryRoot, 'node_modules/electron/package.json'), 'utf8');
  writeFileSync(path.join(folder, 'version'), (JSON.parse(electron) as { version: string }).version);
  writeFileSync(path.join(folder, 'LICENSE'), 'Stand-in: Electron’s LICENSE is here in a real distribution.\n');
  writeFileSync(path.join(folder, 'LICENSES.chromium.html'), '<p>Stand-in: Chromium’s licenses.</p>\n');
  writeFileSync(path.join(folder, 'locales', 'en-US.pak'), 'stand-in locale\n');
  return folder;
}

/**
 * The project copy of setup/project-copy.ts, with what packaging reads besides the sources. Its
 * node_modules links every package to this checkout's, except the runtime packages the app ships
 * (build/node-bundle.mjs), which are real copies: electron-builder refuses to pack a file whose
 * real path is in a system folder such as /tmp (where a CI checkout may live), and a copied scope
 * folder keeps the optional per-platform package that holds the keychain's addon in view of its
 * module collector.
 */
function projectForPackaging(): string {
  const { root } = copyProject();
  const modules = path.join(root, 'node_modules');
  rmSync(modules, { recursive: true });
  mkdirSync(modules);
  const shipped = new Set(RUNTIME_PACKAGES.map((name) => name.split('/')[0]!));
  for (const name of readdirSync(path.join(repositoryRoot, 'node_modules'))) {
    const source = path.join(repositoryRoot, 'node_modules', name);
    if (shipped.has(name)) cpSync(source, path.join(modules, name), { recursive: true, dereference: true });
    else symlinkSync(source, path.join(modules, name));
  }
  for (const file of ['electron-builder.yml', 'package-lock.json'])
    copyFileSync(path.join(repositoryRoot, file), path.join(root, file));
  cpSync(path.join(repositoryRoot, 'examples'), path.join(root, 'examples'), { recursive: true });
  return root;
}

/** The environment of a package's process: no Electron variables, no worker override. */
function packageEnvironment(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = cleanEnvironment({});
  delete env[BUILT_WORKER_ENV];
  delete env['NODE_OPTIONS'];
  return { ...env, ...extra };
}

function failed(what: string, result: Finished): string {
  return `${what} failed (exit ${result.code}):\n${result.stdout.slice(-4000)}\n${result.stderr.slice(-4000)}`;
}

beforeAll(async () => {
  project = projectForPackaging();
  const electronDist = standInElectronDistribution(path.join(work, 'stand-in-electron-dist'));
  const packed = await run('npm', ['run', 'pack:dir', '--', `-c.electronDist=${electronDist}`], {
    cwd: project,
    // npm keeps no log file of the run (its own folder is outside the temporary one).
    env: packageEnvironment({ npm_config_logs_max: '0', npm_config_update_notifier: 'false' }),
  });
  if (packed.code !== 0) throw new Error(failed('npm run pack:dir (in a copy of the project)', packed));
  packageDir = path.join(project, 'dist', 'linux-unpacked');
  resources = path.join(packageDir, 'resources');
  archive = path.join(resources, 'app.asar');
  unpacked = path.join(resources, 'app.asar.unpacked');
  if (!existsSync(archive)) throw new Error(`npm run pack:dir made no ${archive}:\n${packed.stdout.slice(-4000)}`);
}, 300_000);

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
  if (project) rmSync(project, { recursive: true, force: true });
});

interface ArchivedFile {
  size: number;
  unpacked: boolean;
}
interface HeaderNode {
  files?: Record<string, HeaderNode>;
  size?: number;
  unpacked?: boolean;
  link?: string;
}

/** Every file the archive's header lists (packed or unpacked), by its path inside the archive. */
function archivedFiles(): Map<string, ArchivedFile> {
  const files = new Map<string, ArchivedFile>();
  const walk = (node: HeaderNode, prefix: string): void => {
    for (const [name, child] of Object.entries(node.files ?? {})) {
      const relative = prefix ? `${prefix}/${name}` : name;
      if (child.files) walk(child, relative);
      else if (child.link === undefined)
        files.set(relative, { size: child.size ?? 0, unpacked: child.unpacked === true });
    }
  };
  walk(getRawHeader(archive).header as HeaderNode, '');
  return files;
}

/** Every file under `folder`, relative to it, with its size. */
function filesUnder(folder: string): Map<string, number> {
  const found = new Map<string, number>();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else found.set(path.relative(folder, full).split(path.sep).join('/'), lstatSync(full).size);
    }
  };
  walk(folder);
  return found;
}

/** The package folders under node_modules/ in `files` ("wasmoon", "@napi-rs/keyring", ...). */
function packageFolders(files: Iterable<string>): string[] {
  const folders = new Set<string>();
  for (const file of files) {
    const match = /^node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file);
    if (match) folders.add(match[1]!);
  }
  return [...folders].sort();
}

describe('npm run pack:dir: the Linux package (electron-builder --linux dir)', () => {
  it('archives the app, its example workspace and its runtime packages, and no build-time tool', () => {
    const files = archivedFiles();
    const problems: string[] = [];
    const need = (file: string, where: 'packed' | 'unpacked', why: string): void => {
      const entry = files.get(file);
      if (!entry) problems.push(`app.asar has no ${file} (${why})`);
      else if (entry.unpacked !== (where === 'unpacked'))
        problems.push(
          `${file} is ${entry.unpacked ? 'unpacked' : 'packed'}, should be ${where} (${why}): see asarUnpack`,
        );
      else if (
        where === 'unpacked' &&
        statSync(path.join(unpacked, file), { throwIfNoEntry: false })?.size !== entry.size
      )
        problems.push(`${file} is listed as unpacked but app.asar.unpacked/${file} is missing or of another size`);
    };
    const archived = JSON.parse(extractFile(archive, 'package.json').toString('utf8')) as Partial<Manifest>;
    need('package.json', 'packed', 'the manifest Electron reads');
    const manifestCopy = path.join(unpacked, 'package.json');
    if (!existsSync(manifestCopy) || !readFileSync(manifestCopy).equals(extractFile(archive, 'package.json')))
      problems.push('app.asar.unpacked/package.json is not the archived package.json (build/after-pack.mjs writes it)');
    need(archived.main ?? '(no "main" in the archived package.json)', 'packed', 'the main process entry');
    need('out/preload/index.cjs', 'packed', 'the preload');
    for (const file of filesUnder(path.join(project, 'out/renderer')).keys())
      need(`out/renderer/${file}`, 'packed', 'the renderer');
    need('out/main/lua-worker.js', 'unpacked', 'the Lua worker, started from a real file');
    // Every example file but the runs a checkout made and .gitignore files (electron-builder drops
    // those by name; a workspace needs none).
    for (const file of filesUnder(path.join(project, 'examples')).keys())
      if (!/(^|\/)runs\//.test(file) && path.posix.basename(file) !== '.gitignore')
        need(`examples/${file}`, 'packed', 'the example workspaces');
    const runs = [...files.keys()].filter((file) => /^examples\/(.+\/)?runs\//.test(file));
    if (runs.length > 0) problems.push(`app.asar holds runs of the example workspaces: ${runs.slice(0, 3)}`);
    need('node_modules/wasmoon/dist/glue.wasm', 'unpacked', "wasmoon's WebAssembly");
    const addons = [...files.keys()].filter((file) => /^node_modules\/@napi-rs\/keyring-[^/]+\/.+\.node$/.test(file));
    if (addons.length !== 1) problems.push(`app.asar holds ${addons.length} keyring addons (.node), not 1: ${addons}`);
    for (const addon of addons) need(addon, 'unpacked', "the keychain's native addon");
    // The CLI: its bin and exactly the current build of out/cli (no chunk of an earlier build).
    need(CLI_BIN, 'unpacked', 'the CLI bin');
    const cliBuild = Object.keys(
      JSON.parse(readFileSync(path.join(project, 'out/cli/metafile.json'), 'utf8')) as Record<string, unknown>,
    ).filter((file) => !file.endsWith('.map'));
    for (const file of cliBuild) need(file, 'unpacked', 'the CLI bundle');
    const cliPacked = [...files.keys()].filter((file) => file.startsWith('out/cli/'));
    const stale = cliPacked.filter((file) => !cliBuild.includes(file));
    if (stale.length > 0) problems.push(`app.asar holds out/cli files that are not of the current build: ${stale}`);
    const maps = [...files.keys()].filter((file) => file.endsWith('.map') || file.endsWith('metafile.json'));
    if (maps.length > 0) problems.push(`app.asar holds build metadata: ${maps}`);
    expect(problems).toEqual([]);

    // node_modules: the runtime packages (and the per-platform package of the addon), nothing else.
    const packages = packageFolders(files.keys());
    const unexpected = packages.filter(
      (name) => !RUNTIME_PACKAGES.some((runtime) => name === runtime || name.startsWith(`${runtime}-`)),
    );
    expect(unexpected, 'node_modules in app.asar that build/node-bundle.mjs does not name').toEqual([]);
    expect(
      RUNTIME_PACKAGES.filter((name) => !packages.includes(name)),
      'runtime packages missing',
    ).toEqual([]);
    const onDisk = [...filesUnder(unpacked).keys()];
    const devPacked = Object.keys(manifest.devDependencies).filter((name) =>
      [...files.keys(), ...onDisk].some(
        (file) => file.startsWith(`node_modules/${name}/`) || file.includes(`/node_modules/${name}/`),
      ),
    );
    expect(devPacked, 'devDependencies (build-time tools) in the package').toEqual([]);
  });

  it('ships no package twice: one copy of each in node_modules, one of each in a bundle, and the two bundles measured', () => {
    const files = [...archivedFiles().keys(), ...filesUnder(unpacked).keys()];
    // Every place a package folder sits in node_modules, at any depth.
    const places = new Map<string, Set<string>>();
    for (const file of files)
      for (const match of file.matchAll(/(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//g)) {
        const at = file.slice(0, match.index + match[0].length - 1);
        places.set(match[1]!, (places.get(match[1]!) ?? new Set()).add(at.replace(/^\//, '')));
      }
    const twice = [...places].filter(([, at]) => at.size > 1).map(([name, at]) => `${name}: ${[...at].join(', ')}`);
    expect(twice, 'packages in node_modules more than once').toEqual([]);

    // The CLI bundle (out/cli, esbuild's metafile): each package it bundles from one folder only,
    // and none of the runtime packages, which ship once, in node_modules.
    const outputs = JSON.parse(readFileSync(path.join(project, 'out/cli/metafile.json'), 'utf8')) as Record<
      string,
      { inputs: Record<string, { bytesInOutput: number }> }
    >;
    const bundled = new Map<string, { folders: Set<string>; bytes: number }>();
    for (const [output, { inputs }] of Object.entries(outputs)) {
      if (output.endsWith('.map')) continue;
      for (const [input, { bytesInOutput }] of Object.entries(inputs)) {
        const match = /^(.*node_modules\/((?:@[^/]+\/)?[^/]+))\//.exec(input);
        if (!match) continue;
        const entry = bundled.get(match[2]!) ?? { folders: new Set<string>(), bytes: 0 };
        entry.folders.add(match[1]!);
        entry.bytes += bytesInOutput;
        bundled.set(match[2]!, entry);
      }
    }
    expect(
      [...bundled]
        .filter(([, entry]) => entry.folders.size > 1)
        .map(([name, entry]) => `${name}: ${[...entry.folders]}`),
      'packages bundled from two folders (two versions) into out/cli',
    ).toEqual([]);
    expect(
      RUNTIME_PACKAGES.filter((name) => bundled.has(name)),
      'runtime packages bundled as well as shipped',
    ).toEqual([]);
    // The same packages are bundled into out/main too (two entry points, two bundles; see
    // docs/packaging.md): what that second copy weighs, which the payload limit above includes.
    const twiceBundled = [...bundled].reduce((sum, [, entry]) => sum + entry.bytes, 0);
    const largest = [...bundled].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, 6);
    console.log(
      `Packages bundled into both out/cli and out/main: ${(twiceBundled / MiB).toFixed(2)} MiB in out/cli (${largest
        .map(([name, entry]) => `${name} ${(entry.bytes / MiB).toFixed(2)}`)
        .join(', ')})`,
    );
    expect(twiceBundled).toBeGreaterThan(0);
    expect(twiceBundled, 'the packages bundled twice outgrew what docs/packaging.md accounts for').toBeLessThan(
      4 * MiB,
    );
  });

  it('flips Electron’s fuses in the packaged executable as electron-builder.yml says', () => {
    const executable = readFileSync(path.join(packageDir, 'promptforge-studio'));
    const at = executable.indexOf(FUSE_SENTINEL) + FUSE_SENTINEL.length;
    const wire = executable.subarray(at + 2, at + 2 + STAND_IN_FUSE_DEFAULTS.length).toString('latin1');
    const fuses = Object.fromEntries(
      [
        'runAsNode',
        'cookieEncryption',
        'nodeOptions',
        'nodeCliInspect',
        'embeddedAsarIntegrityValidation',
        'onlyLoadAppFromAsar',
        'loadBrowserProcessSpecificV8Snapshot',
        'grantFileProtocolExtraPrivileges',
      ].map((name, index) => [name, wire[index] === '1']),
    );
    expect(fuses).toEqual({
      runAsNode: true,
      cookieEncryption: true,
      nodeOptions: false,
      nodeCliInspect: false,
      embeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      loadBrowserProcessSpecificV8Snapshot: false,
      grantFileProtocolExtraPrivileges: false,
    });
  });

  it(`weighs at most ${PAYLOAD_LIMIT / MiB} MiB in resources/, and prints its largest parts`, () => {
    const onDisk = filesUnder(resources);
    const total = [...onDisk.values()].reduce((sum, size) => sum + size, 0);
    // The parts: out/<part>, examples, main, node_modules/<package>, by the archive's header.
    const parts = new Map<string, number>();
    for (const [file, { size, unpacked: isUnpacked }] of archivedFiles()) {
      const segments = file.split('/');
      const depth =
        segments[0] === 'node_modules' ? (segments[1]!.startsWith('@') ? 3 : 2) : segments[0] === 'out' ? 2 : 1;
      const part = `${segments.slice(0, depth).join('/')}${isUnpacked ? ' (unpacked)' : ''}`;
      parts.set(part, (parts.get(part) ?? 0) + size);
    }
    const largest = [...parts].sort((a, b) => b[1] - a[1]).slice(0, 8);
    const report = [
      `resources/: ${(total / MiB).toFixed(2)} MiB (limit ${PAYLOAD_LIMIT / MiB} MiB); app.asar ${(statSync(archive).size / MiB).toFixed(2)} MiB, app.asar.unpacked ${([...filesUnder(unpacked).values()].reduce((a, b) => a + b, 0) / MiB).toFixed(2)} MiB`,
      ...largest.map(([part, size]) => `  ${(size / MiB).toFixed(2).padStart(6)} MiB  ${part}`),
    ].join('\n');
    console.log(`The package's payload:\n${report}`);
    expect(total, report).toBeLessThanOrEqual(PAYLOAD_LIMIT);
    expect(
      [...onDisk.keys()].filter((file) => !file.startsWith('app.asar')),
      'resources/ beside the archive',
    ).toEqual([]);
  });

  it('starts its main process from the archive in plain Node (stand-in electron), and its Lua worker runs a script', async () => {
    // Electron's view of resources/: app.asar as a folder of every archived file (unpacked ones
    // included, as Electron reads them through the archive) beside the real app.asar.unpacked.
    const view = path.join(work, 'view', 'resources');
    extractAll(archive, path.join(view, 'app.asar'));
    cpSync(unpacked, path.join(view, 'app.asar.unpacked'), { recursive: true });
    const app = path.join(view, 'app.asar');
    const appUnpacked = path.join(view, 'app.asar.unpacked');
    const mainEntry = path.join(app, manifest.main);
    const userData = path.join(work, 'user-data');
    mkdirSync(userData);
    const luaStart: ToWorker = {
      type: 'start',
      runId: 'packaging-check',
      script: "log('hello from ' .. _VERSION)",
      chunkName: '=packaging-check',
      nonce: 'packagingnonce',
      memoryBytes: 64 * MiB,
      caps: { logLineBytes: 4096, logsInFlight: 8, untrustedBytes: 4096, untrustedTexts: 4 },
    };
    const started = await run(process.execPath, ['--import', resolutionHooks, driver], {
      cwd: work,
      env: packageEnvironment({
        PF_PACKAGE_ROOTS: JSON.stringify({ main: [app, appUnpacked], worker: [appUnpacked] }),
        PF_STAND_IN_ELECTRON: standInElectronModule,
        PF_HARNESS_FILES: JSON.stringify([driver]),
        PF_STAND_IN_USER_DATA: userData,
        PF_STAND_IN_APP_PATH: app,
        PF_DRIVER: JSON.stringify({
          mainEntry,
          standIn: standInElectronModule,
          luaStart,
          logAckSlot: Signal.LogAck,
          signalSlots: SIGNAL_SLOTS,
          providers: Object.keys(PROVIDER_PRESETS),
        }),
      }),
    });
    if (started.code !== 0) throw new Error(failed('starting the packaged main process', started));
    const report = JSON.parse(started.stdout) as {
      window: { webPreferences: { preload: string; sandbox: boolean } };
      page: { url: string; status: number; body: string; assets: { url: string; status: number }[] };
      handled: string[];
      workers: string[];
      keyring: { asyncEntry: string };
      lua: { logs: string[]; status: string; message: string } | null;
      lazy: {
        chunks: Array<{ specifier: string; imported: boolean; exports: string[] }>;
        adapters: Array<{ providerId: string; id: string; chat: string }>;
      };
    };
    // The window's page is the packed renderer (loaded from the file, or served by main's own
    // scheme from the packed folder), and so is every script and style it refers to.
    expect(report.page.status, report.page.url).toBe(200);
    expect(report.page.body).toBe(readFileSync(path.join(app, 'out/renderer/index.html'), 'utf8'));
    expect(report.page.assets.filter((asset) => asset.url.endsWith('.js')).length).toBeGreaterThan(0);
    expect(report.page.assets.filter((asset) => asset.status !== 200)).toEqual([]);
    expect(report.window.webPreferences).toMatchObject({
      preload: path.join(app, 'out/preload/index.cjs'),
      sandbox: true,
    });
    expect(existsSync(report.window.webPreferences.preload)).toBe(true);
    // Every contract channel has its handler, and nothing else is handled.
    expect([...report.handled].sort()).toEqual([...contractMethodNames].sort());
    // What main loads only when a run needs it, loaded from the package (the driver imports each
    // through the package-only hooks, so one that cannot load fails the start): every chunk its
    // bundle imports later (and none beside it that nothing imports), and from the provider chunk
    // an adapter of every provider.
    const chunks = report.lazy.chunks;
    expect(chunks.length, 'main imports no chunk later: the provider adapters are no longer lazy').toBeGreaterThan(0);
    expect(chunks.filter((chunk) => !chunk.imported).map((chunk) => chunk.specifier)).toEqual([]);
    expect(report.lazy.adapters).toEqual(
      Object.keys(PROVIDER_PRESETS).map((providerId) => ({ providerId, id: providerId, chat: 'function' })),
    );
    expect(
      existsSync(path.join(app, 'examples', 'promptforge.yaml')),
      'the example workspace at getAppPath()/examples',
    ).toBe(true);
    // The worker pool started its workers from the real file, and each booted (wasmoon compiled).
    expect(report.workers.length).toBeGreaterThan(0);
    expect(new Set(report.workers)).toEqual(new Set([path.join(appUnpacked, 'out/main/lua-worker.js')]));
    expect(report.keyring.asyncEntry).toBe('function');
    expect(report.lua).toEqual({ logs: ['hello from Lua 5.4'], status: 'ok', message: '' });
    expect(started.stderr).toBe('');
  }, 120_000);

  it('runs `promptforge` through the launcher with the app’s Electron as Node, also through a symlink', async () => {
    expect(path.join(CLI_RESOURCES, CLI_BIN)).toBe(`app.asar.unpacked/${CLI_BIN}`);
    const launcher = path.join(packageDir, 'promptforge');
    expect(statSync(launcher).mode & 0o111, 'the launcher is executable').not.toBe(0);
    const bin = mkdtempSync(path.join(work, 'usr-bin-'));
    symlinkSync(launcher, path.join(bin, 'promptforge'));
    const cwd = mkdtempSync(path.join(work, 'cli-project-'));
    writeFileSync(path.join(cwd, 'hello.lua'), "log('hi from the packaged CLI')\n");
    // The CLI and its workers load from app.asar.unpacked alone: no asar support, no checkout.
    const env = packageEnvironment({
      STAND_IN_NODE: process.execPath,
      NODE_OPTIONS: `--import=${resolutionHooks}`,
      PF_PACKAGE_ROOTS: JSON.stringify({ main: [unpacked], worker: [unpacked] }),
      DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/pf-bus',
    });
    for (const command of [launcher, path.join(bin, 'promptforge')]) {
      const result = await run(command, ['run', 'hello.lua'], { cwd, env });
      expect(result, command).toEqual({ code: 0, stdout: 'hi from the packaged CLI\n', stderr: '' });
    }
    const version = await run(path.join(bin, 'promptforge'), ['--version'], { cwd, env });
    expect(version).toEqual({ code: 0, stdout: `${manifest.version}\n`, stderr: '' });
    // Exit codes pass through: a usage error is 2.
    expect((await run(launcher, ['run'], { cwd, env })).code).toBe(2);
  }, 120_000);
});
