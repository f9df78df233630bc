// Source-mode bootstrap for the Lua worker: registers tsx so the TypeScript worker module can be
// imported (Node 20 does not apply `--import tsx` from a Worker's execArgv). Built apps load
// out/main/lua-worker.js directly and never use this file.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
