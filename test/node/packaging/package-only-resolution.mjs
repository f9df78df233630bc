// Module hooks for the packaging test (`node --import` this file; worker threads inherit it): every
// module a process of the packaged app loads must come from the package. A specifier that resolves
// outside the folders named in PF_PACKAGE_ROOTS (a devDependency from this checkout's node_modules,
// a source file) fails its import with an error naming it, as does one that resolves nowhere.
// `electron` resolves to the STAND-IN named by PF_STAND_IN_ELECTRON, in processes that have one.
//
// PF_PACKAGE_ROOTS is JSON: { "main": [folders], "worker": [folders] }, the folders modules may come
// from on the main thread and in worker threads (the Lua worker must load from real files, so the
// archive's extracted view is no root of its).
import { registerHooks } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isMainThread } from 'node:worker_threads';

const roots = JSON.parse(process.env.PF_PACKAGE_ROOTS ?? 'null');
if (!roots || !Array.isArray(roots.main) || !Array.isArray(roots.worker)) {
  throw new Error('package-only-resolution.mjs: PF_PACKAGE_ROOTS must be JSON {"main": [...], "worker": [...]}');
}
const allowed = isMainThread ? roots.main : roots.worker;
const thread = isMainThread ? 'the main thread' : 'a worker thread';
const standIn = process.env.PF_STAND_IN_ELECTRON;
/** Files of the test harness itself (the driver script, the stand-in), loaded from this checkout. */
const harness = new Set(JSON.parse(process.env.PF_HARNESS_FILES ?? '[]'));
if (standIn) harness.add(standIn);

const inside = (file, folder) => {
  const relative = path.relative(folder, file);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
};

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (specifier === 'electron' || specifier.startsWith('electron/')) {
      if (!standIn)
        throw new Error(
          `${context.parentURL ?? 'the entry'} imports "${specifier}", in a process that must not use Electron`,
        );
      return { url: pathToFileURL(standIn).href, shortCircuit: true };
    }
    const resolved = nextResolve(specifier, context);
    if (!resolved.url.startsWith('file:')) return resolved;
    const file = fileURLToPath(resolved.url);
    if (harness.has(file) || allowed.some((folder) => inside(file, folder))) return resolved;
    if (!isMainThread && roots.main.some((folder) => inside(file, folder)))
      throw new Error(
        `"${specifier}" (imported by ${context.parentURL ?? 'the entry'}) is loaded on a worker thread from ${file}, ` +
          `inside the archive: a worker starts from real files (${allowed.join(', ')}); unpack it (asarUnpack in electron-builder.yml)`,
      );
    throw new Error(
      `"${specifier}" (imported by ${context.parentURL ?? 'the entry'}) resolves to ${file} on ${thread}, ` +
        `outside the package (${allowed.join(', ')}): the package must carry every module it loads ` +
        '(bundle it into out/, or pack it as a runtime package; a devDependency must never load at run time)',
    );
  },
});
