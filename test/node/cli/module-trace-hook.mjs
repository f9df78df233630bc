// A `node --import` preload for tests: appends to the file named by PROMPTFORGE_TEST_MODULE_TRACE
// one line per module the process loads (ESM through a load hook, CommonJS through Module._load)
// and one `worker <file>` line per worker thread it starts, so a test can see what a command loaded.
import { appendFileSync } from 'node:fs';
import Module, { register, syncBuiltinESMExports } from 'node:module';
import workerThreads from 'node:worker_threads';

const trace = process.env.PROMPTFORGE_TEST_MODULE_TRACE;
if (trace) {
  const note = (line) => appendFileSync(trace, `${line}\n`);
  register(
    `data:text/javascript,${encodeURIComponent(`
      import { appendFileSync } from 'node:fs';
      export async function load(url, context, next) {
        appendFileSync(${JSON.stringify(trace)}, 'esm ' + url + '\\n');
        return next(url, context);
      }`)}`,
  );
  const load = Module._load;
  Module._load = function tracedLoad(request, parent, isMain) {
    let resolved = request;
    try {
      resolved = Module._resolveFilename(request, parent, isMain);
    } catch {
      // Left to the real loader, which reports it.
    }
    note(`cjs ${resolved}`);
    return load.call(this, request, parent, isMain);
  };
  const { Worker } = workerThreads;
  workerThreads.Worker = class TracedWorker extends Worker {
    constructor(file, options) {
      note(`worker ${String(file)}`);
      super(file, options);
    }
  };
  syncBuiltinESMExports();
}
