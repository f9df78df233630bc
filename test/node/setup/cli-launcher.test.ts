import {
  chmodSync,
  copyFileSync,
  cpSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { afterPack } from '../../../build/after-pack.mjs';
import { CLI_BIN, CLI_RESOURCES, cliLauncher } from '../../../build/cli-launcher.mjs';
import { cleanEnvironment, repositoryRoot, run } from './project-copy.js';

// The packaged app's `promptforge` launcher (build/cli-launcher.mjs, written by the afterPack hook
// build/after-pack.mjs): a packed Linux app folder is staged from electron-builder.yml's own
// extraResources, with a STAND-IN named as such where the Electron executable would be.

interface BuilderConfig {
  productName: string;
  linux: { executableName: string };
  afterPack: string;
  extraResources: { from: string; to: string; filter?: string[] }[];
  deb: { fpm: string[] };
}
const config = parse(readFileSync(path.join(repositoryRoot, 'electron-builder.yml'), 'utf8')) as BuilderConfig;
const executableName = config.linux.executableName;

/** electron-builder's file filters, as far as electron-builder.yml uses them. */
function excluded(filters: string[] | undefined, relative: string): boolean {
  for (const filter of filters ?? []) {
    if (filter === '**/*') continue;
    const file = /^!\*\*\/\*(\.\w+)$/.exec(filter);
    if (file) {
      if (relative.endsWith(file[1]!)) return true;
      continue;
    }
    const name = /^!([\w.-]+)$/.exec(filter);
    if (name) {
      if (relative === name[1]) return true;
      continue;
    }
    throw new Error(`electron-builder.yml: filter "${filter}" is not understood by this test; extend excluded()`);
  }
  return false;
}

/** A packed Linux app folder (electron-builder's appOutDir) with `standIn` as its executable. */
async function packedApp(standIn: string): Promise<string> {
  // The product name has a space, as /opt/PromptForge Studio does.
  const app = path.join(mkdtempSync(path.join(tmpdir(), 'pf-packed-')), config.productName);
  const resources = path.join(app, 'resources');
  for (const entry of config.extraResources) {
    const from = path.join(repositoryRoot, entry.from);
    cpSync(from, path.join(resources, entry.to), {
      recursive: true,
      filter: (source) => !excluded(entry.filter, path.relative(from, source)),
    });
  }
  copyFileSync(standIn, path.join(app, executableName));
  chmodSync(path.join(app, executableName), 0o755);
  await afterPack({
    appOutDir: app,
    electronPlatformName: 'linux',
    packager: { executableName, appInfo: { productFilename: config.productName } },
  });
  return app;
}

function project(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'pf-launcher-work-'));
  writeFileSync(path.join(dir, 'hello.lua'), "log('hi from the packaged CLI')\n");
  return dir;
}

describe('cliLauncher (pure)', () => {
  it('Linux: a sh script beside the executable that runs resources/cli with Electron as Node', () => {
    const launcher = cliLauncher({ platform: 'linux', executableName: 'promptforge-studio', productFilename: 'x' });
    expect(launcher.path).toBe('promptforge');
    expect(launcher.mode).toBe(0o755);
    expect(launcher.text.startsWith('#!/bin/sh\n')).toBe(true);
    expect(launcher.text).toContain(
      `ELECTRON_RUN_AS_NODE=1 exec "$here"/"promptforge-studio" "$here"/"resources/${CLI_RESOURCES}/${CLI_BIN}" "$@"`,
    );
  });

  it('macOS: inside the .app, next to the executable, with the CLI under Contents/Resources', () => {
    const launcher = cliLauncher({ platform: 'darwin', executableName: 'x', productFilename: 'PromptForge Studio' });
    expect(launcher.path).toBe('PromptForge Studio.app/Contents/MacOS/promptforge');
    expect(launcher.text).toContain(
      `exec "$here"/"PromptForge Studio" "$here"/"../Resources/${CLI_RESOURCES}/${CLI_BIN}" "$@"`,
    );
  });

  it('Windows: a .cmd beside the .exe', () => {
    const launcher = cliLauncher({ platform: 'win32', executableName: 'x', productFilename: 'PromptForge Studio' });
    expect(launcher.path).toBe('promptforge.cmd');
    expect(launcher.text.split('\r\n')).toContain('set ELECTRON_RUN_AS_NODE=1');
    expect(launcher.text).toContain(
      '"%~dp0PromptForge Studio.exe" "%~dp0resources\\cli\\main\\cli\\promptforge.mjs" %*',
    );
  });

  it('quotes names for sh, and refuses names it cannot quote or platforms it does not know', () => {
    const odd = cliLauncher({ platform: 'linux', executableName: 'a "b" $c `d` \\e', productFilename: 'x' });
    expect(odd.text).toContain('"$here"/"a \\"b\\" \\$c \\`d\\` \\\\e"');
    expect(() => cliLauncher({ platform: 'linux', executableName: 'a\nb', productFilename: 'x' })).toThrow(
      'cli launcher: "a\\nb" holds a line break or NUL',
    );
    expect(() => cliLauncher({ platform: 'win32', executableName: 'x', productFilename: '100%' })).toThrow(
      'cannot be quoted for cmd.exe',
    );
    expect(() => cliLauncher({ platform: 'aix', executableName: 'x', productFilename: 'x' })).toThrow(
      'no launcher for platform "aix" (linux, darwin, mas or win32)',
    );
  });
});

