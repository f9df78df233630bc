// Flat config. The per-folder `no-restricted-imports` blocks enforce the layering described in
// docs/architecture.md: the folder says which environment code runs in, and so what it may import.
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';

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

// The layers of main/core, lowest first (docs/architecture.md draws them). A folder imports only
// from the layers below its own: never from a folder of its own layer, never from one above.
const CORE_LAYERS = [
  ['files', 'net', 'secrets'],
  ['tools', 'transcript', 'providers'],
  ['approval', 'catalog', 'credentials'],
  ['mcp', 'trust'],
  ['run'],
  ['studio'],
];

const coreLayerBlocks = CORE_LAYERS.flatMap((layer, index) => {
  const below = CORE_LAYERS.slice(0, index).flat();
  return layer.map((folder) => {
    const banned = CORE_LAYERS.flat().filter((other) => other !== folder && !below.includes(other));
    const may = below.length > 0 ? `imports only from ${below.join(', ')}` : 'imports no other core folder';
    return {
      files: [`main/core/${folder}/**`],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            ...electronImports,
            patterns: [
              ...electronImports.patterns,
              {
                regex: `^(\\.\\./)+(core/)?(${banned.join('|')})/`,
                message: `main/core/${folder} (layer ${index + 1} of ${CORE_LAYERS.length}) ${may}; see docs/architecture.md.`,
              },
            ],
          },
        ],
      },
    };
  });
});

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
  ...coreLayerBlocks,
  {
    files: ['common/**'],
    rules: { 'no-restricted-imports': ['error', sharedCodeImports] },
  },
  {
    files: ['renderer/**'],
    rules: { 'no-restricted-imports': ['error', rendererImports] },
  },
  // The rules of hooks (and the React Compiler's checks of the same rules) for every component.
  { files: ['renderer/**/*.{ts,tsx}'], ...reactHooks.configs.flat.recommended },
);
