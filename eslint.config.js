// Flat config. The per-folder `no-restricted-imports` blocks enforce the layering described in
// docs/architecture.md: the folder says which environment code runs in, and so what it may import.
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const electronImports = {
  paths: [{ name: 'electron', message: 'Only main/app and preload may import electron; core stays plain Node.' }],
  patterns: [{ group: ['electron/*'], message: 'Only main/app and preload may import electron.' }],
};

const nodeBuiltinPaths = builtinModules
  .filter((name) => !name.startsWith('_'))
  .map((name) => ({ name, message: 'Renderer-side code runs in a sandboxed page: no Node built-ins.' }));

// common/ is loaded by every process, the sandboxed renderer included: standard JS/TS only.
const sharedCodeImports = {
  paths: [{ name: 'electron', message: 'Shared and renderer code never imports electron.' }, ...nodeBuiltinPaths],
  patterns: [
    { group: ['node:*'], message: 'Shared and renderer code runs in a sandboxed page too: no Node built-ins.' },
    { group: ['electron/*'], message: 'Shared and renderer code never imports electron.' },
  ],
};

const rendererImports = {
  paths: sharedCodeImports.paths,
  patterns: [
    ...sharedCodeImports.patterns,
    {
      group: ['**/main/**', '**/preload/**'],
      message: 'The renderer imports from common/ only, and talks to window.promptforge.',
    },
  ],
};

export default tseslint.config(
  {
    ignores: ['out/**', 'dist/**', 'node_modules/**', 'test-results/**', 'coverage/**', '.tmp/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: {
      // Plain JS here is Node scripts and fixtures (TypeScript files get their globals from tsc).
      globals: Object.fromEntries(
        [
          'process',
          'console',
          'Buffer',
          'URL',
          'URLSearchParams',
          'TextEncoder',
          'TextDecoder',
          'AbortController',
          'AbortSignal',
          'fetch',
          'setTimeout',
          'clearTimeout',
          'setInterval',
          'clearInterval',
          'setImmediate',
          'clearImmediate',
          'queueMicrotask',
          'structuredClone',
          'globalThis',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
  {
    files: ['main/core/**'],
    rules: { 'no-restricted-imports': ['error', electronImports] },
  },
  {
    files: ['common/**'],
    rules: { 'no-restricted-imports': ['error', sharedCodeImports] },
  },
  {
    files: ['renderer/**'],
    rules: { 'no-restricted-imports': ['error', rendererImports] },
  },
);
