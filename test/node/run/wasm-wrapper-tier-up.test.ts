import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bin, root, runCli } from '../cli/spawn-cli.js';

// V8 prints each wasm-to-JS wrapper it compiles when started with --print-wasm-stub-code, and the
// only time it compiles one for wasmoon's Lua→JS calls is when such a call tiers up: the crash path
// that keepWasmWrappersGeneric (main/core/run/wasm-wrappers.ts) closes for every Lua worker: the
// first Lua worker of a process sets V8's flag, and every other one waits for it before any wasm.
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

/** A workspace whose test file runs the script as `cases` cases. */
function workspaceWithCases(cases: number): string {
  const dir = folderWithScript();
  writeFileSync(path.join(dir, 'promptforge.yaml'), ''); // an empty file: all defaults
  mkdirSync(path.join(dir, 'tests'));
  const lines = Array.from(
    { length: cases },
    (_, index) =>
      `  - { name: case ${index + 1}, agent: alloc.lua, model: { replies: [] }, expect: { status: ok, logs: { contains: built 5000 } } }`,
  );
  writeFileSync(path.join(dir, 'tests', 'alloc.yaml'), `cases:\n${lines.join('\n')}\n`);
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

  it('a second and third Lua worker in one process compile none either (they wait for the first to set the flag)', async () => {
    // `test --jobs 3` starts a pool of three Lua workers at once in one process; six cases keep all
    // three running scripts, each past the default tier-up budget.
    const cwd = workspaceWithCases(6);
    const suite = await runCli(['test', '--jobs', '3'], { cwd, command: [process.execPath, PROBE, bin] });
    expect(suite.stdout).toContain('6 passed, 0 failed, 0 could not run');
    expect(suite.code).toBe(0);
    expect(suite.stdout.match(COMPILED_WRAPPER) ?? []).toEqual([]);
  }, 60_000);
});
