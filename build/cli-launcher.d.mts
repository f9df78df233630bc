// Types for build/cli-launcher.mjs (plain JavaScript, so electron-builder can load it).
export declare const CLI_RESOURCES: string;
export declare const CLI_BIN: string;
export interface CliLauncher {
  /** Relative to the packed app folder (electron-builder's appOutDir). */
  path: string;
  mode: number;
  text: string;
}
export declare function cliLauncher(options: {
  platform: string;
  executableName: string;
  productFilename: string;
}): CliLauncher;
