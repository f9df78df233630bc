// electron-builder afterPack hook (electron-builder.yml), run on the packed app folder before
// targets are made: writes the `promptforge` CLI launcher (build/cli-launcher.mjs) beside the
// executable, and the app's package.json into app.asar.unpacked.
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { extractFile } from '@electron/asar';
import { cliLauncher } from './cli-launcher.mjs';

/**
 * Node reads the unpacked files (the CLI, the Lua worker) as plain files, outside the archive, so
 * the package.json it looks up for them (their "type": ES modules; the CLI's `--version`) must be
 * a plain file too. It is the archived one, byte for byte (electron-builder has already dropped its
 * scripts and devDependencies); the archived one stays where Electron reads the app's manifest.
 */
async function writeUnpackedManifest(resourcesDir) {
  const manifest = extractFile(path.join(resourcesDir, 'app.asar'), 'package.json');
  const unpacked = path.join(resourcesDir, 'app.asar.unpacked');
  await mkdir(unpacked, { recursive: true });
  await writeFile(path.join(unpacked, 'package.json'), manifest);
}

/** @param {import('./after-pack.d.mts').AfterPackContext} context */
async function afterPack(context) {
  const launcher = cliLauncher({
    platform: context.electronPlatformName,
    executableName: context.packager.executableName,
    productFilename: context.packager.appInfo.productFilename,
  });
  const target = path.join(context.appOutDir, launcher.path);
  await mkdir(path.dirname(target), { recursive: true });
  await writeFile(target, launcher.text);
  await chmod(target, launcher.mode);
  await writeUnpackedManifest(context.packager.getResourcesDir(context.appOutDir));
}

export default afterPack;