describe('the packaged Linux app runs `promptforge` through its launcher', () => {
  it('electron-builder.yml runs the afterPack hook, and the deb links /usr/bin/promptforge to the launcher', () => {
    expect(path.resolve(repositoryRoot, config.afterPack)).toBe(path.join(repositoryRoot, 'build/after-pack.mjs'));
    const [source, target] = config.deb.fpm[0]!.split('=');
    expect(target).toBe('/usr/bin/promptforge');
    expect(readlinkSync(path.join(repositoryRoot, source!))).toBe(`/opt/${config.productName}/promptforge`);
  });

  it('starts the executable with ELECTRON_RUN_AS_NODE=1, the bundled bin and the arguments', async () => {
    const app = await packedApp(path.join(repositoryRoot, 'test/fixtures/stand-in-electron.mjs'));
    const record = path.join(mkdtempSync(path.join(tmpdir(), 'pf-record-')), 'record.json');
    const result = await run(path.join(app, 'promptforge'), ['run', 'hello.lua', '--json'], {
      cwd: project(),
      env: cleanEnvironment({ STAND_IN_ELECTRON_RECORD: record }),
    });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const started = JSON.parse(readFileSync(record, 'utf8')) as {
      args: string[];
      env: Record<string, string>;
      entryExists: boolean;
    };
    expect(started.args).toEqual([path.join(app, 'resources', CLI_RESOURCES, CLI_BIN), 'run', 'hello.lua', '--json']);
    expect(started.env['ELECTRON_RUN_AS_NODE']).toBe('1');
    expect(started.entryExists).toBe(true);
  });

  it('runs a script with the bundled CLI alone, also through a /usr/bin-style symlink', async () => {
    const app = await packedApp(path.join(repositoryRoot, 'test/fixtures/stand-in-electron-as-node.sh'));
    const bin = mkdtempSync(path.join(tmpdir(), 'pf-usr-bin-'));
    symlinkSync(path.join(app, 'promptforge'), path.join(bin, 'promptforge'));
    const cwd = project();
    const env = cleanEnvironment({
      STAND_IN_NODE: process.execPath,
      DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/pf-bus',
    });
    for (const launcher of [path.join(app, 'promptforge'), path.join(bin, 'promptforge')]) {
      const result = await run(launcher, ['run', 'hello.lua'], { cwd, env });
      expect(result).toEqual({ code: 0, stdout: 'hi from the packaged CLI\n', stderr: '' });
    }
    const version = await run(path.join(bin, 'promptforge'), ['--version'], { cwd, env });
    expect(version.stdout.trim()).toBe(
      (JSON.parse(readFileSync(path.join(repositoryRoot, 'package.json'), 'utf8')) as { version: string }).version,
    );
    // Exit codes pass through: a usage error is 2.
    expect((await run(path.join(bin, 'promptforge'), ['run'], { cwd, env })).code).toBe(2);
  }, 60_000);
});
