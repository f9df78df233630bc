/**
 * "What each rule matched last and when", for the studio's Rules view and `rules list`: counted in
 * memory as calls are decided, and merged into its own file (never the rules file, so usage never
 * contends with a person's edits) when a run ends.
 */
import path from 'node:path';
import { z } from 'zod';
import { lazy } from '../../../common/lazy.js';
import { ConfigFile } from '../trust/config-file.js';

/** The usage file, beside the rules file in the config folder. */
export const RULES_USAGE_FILE = 'approval-rules-usage.json';

/** The file's shape, built the first time it is read. */
const usageSchema = lazy(() =>
  z.object({
    version: z.literal(1),
    rules: z.record(
      z.string(),
      z.object({ lastAt: z.string(), lastAlias: z.string(), count: z.number().int().min(0) }),
    ),
  }),
);
/** Per rule id: when it last decided a call, of which tool, and how many calls in all. */
export type RuleUsageFile = z.infer<ReturnType<typeof usageSchema>>;

/** The usage of the rules, in memory until {@link RuleUsage.flush}. */
export class RuleUsage {
  private readonly file: ConfigFile<RuleUsageFile>;
  private pending = new Map<string, { lastAt: string; lastAlias: string; count: number }>();

  constructor(configDir: string) {
    this.file = new ConfigFile(
      path.join(configDir, RULES_USAGE_FILE),
      (value) => usageSchema().parse(value),
      () => ({ version: 1, rules: {} }),
    );
  }

  /** Counts one call rule `ruleId` decided (no I/O). */
  note(ruleId: string, alias: string, at: string): void {
    const known = this.pending.get(ruleId);
    this.pending.set(ruleId, { lastAt: at, lastAlias: alias, count: (known?.count ?? 0) + 1 });
  }

  /**
   * Merges what was counted into the file, under its lock; nothing when nothing was counted.
   * Resolves once every flush begun before it has finished too.
   */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.flushNow()).catch(() => undefined);
    return this.flushing;
  }

  private flushing: Promise<void> = Promise.resolve();

  private async flushNow(): Promise<void> {
    if (this.pending.size === 0) return;
    const counted = this.pending;
    this.pending = new Map();
    await this.file.update((current) => {
      const rules = { ...current.rules };
      for (const [id, use] of counted) {
        const before = Object.hasOwn(rules, id) ? rules[id] : undefined;
        rules[id] = {
          lastAt: before && before.lastAt > use.lastAt ? before.lastAt : use.lastAt,
          lastAlias: before && before.lastAt > use.lastAt ? before.lastAlias : use.lastAlias,
          count: (before?.count ?? 0) + use.count,
        };
      }
      return { version: 1, rules };
    });
  }

  /** The file as it is now (a broken one reads as empty: usage is a convenience, never a policy). */
  async read(): Promise<RuleUsageFile> {
    return this.file.read().catch(() => ({ version: 1 as const, rules: {} }));
  }
}
