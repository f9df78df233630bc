// Types for build/after-pack.mjs (plain JavaScript, so electron-builder can load it).
export interface AfterPackContext {
  appOutDir: string;
  electronPlatformName: string;
  packager: { executableName: string; appInfo: { productFilename: string } };
}
export declare function afterPack(context: AfterPackContext): Promise<void>;
export default afterPack;
