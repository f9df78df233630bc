/**
 * The tool definitions people confirmed rules on, by digest, beside the rules file: so that when a
 * tool changes under a rule, the card and the terminal can say what changed, not only that it did.
 */
import path from 'node:path';
import { z } from 'zod';
import { lazy } from '../../../common/lazy.js';
import type { DefinedTool } from '../tools/tool-definition.js';
import { ConfigFile } from '../trust/config-file.js';

/** The file, in the config folder. */
const RULE_DEFINITIONS_FILE = 'approval-rule-definitions.json';

/** Most definitions kept; the oldest go first. */
const MAX_DEFINITIONS = 2000;

/** The file's shape, built the first time it is read. */
const definitionsSchema = lazy(() =>
  z.object({
    version: z.literal(1),
    definitions: z.array(z.object({ digest: z.string(), tool: z.record(z.string(), z.unknown()) })),
  }),
);
type DefinitionsFile = z.infer<ReturnType<typeof definitionsSchema>>;

/** The confirmed definitions, read once per run and added to when a person confirms a rule. */
export class RuleDefinitions {
  private readonly file: ConfigFile<DefinitionsFile>;

  constructor(configDir: string) {
    this.file = new ConfigFile(
      path.join(configDir, RULE_DEFINITIONS_FILE),
      (value) => definitionsSchema().parse(value),
      () => ({ version: 1, definitions: [] }),
    );
  }

  /** Digest → definition (a file that cannot be read gives none: it only words a card). */
  async read(): Promise<Map<string, DefinedTool>> {
    const contents = await this.file.read().catch(() => ({ version: 1 as const, definitions: [] }));
    return new Map(contents.definitions.map((entry) => [entry.digest, entry.tool as unknown as DefinedTool]));
  }

  /** Keeps `tool` under `digest`. */
  async remember(digest: string, tool: DefinedTool): Promise<void> {
    const kept = JSON.parse(JSON.stringify(tool)) as Record<string, unknown>;
    await this.file.update((current) => ({
      version: 1,
      definitions: [...current.definitions.filter((entry) => entry.digest !== digest), { digest, tool: kept }].slice(
        -MAX_DEFINITIONS,
      ),
    }));
  }
}
