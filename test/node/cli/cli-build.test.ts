import { cpSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { bin, root, runCli } from './spawn-cli.js';

// The bin runs the CLI built into out/cli (test/node/cli/build-cli-setup.ts rebuilds it before
// every test run), with no TypeScript loader, and loads only what a command needs.

const hook = pathToFileURL(path.join(root, 'test/node/cli/module-trace-hook.mjs')).href;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'pf-cli-build-'));
  writeFileSync(path.join(dir, 'hello.lua'), "log('hi')\n");
});

/** Runs the bin with the module-trace preload; returns the result and the modules it loaded. */
async function traced(args: string[], cliBin = bin) {
  const trace = path.join(mkdtempSync(path.join(tmpdir(), 'pf-trace-')), 'modules.txt');
  writeFileSync(trace, '');
  const result = await runCli(args, {
    cwd: dir,
    command: [process.execPath, '--import', hook, cliBin],
    env: { PROMPTFORGE_TEST_MODULE_TRACE: trace, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/pf-bus' },
  });
  const loaded = readFileSync(trace, 'utf8').split('\n').filter(Boolean);
  return { ...result, loaded };
}

/** The source files bundled into the out/cli files among `loaded` (from out/cli/metafile.json). */
function sourcesIn(loaded: string[]): string[] {
  const outputs = JSON.parse(readFileSync(path.join(root, 'out/cli/metafile.json'), 'utf8')) as Record<
    string,
    { inputs: Record<string, unknown> }
  >;
  const sources = new Set<string>();
  for (const line of loaded) {
    const built = /\/(out\/cli\/[^/]+\.js)$/.exec(line)?.[1];
    const output = built === undefined ? undefined : outputs[built];
    if (built !== undefined && !output) throw new Error(`${built} is not in out/cli/metafile.json`);
    for (const source of Object.keys(output?.inputs ?? {})) sources.add(source);
  }
  return [...sources];
}

/** What only a run needs: the Lua VM and its worker, the run machinery, the MCP client. */
const RUN_ONLY =
  /wasmoon|lua-worker|main\/core\/run\/(worker-pool|prepare-run|run)\.ts|main\/core\/mcp\/mcp-(manager|connection)\.ts|@modelcontextprotocol/;

/** The MCP client: loaded only by a run in a workspace that has MCP servers (or `mcp list`). */
const MCP_CLIENT = /main\/core\/mcp\/mcp-(manager|connection)\.ts|@modelcontextprotocol/;

/** The catalog machinery: loaded only by a command that reads a workspace. */
const CATALOG_MACHINERY = /node_modules\/(zod|yaml|ajv|ajv-formats|re2js)\/|main\/core\/catalog\/workspace\.ts/;

/** The transcript reader and the run events' schemas: loaded only by a run that replays a recording. */
const TRANSCRIPT_READER = /main\/core\/transcript\/transcript-reader\.ts|common\/run-events\.ts/;

/** The provider adapters: loaded only when a run resolves a model. */
const ADAPTERS = /main\/core\/providers\/(openai-chat|anthropic|gemini)-provider\.ts|create-provider\.ts/;

const typescriptOrLoader = (line: string) => /\.tsx?$|node_modules\/tsx\/|node_modules\/esbuild\//.test(line);

describe('the promptforge bin', () => {
  it('runs a script from the build: no TypeScript, no loader, a worker from out/cli', async () => {
    const { code, stdout, stderr, loaded } = await traced(['run', 'hello.lua']);
    expect({ code, stdout, stderr }).toEqual({ code: 0, stdout: 'hi\n', stderr: '' });
    expect(loaded.some((line) => line.includes('/out/cli/cli.js'))).toBe(true);
    expect(loaded.filter((line) => line.startsWith('worker '))).toEqual([
      expect.stringMatching(/out\/cli\/lua-worker\.js$/),
    ]);
    expect(loaded.some((line) => line.includes('node_modules/wasmoon/'))).toBe(true);
    expect(sourcesIn(loaded).filter((source) => RUN_ONLY.test(source)).length).toBeGreaterThan(3);
    // hello.lua calls no model, so no provider adapter is loaded; its folder has no MCP servers.
    expect(sourcesIn(loaded).filter((source) => ADAPTERS.test(source))).toEqual([]);
    expect(sourcesIn(loaded).filter((source) => MCP_CLIENT.test(source))).toEqual([]);
    // It replays nothing: no transcript is read, so no run-event schema is built.
    expect(sourcesIn(loaded).filter((source) => TRANSCRIPT_READER.test(source))).toEqual([]);
    expect(loaded.filter(typescriptOrLoader)).toEqual([]);
  });

  it.each([[['keys', 'status']], [['keys', 'list']], [['--version']], [['--help']], [['run', '--help']]])(
    '%j loads no Lua VM, worker, run machinery, MCP client or (outside a workspace) catalog machinery',
    async (args) => {
      const { stderr, loaded } = await traced(args);
      expect(stderr).not.toMatch(/internal error|\n\s+at /);
      // The trace works (the CLI itself was seen), so an empty match below means "not loaded".
      expect(loaded.some((line) => line.includes('/out/cli/cli.js'))).toBe(true);
      expect(loaded.filter((line) => line.startsWith('worker ') || RUN_ONLY.test(line))).toEqual([]);
      expect(sourcesIn(loaded).filter((source) => RUN_ONLY.test(source) || ADAPTERS.test(source))).toEqual([]);
      // Outside a workspace (the test's folder has no catalog files) nothing reads a catalog.
      expect(sourcesIn(loaded).filter((source) => CATALOG_MACHINERY.test(source))).toEqual([]);
      expect(loaded.filter(typescriptOrLoader)).toEqual([]);
    },
  );

  /** The bin as a package ships it: promptforge.mjs and the Node version check it imports. */
  const copyBin = (copy: string): void => {
    mkdirSync(path.join(copy, 'main/cli'), { recursive: true });
    for (const file of ['promptforge.mjs', 'node-version.mjs'])
      cpSync(path.join(path.dirname(bin), file), path.join(copy, 'main/cli', file));
  };

  it('runs from a copy holding only the build, the bin and package.json (no source tree)', async () => {
    const copy = mkdtempSync(path.join(tmpdir(), 'pf-built-only-'));
    cpSync(path.join(root, 'out/cli'), path.join(copy, 'out/cli'), { recursive: true });
    copyBin(copy);
    cpSync(path.join(root, 'package.json'), path.join(copy, 'package.json'));
    symlinkSync(path.join(root, 'node_modules'), path.join(copy, 'node_modules'), 'dir');
    const { code, stdout, stderr, loaded } = await traced(
      ['run', 'hello.lua'],
      path.join(copy, 'main/cli/promptforge.mjs'),
    );
    expect({ code, stdout, stderr }).toEqual({ code: 0, stdout: 'hi\n', stderr: '' });
    expect(loaded.filter((line) => line.includes(`${root}/main/`) || line.includes(`${root}/common/`))).toEqual([]);
    const version = await runCli(['--version'], {
      cwd: dir,
      command: [process.execPath, path.join(copy, 'main/cli/promptforge.mjs')],
    });
    expect(version.code).toBe(0);
    expect(version.stdout).toContain(JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).version);
  });

  it.each([
    ['out/cli is missing', []],
    ['out/cli has the CLI but not its Lua worker', ['cli.js']],
  ])('without a build (%s) says how to build it, in one line, with no stack trace', async (_name, present) => {
    const copy = mkdtempSync(path.join(tmpdir(), 'pf-unbuilt-'));
    copyBin(copy);
    for (const file of present) {
      mkdirSync(path.join(copy, 'out/cli'), { recursive: true });
      writeFileSync(path.join(copy, 'out/cli', file), "throw new Error('must not be imported');\n");
    }
    const result = await runCli(['run', 'hello.lua'], {
      cwd: dir,
      command: [process.execPath, path.join(copy, 'main/cli/promptforge.mjs')],
    });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('npm install');
    expect(result.stderr).toContain('npm run build:cli');
    expect(result.stderr).not.toContain('must not be imported');
  });
});
