import type { PromptForgeApi } from '../../common/contract.js';

declare global {
  interface Window {
    /** The studio's API, built from common/contract.ts by the preload (or the e2e test bridge). */
    readonly promptforge: PromptForgeApi;
  }
}

export {};
