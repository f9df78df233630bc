/**
 * The studio's spending cap (tokens, US dollars, or both), a setting of the person's kept in the
 * config folder and applied to every run the studio starts (docs/host-api.md#limits-and-stopping).
 */
import path from 'node:path';
import { z } from 'zod';
import type { SpendingCapSetting } from '../../../common/studio-schemas.js';
import { ConfigFile } from '../trust/config-file.js';
import { ContractError } from './contract-error.js';

/** The file in the config folder that holds the cap. */
export const SPENDING_CAP_FILE = 'spending-cap.json';

const FileSchema = z.strictObject({
  version: z.literal(1),
  maxTokens: z.number().positive().finite().nullable(),
  maxCost: z.number().positive().finite().nullable(),
});
type CapFile = z.infer<typeof FileSchema>;

export class SpendingCap {
  private readonly config: ConfigFile<CapFile>;

  constructor(configDirectory: string) {
    this.config = new ConfigFile(
      path.join(configDirectory, SPENDING_CAP_FILE),
      (value) => FileSchema.parse(value),
      () => ({ version: 1, maxTokens: null, maxCost: null }),
    );
  }

  /** The cap as set; a file that cannot be read is no cap, with why in `problem`. */
  async read(): Promise<SpendingCapSetting> {
    try {
      const { maxTokens, maxCost } = await this.config.read();
      return { maxTokens, maxCost, problem: null };
    } catch (error) {
      return { maxTokens: null, maxCost: null, problem: error instanceof Error ? error.message : String(error) };
    }
  }

  async set(cap: { maxTokens: number | null; maxCost: number | null }): Promise<SpendingCapSetting> {
    try {
      await this.config.update(() => ({ version: 1, ...cap }));
    } catch (error) {
      throw new ContractError(
        'config-unwritable',
        `the spending cap was not changed: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    return this.read();
  }

  /**
   * The limits a run gets from the cap. A cap that cannot be read stops the run from starting
   * rather than letting it spend without the cap the person set.
   */
  async limits(): Promise<{ maxTokens?: number; maxCost?: number }> {
    const cap = await this.read();
    if (cap.problem !== null)
      throw new ContractError(
        'config-unreadable',
        `the spending cap could not be read, so no run starts: ${cap.problem}. Fix or remove the file, then set the cap again in Credentials`,
      );
    return {
      ...(cap.maxTokens !== null && { maxTokens: cap.maxTokens }),
      ...(cap.maxCost !== null && { maxCost: cap.maxCost }),
    };
  }
}
