// Flat config. The per-folder `no-restricted-imports` blocks enforce the layering described in
// docs/architecture.md: the folder says which environment code runs in, and so what it may import.
import { readdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';

const electronImports = {
  paths: [{ name: 'electron', message: 'Only main/app and preload may import electron; core stays plain Node.' }],
  patterns: [{ regex: '^electron/', message: 'Only main/app and preload may import electron.' }],
};

const nodeBuiltinPaths = builtinModules
  .filter((name) => !name.startsWith('_'))
  .map((name) => ({ name, message: 'Renderer-side code runs in a sandboxed page: no Node built-ins.' }));

// common/ is loaded by every process, the sandboxed renderer included: standard JS/TS only.
const sharedCodeImports = {
  paths: [{ name: 'electron', message: 'Shared and renderer code never imports electron.' }, ...nodeBuiltinPaths],
  patterns: [
    { regex: '^node:', message: 'Shared and renderer code runs in a sandboxed page too: no Node built-ins.' },
    { regex: '^electron/', message: 'Shared and renderer code never imports electron.' },
  ],
};

const rendererImports = {
  paths: sharedCodeImports.paths,
  patterns: [
    ...sharedCodeImports.patterns,
    {
      regex: '^(\\.\\./)+(main|preload)/',
      message: 'The renderer imports from common/ only, and talks to window.promptforge.',
    },
  ],
};

// The layers of main/core, lowest first (docs/architecture.md draws them). A folder imports only
// from the layers below its own: never from a folder of its own layer, never from one above.
export const CORE_LAYERS = [
  ['files', 'net', 'secrets'],
  ['tools', 'transcript', 'providers'],
  ['approval', 'catalog', 'credentials'],
  ['mcp', 'trust'],
  ['rules'],
  ['run'],
  ['testing'],
  ['agentdojo'],
  ['studio'],
];

/** The folders of main/core that the layer table leaves out: each must be given a layer. */
export function unlayeredCoreFolders(folders) {
  const layered = new Set(CORE_LAYERS.flat());
  return folders.filter((folder) => !layered.has(folder));
}

const coreFolders = readdirSync(path.join(import.meta.dirname, 'main', 'core'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
const unlayered = unlayeredCoreFolders(coreFolders);
if (unlayered.length > 0)
  throw new Error(
    `eslint.config.js: main/core/${unlayered.join(', main/core/')} ${unlayered.length === 1 ? 'is' : 'are'} not in CORE_LAYERS. ` +
      'Add each folder to the layer whose folders it may import from below (docs/architecture.md, "Layers").',
  );

/**
 * `no-restricted-imports` sees static imports and re-exports; dynamic `import()` is checked by
 * `no-restricted-syntax` against the same patterns, so a lazy import cannot cross a boundary either.
 */
function boundary(options) {
  const dynamic = [
    ...options.paths.map((entry) => ({
      selector: `ImportExpression[source.value=${JSON.stringify(entry.name)}]`,
      message: entry.message,
    })),
    ...options.patterns.map((entry) => ({
      // esquery ends a regular expression at the first slash, so slashes are written as \\x2F.
      selector: `ImportExpression[source.value=/${entry.regex.replaceAll('/', '\\x2F')}/]`,
      message: entry.message,
    })),
  ];
  return {
    'no-restricted-imports': ['error', options],
    'no-restricted-syntax': ['error', ...dynamic],
  };
}

const coreLayerBlocks = CORE_LAYERS.flatMap((layer, index) => {
  const below = CORE_LAYERS.slice(0, index).flat();
  return layer.map((folder) => {
    const banned = CORE_LAYERS.flat().filter((other) => other !== folder && !below.includes(other));
    const may = below.length > 0 ? `imports only from ${below.join(', ')}` : 'imports no other core folder';
    return {
      files: [`main/core/${folder}/**`],
      rules: boundary({
        ...electronImports,
        patterns: [
          ...electronImports.patterns,
          {
            regex: `^(\\.\\./)+(core/)?(${banned.join('|')})/`,
            message: `main/core/${folder} (layer ${index + 1} of ${CORE_LAYERS.length}) ${may}; see docs/architecture.md.`,
          },
          {
            regex: '^(\\.\\./)+(cli|app)/|^(\\.\\./)+(renderer|preload)/',
            message: 'main/core never imports the CLI, the Electron glue, the renderer or the preload.',
          },
        ],
      }),
    };
  });
});

// The CLI runs in plain Node: core and common, never electron, the glue, the renderer or the preload.
const cliImports = {
  ...electronImports,
  patterns: [
    ...electronImports.patterns,
    {
      regex: '^(\\.\\./)+(app|renderer|preload)/',
      message: 'main/cli runs in plain Node: it imports main/core and common/ only.',
    },
  ],
};

// The Electron glue: electron, core and common, never the CLI or the renderer.
const appImports = {
  paths: [],
  patterns: [
    {
      regex: '^(\\.\\./)+(cli|renderer|preload)/',
      message: 'main/app is the Electron glue: it imports electron, main/core and common/ only.',
    },
  ],
};

// common/ is imported by every process: it never reaches into one of them.
const commonImports = {
  paths: sharedCodeImports.paths,
  patterns: [
    ...sharedCodeImports.patterns,
    {
      regex: '^(\\.\\./)+(main|renderer|preload)/',
      message: 'common/ is shared by every process: it imports nothing from main/, renderer/ or preload/.',
    },
  ],
};

// The preload runs sandboxed: electron and common/ only (a sandboxed preload cannot require Node built-ins).
const preloadImports = {
  paths: nodeBuiltinPaths.map((entry) => ({ ...entry, message: 'A sandboxed preload cannot load Node built-ins.' })),
  patterns: [
    { regex: '^node:', message: 'A sandboxed preload cannot load Node built-ins.' },
    {
      regex: '^(\\.\\./)+(main|renderer)/',
      message: 'The preload builds window.promptforge from common/contract.ts: it imports electron and common/ only.',
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
    rules: boundary(electronImports),
  },
  ...coreLayerBlocks,
  { files: ['main/cli/**'], rules: boundary(cliImports) },
  { files: ['main/app/**'], rules: boundary(appImports) },
  { files: ['preload/**'], rules: boundary(preloadImports) },
  {
    files: ['common/**'],
    rules: boundary(commonImports),
  },
  {
    files: ['renderer/**'],
    rules: boundary(rendererImports),
  },
  // Type-aware rules for every TypeScript file, read through the tsconfigs (tsconfig.json's references).
  // Declaration files hold no code for these rules to check and belong to no tsconfig.
  {
    files: ['**/*.{ts,tsx,mts,cts}'],
    ignores: ['**/*.d.ts', '**/*.d.mts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // A `default` is a deliberate "everything else" (a platform, an error code, the event kinds a
      // view ignores); a switch without one must name every member, so a new member is not missed.
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-unnecessary-condition': 'error',
    },
  },
  // The rules of hooks (and the React Compiler's checks of the same rules) for every component.
  { files: ['renderer/**/*.{ts,tsx}'], ...reactHooks.configs.flat.recommended },
);
