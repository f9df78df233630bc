import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';
import type { Plugin } from 'vite';
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

export default defineConfig({
  main: {
    build: {
      rolldownOptions: {
        input: {
          index: resolve(root, 'main/app/main.ts'),
          // The Lua VM runs in a worker thread (docs/host-api.md#messages-and-rounds); it must be its own file in out/main.
          ...(existsSync(luaWorkerEntry) ? { 'lua-worker': luaWorkerEntry } : {}),
        },
      },
    },
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
