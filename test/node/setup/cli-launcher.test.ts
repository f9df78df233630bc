import { readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CLI_BIN, CLI_RESOURCES, cliLauncher } from '../../../build/cli-launcher.mjs';
import { repositoryRoot } from './project-copy.js';

// The packaged app's `promptforge` launcher (build/cli-launcher.mjs, written by the afterPack hook
// build/after-pack.mjs). What it writes, per platform; test/node/packaging runs it in a packed app.

interface BuilderConfig {
  productName: string;
  afterPack: string;
  deb: { fpm: string[] };
}
const config = parse(readFileSync(path.join(repositoryRoot, 'electron-builder.yml'), 'utf8')) as BuilderConfig;

describe('cliLauncher (pure)', () => {
  it('Linux: a sh script beside the executable that runs the CLI in resources/app.asar.unpacked with Electron as Node', () => {
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
      '"%~dp0PromptForge Studio.exe" "%~dp0resources\\app.asar.unpacked\\main\\cli\\promptforge.mjs" %*',
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

describe('electron-builder.yml and the launcher', () => {
  it('runs the afterPack hook, and the deb links /usr/bin/promptforge to the launcher', () => {
    expect(path.resolve(repositoryRoot, config.afterPack)).toBe(path.join(repositoryRoot, 'build/after-pack.mjs'));
    const [source, target] = config.deb.fpm[0]!.split('=');
    expect(target).toBe('/usr/bin/promptforge');
    expect(readlinkSync(path.join(repositoryRoot, source!))).toBe(`/opt/${config.productName}/promptforge`);
  });
});
