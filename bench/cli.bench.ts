import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_WORKER_HEAP_MB } from '../main/core/run/worker-pool.js';
import { interleave, now, row, wasmoonPath, type BenchRow } from './bench-kit.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(root, 'main/cli/promptforge.mjs');

/** Wall time (ms) of one process from spawn to exit; it must exit with one of `expectedCodes`. */
function wall(args: string[], cwd: string, ...expectedCodes: number[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = now();
    const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== null && expectedCodes.includes(code)) resolve(now() - started);
      else reject(new Error(`node ${args.join(' ')} exited ${code}:\n${stderr}`));
    });
  });
}

const options = { warmup: 2, samples: 9 };

/** `promptforge run hello.lua` (one `log('hi')`) against node + wasmoon running the same line. */
async function benchRun(dir: string): Promise<BenchRow> {
  const baseline = [
    '--input-type=module',
    '-e',
    `import { createRequire } from 'node:module';
     const { LuaFactory } = createRequire(import.meta.url)(${JSON.stringify(wasmoonPath())});
     const engine = await new LuaFactory().createEngine();
     engine.global.set('log', (text) => console.log(text));
     await engine.doString("log('hi')");
     engine.global.close();`,
  ];
  const { measured, baseline: base } = await interleave(
    () => wall([bin, 'run', 'hello.lua'], dir, 0),
    () => wall(baseline, dir, 0),
    options,
  );
  return row('CLI: `promptforge run hello.lua` wall time', 'ms', measured, {
    baseline: { name: 'node + wasmoon running the same line', values: base },
    target: '≤ 1.5×',
    how: "A process per sample, spawn to exit, of the bin (main/cli/promptforge.mjs, which runs the build in out/cli) on a one-line script, `log('hi')`, in a folder with no workspace files. The bin starts the Lua worker before it loads the CLI, and Node's compile cache (on, in the temporary folder) is warm after the untimed samples. Baseline, alternating with it: `node -e` creating a wasmoon engine in the main thread and running the same line. 9 samples after 2 untimed.",
  });
}

/**
 * The same `promptforge run hello.lua` against the floor of a sandboxed run: node starting one
 * worker thread (with the run worker's heap cap) that creates a wasmoon engine and runs the same
 * line, its log crossing to the main thread. This is the least any design that keeps scripts off
 * the main thread pays; the row says how much the CLI adds on top of it.
 */
async function benchRunAgainstWorkerFloor(dir: string): Promise<BenchRow> {
  const workerSource = `const { parentPort } = require('node:worker_threads');
    const { LuaFactory } = require(${JSON.stringify(wasmoonPath())});
    new LuaFactory().createEngine().then(async (engine) => {
      engine.global.set('log', (text) => parentPort.postMessage(text));
      await engine.doString("log('hi')");
      engine.global.close();
      parentPort.postMessage(null);
    });`;
  const floor = [
    '-e',
    `const { Worker } = require('node:worker_threads');
     const worker = new Worker(${JSON.stringify(workerSource)}, {
       eval: true,
       resourceLimits: { maxOldGenerationSizeMb: ${DEFAULT_WORKER_HEAP_MB} },
     });
     worker.on('message', (text) => (text === null ? worker.terminate() : console.log(text)));`,
  ];
  const { measured, baseline: base } = await interleave(
    () => wall([bin, 'run', 'hello.lua'], dir, 0),
    () => wall(floor, dir, 0),
    options,
  );
  return row('CLI: `promptforge run hello.lua` against a worker-thread floor', 'ms', measured, {
    baseline: { name: 'node + one worker thread running wasmoon and the same line', values: base },
    how: "The run of the row above, alternating with the least a sandboxed run costs: `node -e` starting one worker thread (with the Lua worker's heap cap) that creates a wasmoon engine, runs `log('hi')` and posts the line to the main thread, which prints it. No target: the row shows what the CLI adds (its catalog, run setup and transcript) on top of the thread and engine every sandboxed run needs. 9 samples after 2 untimed.",
  });
}

/** `promptforge keys status` against an empty `node -e ''`. */
async function benchKeysStatus(dir: string): Promise<BenchRow> {
  // With no keychain reachable `keys status` reports that and exits 2; the start-up is the same.
  const { measured, baseline: base } = await interleave(
    () => wall([bin, 'keys', 'status'], dir, 0, 2),
    () => wall(['-e', ''], dir, 0),
    options,
  );
  return row('CLI: `promptforge keys status` wall time', 'ms', measured, {
    baseline: { name: "node -e ''", values: base },
    target: '≤ 2×',
    how: "A process per sample, spawn to exit, of the bin's `keys status` (it loads no Lua VM, worker or run machinery) with whatever keychain the machine has. Baseline, alternating with it: an empty `node -e ''`. 9 samples after 2 untimed.",
  });
}

/** Runs the CLI start-up benchmarks. */
export default async function run(): Promise<BenchRow[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'pf-bench-cli-'));
  try {
    await writeFile(path.join(dir, 'hello.lua'), "log('hi')\n");
    return [await benchRun(dir), await benchRunAgainstWorkerFloor(dir), await benchKeysStatus(dir)];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.table((await run()).map(({ how: _how, ...rest }) => rest));
}
