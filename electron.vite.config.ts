import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';
import { build as esbuild } from 'esbuild';
import type { Plugin } from 'vite';
import { NODE_BUNDLE, RUNTIME_PACKAGES } from './build/node-bundle.mjs';
import { buildContentSecurityPolicy } from './common/content-security-policy.js';

const root = import.meta.dirname;
const luaWorkerEntry = resolve(root, 'main/core/run/lua-worker.ts');
const cspPlaceholder = '__PROMPTFORGE_CONTENT_SECURITY_POLICY__';

/**
 * Writes the policy from common/content-security-policy.ts into index.html's <meta> tag, so the
 * header and the tag can never drift apart. While developing, Vite injects an inline React Refresh
 * preamble and <style> elements; their hashes (and inline styles) are allowed in dev only.
 */
function contentSecurityPolicyPlugin(): Plugin {
  let serving = false;
  return {
    name: 'promptforge:content-security-policy',
    configResolved(config) {
      serving = config.command === 'serve';
    },
    transformIndexHtml: {
      order: 'post',
      handler(html) {
        if (!html.includes(cspPlaceholder)) {
          throw new Error(`renderer/index.html must hold the ${cspPlaceholder} placeholder in its CSP <meta> tag`);
        }
        const policy = serving
          ? buildContentSecurityPolicy({
              inlineScriptHashes: [...html.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)]
                .map((match) => match[1] ?? '')
                .filter((code) => code.trim() !== '')
                .map((code) => `'sha256-${createHash('sha256').update(code).digest('base64')}'`),
              allowInlineStyles: true,
            })
          : buildContentSecurityPolicy();
        return html.replace(cspPlaceholder, policy);
      },
    },
  };
}

/**
 * Writes the Lua worker (docs/host-api.md#messages-and-rounds) into out/main as one file of its
 * own, with no chunks shared with the main process: the packaged app starts it from
 * app.asar.unpacked, where it is the only file of out/main (docs/packaging.md). It is bundled when
 * the main build starts (so a watched build, `npm run dev`, watches its sources too) and written
 * with the main bundle.
 */
function luaWorkerPlugin(): Plugin {
  let outDir = '';
  let bundled: Uint8Array | undefined;
  return {
    name: 'promptforge:lua-worker',
    apply: 'build',
    configResolved(config) {
      outDir = config.build.outDir;
    },
    async buildStart() {
      const result = await esbuild({
        ...NODE_BUNDLE,
        absWorkingDir: root,
        entryPoints: [luaWorkerEntry],
        outfile: resolve(outDir, 'lua-worker.js'),
        write: false,
        metafile: true,
      });
      bundled = result.outputFiles[0]?.contents;
      for (const file of Object.keys(result.metafile.inputs))
        if (!file.includes('node_modules')) this.addWatchFile(resolve(root, file));
    },
    async writeBundle() {
      if (!bundled)
        throw new Error('promptforge:lua-worker: the Lua worker was not bundled (main/core/run/lua-worker.ts)');
      await writeFile(resolve(outDir, 'lua-worker.js'), bundled);
    },
  };
}

export default defineConfig({
  main: {
    build: {
      // The packaged app carries no node_modules but the runtime packages (build/node-bundle.mjs:
      // the keychain's native addon and wasmoon, whose glue reads glue.wasm beside itself): every
      // other dependency is bundled into out/main, which is smaller than shipping the packages and
      // saves the start hundreds of module look-ups (docs/packaging.md).
      externalizeDeps: false,
      rolldownOptions: {
        external: [...RUNTIME_PACKAGES],
        input: { index: resolve(root, 'main/app/main.ts') },
      },
    },
    plugins: existsSync(luaWorkerEntry) ? [luaWorkerPlugin()] : [],
  },
  preload: {
    build: {
      // A sandboxed preload can only require('electron') and a few Node shims, so zod and the
      // contract are bundled in, and the output is CommonJS (sandboxed preloads cannot be ESM).
      externalizeDeps: false,
      rolldownOptions: {
        input: { index: resolve(root, 'preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(root, 'renderer'),
    plugins: [react(), contentSecurityPolicyPlugin()],
    build: {
      // The renderer ships CodeMirror, React and yaml: minified, it loads noticeably faster.
      minify: true,
      rolldownOptions: {
        input: { index: resolve(root, 'renderer/index.html') },
      },
    },
  },
});
