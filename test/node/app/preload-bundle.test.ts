import { describe, expect, it } from 'vitest';
import { contractMethodNames } from '../../../common/contract.js';
import { createStandInElectron } from './electron-stand-ins.js';
import { builtPreloadPath, findRequires, readPreloadBundle, sandboxedRequireProblems } from './preload-bundle.js';

describe('the built preload (out/preload/index.cjs)', () => {
  it('requires only what a sandboxed preload can: electron', () => {
    const source = readPreloadBundle();
    expect(findRequires(source).map((found) => found.module)).toEqual(['electron']);
  });

  it('runs as CommonJS with require("electron") alone, and exposes the whole contract', () => {
    const world: Record<string, unknown> = {};
    const standIn = createStandInElectron(world, { invoke: async () => ({ ok: true, value: null }) });
    const required: string[] = [];
    const module = { exports: {} };
    const run = new Function('require', 'module', 'exports', readPreloadBundle()) as (
      require: (name: string) => unknown,
      module: unknown,
      exports: unknown,
    ) => void;
    run(
      (name) => {
        required.push(name);
        if (name !== 'electron') throw new Error(`not in a sandboxed preload: ${name}`);
        return standIn.electron;
      },
      module,
      module.exports,
    );
    expect(required).toEqual(['electron']);
    expect(Object.keys(world['promptforge'] as object).sort()).toEqual([...contractMethodNames, 'on'].sort());
  });
});

describe('the sandboxed-preload require check', () => {
  it('allows electron, events, timers and url', () => {
    const source = 'const a = require("electron");\nconst b = require(\'events\');\nrequire("timers"); require(`url`);';
    expect(sandboxedRequireProblems(source)).toEqual([]);
  });

  it('names the file, the line and the fix for any other module or a computed name', () => {
    const source =
      'let electron = require("electron");\nconst fs = require("node:fs");\nconst z = require(name);\nfoo.require("x"); myrequire("y");';
    expect(sandboxedRequireProblems(source, 'out/preload/index.cjs')).toEqual([
      'out/preload/index.cjs:2: require("node:fs"); a sandboxed preload can require only electron, events, timers, url: bundle "node:fs" in (electron.vite.config.ts, preload.build) or stop using it in preload/',
      'out/preload/index.cjs:3: require() of a computed name; a sandboxed preload can require only electron, events, timers, url: bundle the module in (electron.vite.config.ts, preload.build)',
    ]);
  });

  it('refuses to hand over a bundle that would not load, saying so', () => {
    expect(() => readPreloadBundle(`${builtPreloadPath}.missing`)).toThrow('is missing: run `npm run build` first');
  });
});
