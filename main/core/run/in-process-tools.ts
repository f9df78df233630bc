import type { JsonObject } from '../../../common/json.js';
import type { ArgumentProblem } from '../../../common/studio-schemas.js';
import { ToolCatalogImpl } from '../catalog/tool-catalog.js';
import { ToolFailure, type ToolCatalog, type ToolRunner, type ToolSpec } from '../tools/tool-spec.js';
import { errorMessage } from '../../../common/error-message.js';

/**
 * Tools that run inside the host process for one run (a test environment's tools, see
 * main/core/testing): they join the run's catalog and go through the same dispatcher as every other
 * tool (argument validation, the approval gate, taint, trust labels); only where they run differs.
 */
export interface InProcessTools {
  /** Their catalog entries; an alias here hides a workspace tool of the same alias for this run. */
  specs: ToolSpec[];
  /** Runs one already-validated, already-approved call; resolves with the output text. */
  run(tool: ToolSpec, args: JsonObject, signal: AbortSignal): Promise<string>;
}

/** `base` with `tools` on top: an alias of `tools` is theirs, every other alias is `base`'s. */
export function withInProcessCatalog(base: ToolCatalog, tools: InProcessTools): ToolCatalog {
  const top = new ToolCatalogImpl(tools.specs);
  const owns = (alias: string) => top.get(alias) !== undefined;
  return {
    get: (alias) => top.get(alias) ?? base.get(alias),
    list: () => [...base.list().filter((tool) => !owns(tool.alias)), ...top.list()],
    validateArguments: (alias, args) => (owns(alias) ? top : base).validateArguments(alias, args),
    argumentProblems: (alias, args): ArgumentProblem[] | undefined =>
      (owns(alias) ? top : base).argumentProblems(alias, args),
    validateOutput: (alias, output) => (owns(alias) ? top : base).validateOutput(alias, output),
    ...(base.prepare && { prepare: (aliases) => base.prepare!(aliases.filter((alias) => !owns(alias))) }),
    ...(base.unavailable && { unavailable: (alias) => (owns(alias) ? undefined : base.unavailable!(alias)) }),
  };
}

/** `runner`, except that the specs of `tools` (the very objects) run in-process. */
export function withInProcessRunner(runner: ToolRunner, tools: InProcessTools): ToolRunner {
  const mine = new Set(tools.specs);
  return {
    async run(tool, args, signal) {
      if (!mine.has(tool)) return runner.run(tool, args, signal);
      if (signal.aborted) throw new ToolFailure('cancelled before it started');
      try {
        return await tools.run(tool, args, signal);
      } catch (error) {
        if (error instanceof ToolFailure) throw error;
        throw new ToolFailure(`failed unexpectedly: ${errorMessage(error)}`);
      }
    },
  };
}
