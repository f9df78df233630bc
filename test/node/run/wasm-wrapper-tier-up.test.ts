import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bin, root, runCli } from '../cli/spawn-cli.js';

// V8 prints each wasm-to-JS wrapper it compiles when started with --print-wasm-stub-code, and the
// only time it compiles one for wasmoon's Lua→JS calls is when such a call tiers up: the crash path
// that keepWasmWrappersGeneric (main/core/run/worker-pool.ts) closes for every Lua worker.
const PROBE = '--print-wasm-stub-code';
const COMPILED_WRAPPER = /^kind: wasm-to-js$/gm;

// Thousands of Lua allocations (each one a call to wasmoon's JS allocator hook) and log calls:
// far past V8's default budget of a thousand calls before a wrapper tiers up.
const SCRIPT = `local t = {}
for i = 1, 5000 do t[i] = { i } end
for i = 1, 3 do log('built ' .. #t) end
`;

function folderWithScript(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'pf-tier-up-'));
  writeFileSync(path.join(dir, 'alloc.lua'), SCRIPT);
  return dir;
}

describe("wasmoon's Lua→JS calls never tier up in a Lua worker", () => {
  it('a run through the CLI compiles no wasm-to-JS wrapper, while bare wasmoon on the same V8 does', async () => {
    const cwd = folderWithScript();
    const run = await runCli(['run', 'alloc.lua'], { cwd, command: [process.execPath, PROBE, bin] });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('built 5000');
    expect(run.stdout.match(COMPILED_WRAPPER) ?? []).toEqual([]);

    // The probe sees a tier-up when one happens: the same script on a bare wasmoon engine (the
    // worker's engine options, no flag of ours) in a process started the same way.
    const bare = `
      import { createRequire } from 'node:module';
      const { LuaFactory } = createRequire(${JSON.stringify(path.join(root, 'package.json'))})('wasmoon');
      const engine = await new LuaFactory().createEngine({ openStandardLibs: false, injectObjects: false, enableProxy: false, traceAllocations: true });
      engine.global.set('log', (text) => console.log(text));
      engine.doStringSync(${JSON.stringify(SCRIPT)});
      engine.global.close();
    `;
    const control = await runCli(['--input-type=module', '-e', bare], { cwd, command: [process.execPath, PROBE] });
    expect(control.code).toBe(0);
    expect(control.stdout).toContain('built 5000');
    expect((control.stdout.match(COMPILED_WRAPPER) ?? []).length).toBeGreaterThan(0);
  }, 60_000);
});
