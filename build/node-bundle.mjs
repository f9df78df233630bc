// How the code that runs in plain Node is bundled: the CLI (main/cli/build-cli.mjs) and the app's
// Lua worker (electron.vite.config.ts). Plain JavaScript: the CLI build loads it with no loader.

/**
 * The packages that stay real files in node_modules at run time; everything else the main
 * process, the Lua worker and the CLI use is bundled into out/. @napi-rs/keyring is a native
 * addon (a .node file, in a per-platform package it requires) and wasmoon's glue reads glue.wasm
 * from beside itself, so neither can be bundled. electron-builder.yml packs exactly these (its
 * `files` and `asarUnpack` patterns, which YAML cannot import from here), and test/node/packaging
 * checks that the package holds these and no other node_modules.
 */
export const RUNTIME_PACKAGES = ['@napi-rs/keyring', 'wasmoon'];

/** esbuild options for an ES-module bundle that Node (22, Electron 45's) runs. */
export const NODE_BUNDLE = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  external: RUNTIME_PACKAGES,
  // The Lua prelude (main/core/run/lua-prelude.lua) is imported as text and inlined in the bundle.
  loader: { '.lua': 'text' },
  // Bundled CommonJS packages may require() Node's built-in modules.
  banner: {
    js: "import { createRequire as __pfCreateRequire } from 'node:module'; const require = __pfCreateRequire(import.meta.url);",
  },
  logLevel: 'warning',
};
