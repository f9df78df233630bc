// electron-builder afterPack hook (electron-builder.yml): writes the `promptforge` CLI launcher
// (build/cli-launcher.mjs) into the packed app, beside the executable, before targets are made.
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { cliLauncher } from './cli-launcher.mjs';

/** @param {{ appOutDir: string, electronPlatformName: string, packager: { executableName: string, appInfo: { productFilename: string } } }} context */
export async function afterPack(context) {
  const launcher = cliLauncher({
    platform: context.electronPlatformName,
    executableName: context.packager.executableName,
    productFilename: context.packager.appInfo.productFilename,
  });
  const target = path.join(context.appOutDir, launcher.path);
  await mkdir(path.dirname(target), { recursive: true });
  await writeFile(target, launcher.text);
  await chmod(target, launcher.mode);
}

export default afterPack;
