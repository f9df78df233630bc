// The import boundaries of eslint.config.js, probed with planted imports: every forbidden import
// (static, re-exported or dynamic) fails lint with the layer's message, every allowed one passes,
// and a main/core folder missing from the layer table stops lint.
import path from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { CORE_LAYERS, unlayeredCoreFolders } from '../../../eslint.config.js';
import { repositoryRoot } from './project-copy.js';

// Planted files exist only in memory, where the type-aware rules cannot see them: those are off here.
const eslint = new ESLint({ cwd: repositoryRoot, overrideConfig: tseslint.configs.disableTypeChecked });

/** The messages of the import-boundary rules for `code` planted at `file` (relative to the repository). */
async function boundaryErrors(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(repositoryRoot, file) });
  return (result?.messages ?? [])
    .filter((message) => message.ruleId === 'no-restricted-imports' || message.ruleId === 'no-restricted-syntax')
    .map((message) => message.message);
}

const forms = (specifier: string): string[] => [
  `import { x } from '${specifier}';\nexport const y = x;\n`,
  `export { x } from '${specifier}';\n`,
  `export async function load(): Promise<unknown> {\n  return import('${specifier}');\n}\n`,
];

async function expectRefused(file: string, specifier: string, words: string): Promise<void> {
  for (const code of forms(specifier)) {
    const errors = await boundaryErrors(file, code);
    expect(errors, `${file}: ${code}`).toHaveLength(1);
    expect(errors[0]).toContain(words);
  }
}

async function expectAllowed(file: string, specifier: string): Promise<void> {
  for (const code of forms(specifier)) expect(await boundaryErrors(file, code), `${file}: ${code}`).toEqual([]);
}

describe('the layer rule of main/core', () => {
  const folders = CORE_LAYERS.flat();
  const layerOf = (folder: string): number => CORE_LAYERS.findIndex((layer) => layer.includes(folder));

  it('refuses every import of a folder of the same or a higher layer, and allows every lower one', async () => {
    for (const folder of folders) {
      const file = `main/core/${folder}/planted.ts`;
      for (const other of folders) {
        if (other === folder) continue;
        if (layerOf(other) < layerOf(folder)) await expectAllowed(file, `../${other}/module.js`);
        else await expectRefused(file, `../${other}/module.js`, `main/core/${folder} (layer ${layerOf(folder) + 1}`);
      }
    }
  }, 120_000);

  it('refuses electron, the CLI, the glue, the renderer and the preload in every core folder', async () => {
    for (const folder of folders) {
      const file = `main/core/${folder}/planted.ts`;
      await expectRefused(file, 'electron', 'electron');
      await expectRefused(file, '../../cli/cli.js', 'main/core never imports');
      await expectRefused(file, '../../app/main.js', 'main/core never imports');
      await expectRefused(file, '../../../preload/index.js', 'main/core never imports');
    }
  }, 120_000);

  it('names every core folder the table leaves out', () => {
    expect(unlayeredCoreFolders([...folders, 'planted', 'another'])).toEqual(['planted', 'another']);
    expect(unlayeredCoreFolders(folders)).toEqual([]);
  });
});

describe('the boundaries of the other folders', () => {
  it('main/cli: no electron, glue, renderer or preload; core and common are fine', async () => {
    await expectRefused('main/cli/planted.ts', 'electron', 'electron');
    await expectRefused('main/cli/planted.ts', '../app/main.js', 'main/cli runs in plain Node');
    await expectRefused('main/cli/planted.ts', '../../renderer/src/main.js', 'main/cli runs in plain Node');
    await expectAllowed('main/cli/planted.ts', '../core/run/run.js');
    await expectAllowed('main/cli/planted.ts', '../../common/json.js');
  });

  it('main/app: no CLI, renderer or preload; electron and core are fine', async () => {
    await expectRefused('main/app/planted.ts', '../cli/cli.js', 'main/app is the Electron glue');
    await expectRefused('main/app/planted.ts', '../../renderer/src/main.js', 'main/app is the Electron glue');
    await expectAllowed('main/app/planted.ts', 'electron');
    await expectAllowed('main/app/planted.ts', '../core/studio/studio-service.js');
  });

  it('common/: nothing of main, renderer or preload, no Node built-ins, no electron', async () => {
    await expectRefused('common/planted.ts', '../main/core/run/run.js', 'common/ is shared by every process');
    await expectRefused('common/planted.ts', '../renderer/src/main.js', 'common/ is shared by every process');
    await expectRefused('common/planted.ts', 'node:fs', 'no Node built-ins');
    await expectRefused('common/planted.ts', 'fs', 'no Node built-ins');
    await expectRefused('common/planted.ts', 'electron', 'never imports electron');
    await expectAllowed('common/planted.ts', 'zod');
  });

  it('preload/: electron and common only', async () => {
    await expectRefused('preload/planted.ts', '../main/core/run/run.js', 'The preload builds window.promptforge');
    await expectRefused('preload/planted.ts', 'node:fs', 'sandboxed preload');
    await expectAllowed('preload/planted.ts', 'electron');
    await expectAllowed('preload/planted.ts', '../common/contract.js');
  });

  it('renderer/: no main, preload, Node built-ins or electron', async () => {
    await expectRefused(
      'renderer/src/planted.ts',
      '../../main/core/run/run.js',
      'The renderer imports from common/ only',
    );
    await expectRefused('renderer/src/planted.ts', '../../preload/index.js', 'The renderer imports from common/ only');
    await expectRefused('renderer/src/planted.ts', 'node:path', 'no Node built-ins');
    await expectRefused('renderer/src/planted.ts', 'electron', 'never imports electron');
    await expectAllowed('renderer/src/planted.ts', '../../common/contract.js');
  });
});
