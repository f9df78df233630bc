/**
 * The built preload (`out/preload/index.cjs`, electron-vite's CommonJS bundle of preload/index.ts)
 * as the tests run it: checked to require only what a sandboxed Electron preload may require,
 * and wrapped into a page init script with the stand-in `electron` module
 * (./electron-stand-ins.ts) for the e2e bridge.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createStandInElectron } from './electron-stand-ins.js';

/** Where `electron-vite build` writes the preload (this file is test/node/app/preload-bundle.ts). */
export const builtPreloadPath = path.resolve(import.meta.dirname, '..', '..', '..', 'out', 'preload', 'index.cjs');

/**
 * What a preload of a sandboxed renderer (`sandbox: true`, main/app/main-window.ts) can require:
 * `electron` (its renderer modules) and the three Node modules Electron polyfills for it.
 * Anything else throws in the real app, so the bundle must carry it inside.
 */
const SANDBOXED_PRELOAD_MODULES: readonly string[] = ['electron', 'events', 'timers', 'url'];

/** Each `require(...)` in `source`: the module named by its string literal, or null when the argument is not one. */
export function findRequires(source: string): Array<{ module: string | null; line: number }> {
  const found: Array<{ module: string | null; line: number }> = [];
  for (const match of source.matchAll(/(?<![\w$.])require\s*\(\s*(?:(["'`])([^"'`]*)\1\s*\))?/g)) {
    const line = source.slice(0, match.index).split('\n').length;
    found.push({ module: match[1] === undefined ? null : match[2]!, line });
  }
  return found;
}

/** What is wrong with `source` as a sandboxed preload's bundle: one sentence per require it may not make. */
export function sandboxedRequireProblems(source: string, file = builtPreloadPath): string[] {
  const allowed = SANDBOXED_PRELOAD_MODULES.join(', ');
  return findRequires(source)
    .filter((found) => found.module === null || !SANDBOXED_PRELOAD_MODULES.includes(found.module))
    .map((found) =>
      found.module === null
        ? `${file}:${found.line}: require() of a computed name; a sandboxed preload can require only ${allowed}: bundle the module in (electron.vite.config.ts, preload.build)`
        : `${file}:${found.line}: require(${JSON.stringify(found.module)}); a sandboxed preload can require only ${allowed}: bundle "${found.module}" in (electron.vite.config.ts, preload.build) or stop using it in preload/`,
    );
}

/** The built preload's source, after checking it requires only what a sandboxed preload can; throws naming what to fix. */
export function readPreloadBundle(file = builtPreloadPath): string {
  if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` first`);
  const source = readFileSync(file, 'utf8');
  const problems = sandboxedRequireProblems(source, file);
  if (problems.length > 0)
    throw new Error(`the built preload would not load in the sandboxed window:\n${problems.join('\n')}`);
  return source;
}

/** The page globals the bridge's init script talks through. */
export interface PreloadInitNames {
  /** Playwright binding (page.exposeBinding) that carries `ipcRenderer.invoke` to main: `(channel, ...args)`. */
  invokeBinding: string;
  /** Page function the harness calls with `[channel, payload][]` to deliver what main sent. */
  deliverEvents: string;
}

/**
 * A page init script that runs the preload `bundle` as Electron would: in the main frame only
 * (`nodeIntegrationInSubFrames: false` runs no preload in subframes), as a CommonJS module whose
 * `require('electron')` is the stand-in {@link createStandInElectron}, wired to the bridge's binding.
 */
export function preloadInitScript(bundle: string, names: PreloadInitNames): string {
  const sandboxed = JSON.stringify(SANDBOXED_PRELOAD_MODULES);
  return `(() => {
  // Under tsx, esbuild wraps named functions in __name(...), which the page does not have.
  const __name = (fn) => fn;
  if (globalThis.top !== globalThis) return;
  // The binding is looked up on every call, as it may be wrapped by a benchmark.
  const standIn = (${createStandInElectron.toString()})(globalThis, {
    invoke: (channel, args) => globalThis[${JSON.stringify(names.invokeBinding)}](channel, ...args),
  });
  Object.defineProperty(globalThis, ${JSON.stringify(names.deliverEvents)}, {
    value: (messages) => {
      for (const [channel, payload] of messages) standIn.deliver(channel, payload);
    },
  });
  const require = (name) => {
    if (name === 'electron') return standIn.electron;
    throw new Error('the e2e stand-in provides only require("electron") to the preload, not ' + JSON.stringify(name) +
      (${sandboxed}.includes(name) ? ' (a sandboxed preload may require it: add it to test/node/app/preload-bundle.ts)' : ' (a sandboxed preload cannot require it either)'));
  };
  const module = { exports: {} };
  (function (require, module, exports) {
${bundle}
  }).call(module.exports, require, module, module.exports);
})();
`;
}
