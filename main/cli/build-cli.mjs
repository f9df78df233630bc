// Builds the `promptforge` CLI and its Lua worker into out/cli with esbuild: `npm run build:cli`,
// and npm's `prepare` (so `npm install` / `npm ci` leave a runnable CLI). Packages stay external
// (they are resolved from node_modules at run time); the run machinery is a chunk loaded with
// import(), so a command loads only what it needs. Plain JavaScript: it runs with no loader.
//
// A CLI started while this runs never sees a half-written file: each changed file is written
// under a temporary name and renamed into place, chunks before the entry files that import them.
// `--keep-stale` leaves files of earlier builds in place (for builds that may run beside a CLI).
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const outdir = path.join(root, 'out/cli');
// worker-pool is an entry of its own so the bin can start a Lua worker before it loads the CLI.
const entryPoints = {
  cli: 'main/cli/cli.ts',
  'lua-worker': 'main/core/run/lua-worker.ts',
  'worker-pool': 'main/core/run/worker-pool.ts',
};

const result = await build({
  absWorkingDir: root,
  entryPoints,
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  // Bundling the pure-JavaScript packages saves Node hundreds of module look-ups per start. The
  // keychain's native addon and wasmoon (whose glue finds its .wasm beside itself) stay in
  // node_modules.
  external: ['@napi-rs/keyring', 'wasmoon'],
  // Bundled CommonJS packages may require() Node's built-in modules.
  banner: {
    js: "import { createRequire as __pfCreateRequire } from 'node:module'; const require = __pfCreateRequire(import.meta.url);",
  },
  sourcemap: 'linked',
  logLevel: 'warning',
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
const ordered = [...outputs].sort((a, b) => Number(isEntry(a.path)) - Number(isEntry(b.path)));
for (const output of ordered) {
  if (unchanged(output.path, output.contents)) continue;
  const temporary = `${output.path}.${process.pid}.tmp`;
  writeFileSync(temporary, output.contents);
  renameSync(temporary, output.path);
}
if (!process.argv.includes('--keep-stale')) {
  const current = new Set(outputs.map((output) => path.basename(output.path)));
  for (const name of readdirSync(outdir)) if (!current.has(name)) rmSync(path.join(outdir, name), { force: true });
}
