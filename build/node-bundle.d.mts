// Types for build/node-bundle.mjs (plain JavaScript, so the CLI build can load it).
import type { BuildOptions } from 'esbuild';
export declare const RUNTIME_PACKAGES: string[];
export declare const NODE_BUNDLE: BuildOptions;
