// The named exports of eslint.config.js, typed for test/node/setup/layer-rule.test.ts.
import type { Linter } from 'eslint';

/** The layers of main/core, lowest first: each a list of folder names. */
export declare const CORE_LAYERS: string[][];
/** The folders of `folders` that the layer table leaves out. */
export declare function unlayeredCoreFolders(folders: string[]): string[];
declare const config: Linter.Config[];
export default config;
