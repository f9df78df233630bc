// Source-mode bootstrap for the Lua worker: registers tsx so the TypeScript worker module can be
// imported (Node 20 does not apply `--import tsx` from a Worker's execArgv). Built apps load
// out/main/lua-worker.js directly and never use this file.
import { readFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { fileURLToPath } from 'node:url';
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
// A `.lua` module is its text, as esbuild's text loader makes it in the bundles (build/node-bundle.mjs).
registerHooks({
  load(url, context, nextLoad) {
    if (!url.startsWith('file:') || !url.endsWith('.lua')) return nextLoad(url, context);
    const text = readFileSync(fileURLToPath(url), 'utf8');
    return { format: 'module', source: `export default ${JSON.stringify(text)};`, shortCircuit: true };
  },
});
await import(workerData.entry);
