// Builds the `promptforge` CLI and its Lua worker into out/cli with esbuild: `npm run build:cli`,
// and npm's `prepare` (so `npm install` / `npm ci` leave a runnable CLI). The pure-JavaScript
// packages are bundled; the runtime packages (build/node-bundle.mjs) stay external and are
// resolved from node_modules at run time (in the packaged app, the app's own copies in
// app.asar.unpacked: docs/packaging.md). The run machinery is a chunk loaded with import(), so a
// command loads only what it needs. Plain JavaScript: it runs with no loader.
//
// The output folder is cleaned first: files of earlier builds (chunks are named by their content
// hash, so every change leaves old ones behind) are deleted before the new build is written, so
// out/cli holds this build and nothing else (the packaged app copies all of it). A CLI started
// while this runs never sees a half-written file: each changed file is written under a temporary
// name and renamed into place, chunks before the entry files that import them, and unchanged
// files are not touched. `--keep-stale` deletes nothing: the test suite's setup builds with it, as
// a CLI of another test run may still be loading the chunks of an earlier build.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { NODE_BUNDLE } from '../../build/node-bundle.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const outdir = path.join(root, 'out/cli');
// worker-pool is an entry of its own so the bin can start a Lua worker before it loads the CLI.
const entryPoints = {
  cli: 'main/cli/cli.ts',
  'lua-worker': 'main/core/run/lua-worker.ts',
  'worker-pool': 'main/core/run/worker-pool.ts',
};

const result = await build({
  ...NODE_BUNDLE,
  absWorkingDir: root,
  entryPoints,
  outdir,
  splitting: true,
  sourcemap: 'linked',
  write: false,
  metafile: true,
});

function unchanged(file, contents) {
  try {
    return Buffer.compare(readFileSync(file), contents) === 0;
  } catch {
    return false;
  }
}

// Which source files each output holds: tests read it to check what a command loaded.
const metafile = {
  path: path.join(outdir, 'metafile.json'),
  contents: Buffer.from(JSON.stringify(result.metafile.outputs)),
};
const outputs = [...result.outputFiles, metafile];
const entries = new Set(Object.keys(entryPoints).map((name) => path.join(outdir, `${name}.js`)));
const isEntry = (file) => entries.has(file);
mkdirSync(outdir, { recursive: true });
if (!process.argv.includes('--keep-stale')) {
  const current = new Set(outputs.map((output) => path.basename(output.path)));
  for (const entry of readdirSync(outdir, { withFileTypes: true }))
    if (!current.has(entry.name)) rmSync(path.join(outdir, entry.name), { recursive: true, force: true });
}
const ordered = [...outputs].sort((a, b) => Number(isEntry(a.path)) - Number(isEntry(b.path)));
for (const output of ordered) {
  if (unchanged(output.path, output.contents)) continue;
  const temporary = `${output.path}.${process.pid}.tmp`;
  writeFileSync(temporary, output.contents);
  renameSync(temporary, output.path);
}
