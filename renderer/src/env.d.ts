import type { PromptForgeApi } from '../../common/contract-ipc.js';

declare global {
  interface Window {
    /** The studio's API, built from common/contract.ts by the preload (in the app and in the e2e tests). */
    readonly promptforge: PromptForgeApi;
  }
}

export {};
