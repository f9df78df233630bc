// The packaging test's driver, run in plain Node with package-only-resolution.mjs: it starts the
// packaged main process from an extracted copy of its archive, with the STAND-IN `electron`
// (stand-in-electron-module.mjs), then runs one Lua script on the Lua worker main started. It
// prints one JSON report on stdout and exits 0, or prints the failure on stderr and exits 1.
//
// PF_DRIVER is JSON: { mainEntry, standIn, luaStart: the worker's `start` message, logAckSlot,
// signalSlots, providers: the provider ids to make adapters for } (the protocol's values come from
// main/core/run/worker-protocol.ts, the provider ids from main/core/providers/presets.ts, via the test).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import workerThreads from 'node:worker_threads';

const { mainEntry, standIn, luaStart, logAckSlot, signalSlots, providers } = JSON.parse(process.env.PF_DRIVER ?? '{}');

// Records where every worker is started from and whether it reports `ready` (the Lua worker's
// first message once wasmoon is compiled), without changing what the pool does with it.
const RealWorker = workerThreads.Worker;
const started = [];
workerThreads.Worker = class RecordedWorker extends RealWorker {
  constructor(file, options) {
    super(file, options);
    const entry = { file: String(file instanceof URL ? file.pathname : file) };
    entry.ready = new Promise((resolve, reject) => {
      this.on('message', (message) => message?.type === 'ready' && resolve());
      this.on('error', (error) => reject(new Error(`the worker ${entry.file} failed: ${error.message}`)));
      this.on('exit', (code) => reject(new Error(`the worker ${entry.file} exited during start-up (code ${code})`)));
    });
    started.push(entry);
  }
};
syncBuiltinESMExports();

/** Runs one script on a new worker from `file`, as worker-pool.ts and run.ts do: ready, start, end. */
function runLua(file) {
  const { port1, port2 } = new workerThreads.MessageChannel();
  const signal = new SharedArrayBuffer(signalSlots * Int32Array.BYTES_PER_ELEMENT);
  const counters = new Int32Array(signal);
  // The process's wasm-wrapper flag cell (main/core/run/wasm-wrappers.ts): this is the only worker.
  const wrapperFlag = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);
  const worker = new RealWorker(file, {
    workerData: { replyPort: port2, signal, wrapperFlag },
    transferList: [port2],
  });
  const logs = [];
  return new Promise((resolve, reject) => {
    worker.on('error', (error) => reject(new Error(`the Lua worker ${file} failed: ${error.message}`)));
    worker.on('exit', (code) =>
      reject(new Error(`the Lua worker ${file} exited before the script ended (code ${code})`)),
    );
    worker.on('message', (message) => {
      if (message.type === 'ready' && logs.length === 0) worker.postMessage(luaStart);
      if (message.type === 'log') {
        logs.push(message.text);
        Atomics.add(counters, logAckSlot, 1);
        Atomics.notify(counters, logAckSlot);
      }
      if (message.type === 'call') reject(new Error(`the script made a host call (${message.method}); it should not`));
      if (message.type === 'end') {
        port1.close();
        void worker.terminate();
        resolve({ logs, status: message.status, message: message.message });
      }
    });
  });
}

/**
 * The page the window loaded, and each file it refers to (src= and href=), as the window would get
 * them: from disk for a file (loadFile, file: URLs), else from the handler main registered for the
 * URL's scheme with protocol.handle.
 */
async function loadPage(loaded, protocolHandlers) {
  const fetchOne = async (url) => {
    if (url.protocol === 'file:') {
      const file = fileURLToPath(url);
      return existsSync(file) ? { status: 200, body: readFileSync(file, 'utf8') } : { status: 404, body: '' };
    }
    const handler = protocolHandlers.get(url.protocol.slice(0, -1));
    if (!handler) return { status: 0, body: `no protocol.handle for ${url.protocol}` };
    const response = await handler(new globalThis.Request(url.href));
    return { status: response.status, body: await response.text() };
  };
  const pageUrl = loaded.file ? pathToFileURL(loaded.file) : new URL(loaded.url);
  const page = await fetchOne(pageUrl);
  const assets = [];
  for (const [, reference] of page.body.matchAll(/\b(?:src|href)="([^"]+)"/g)) {
    const url = new URL(reference, pageUrl);
    if (url.protocol !== pageUrl.protocol) continue;
    assets.push({ url: url.href, status: (await fetchOne(url)).status });
  }
  return { url: pageUrl.href, status: page.status, body: page.body, assets };
}

/**
 * Loads what main loads only later, from the package: every chunk its bundle imports with
 * `import()` and every chunk beside it (the provider adapters, ...), each through the
 * package-only resolution hooks. Then makes one adapter of every provider with the chunk that
 * exports `createProvider` (no request is sent). Returns what each exports, and the adapters made.
 */
async function loadLazyChunks() {
  const entryUrl = pathToFileURL(mainEntry);
  // The bundler writes each as import("./chunks/NAME.js"); text in a comment, such as a type's
  // import("../x") or an example's import('./x.js'), is not one.
  const dynamic = [...readFileSync(mainEntry, 'utf8').matchAll(/\bimport\("(\.\/chunks\/[^"]+\.js)"\)/g)].map(
    (match) => match[1],
  );
  const folder = path.join(path.dirname(mainEntry), 'chunks');
  const beside = existsSync(folder)
    ? readdirSync(folder)
        .filter((file) => file.endsWith('.js'))
        .map((file) => `./chunks/${file}`)
    : [];
  const chunks = [];
  const adapters = [];
  for (const specifier of [...new Set([...dynamic, ...beside])].sort()) {
    const loaded = await import(new URL(specifier, entryUrl).href);
    chunks.push({ specifier, imported: dynamic.includes(specifier), exports: Object.keys(loaded).sort() });
    if (typeof loaded.createProvider === 'function')
      for (const providerId of providers ?? []) {
        const adapter = loaded.createProvider({ providerId, baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-packaging' });
        adapters.push({ providerId, id: adapter.id, chat: typeof adapter.chat });
      }
  }
  return { chunks, adapters };
}

// Worker pools unref their workers: this channel keeps the process alive until the report is out.
const keepAlive = new workerThreads.MessageChannel();
keepAlive.port1.on('message', () => {});
try {
  const { standInElectron } = await import(pathToFileURL(standIn).href);
  await import(pathToFileURL(mainEntry).href);
  const window = await Promise.race([
    standInElectron.windowLoaded,
    standInElectron.appExited.then((code) => {
      throw new Error(`the main process called app.exit(${code}) instead of opening its window`);
    }),
  ]);
  await Promise.all(started.map((entry) => entry.ready));
  // The keychain's addon, resolved from the main process's own folder, as its import() does.
  const keyring = createRequire(mainEntry)('@napi-rs/keyring');
  const lua = started.length > 0 ? await runLua(started[0].file) : null;
  const page = await loadPage(window.loaded, standInElectron.protocolHandlers);
  const lazy = await loadLazyChunks();
  process.stdout.write(
    `${JSON.stringify({
      window: { webPreferences: window.options.webPreferences, loaded: window.loaded },
      page,
      handled: standInElectron.handled,
      calls: standInElectron.calls.map((call) => call.name),
      workers: started.map((entry) => entry.file),
      keyring: { asyncEntry: typeof keyring.AsyncEntry },
      lua,
      lazy,
    })}\n`,
  );
  process.exit(0);
} catch (error) {
  process.stderr.write(`start-packaged-main: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
}
