// Types for build/after-pack.mjs (plain JavaScript, so electron-builder can load it).
export interface AfterPackContext {
  appOutDir: string;
  electronPlatformName: string;
  packager: {
    executableName: string;
    appInfo: { productFilename: string };
    /** The folder holding app.asar (resources/, or Contents/Resources in a .app). */
    getResourcesDir(appOutDir: string): string;
  };
}
declare function afterPack(context: AfterPackContext): Promise<void>;
export default afterPack;
