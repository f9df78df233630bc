import type { JsonObject } from '../../../common/json.js';
import type { ArgumentProblem, ArgumentsVerdict } from '../../../common/studio-schemas.js';
import type { ToolCatalog } from '../tools/tool-spec.js';
import { ContractError } from './contract-error.js';

/**
 * Tool trials and argument checks for the studio.
 *
 * A trial (`tool:trial`) is an ordinary run of {@link TOOL_TRIAL_SCRIPT}: the script receives
 * the call (`{ alias, arguments }`) as its chunk argument, which crosses into Lua through the same
 * gate as every value the host sends (`encodeForLua`), and makes exactly one `tools.call`. So a
 * trial goes through the run's dispatcher, approval gate, taint tracking and envelope, and is
 * recorded in `runs/` like any run. The alias and arguments are never written into Lua source.
 * A trial calls no model: none is resolved (a broken or keyless default model does not matter),
 * and its run-start names none and says `toolTrial` instead.
 *
 * @module
 */

/** The script every tool trial runs. */
export const TOOL_TRIAL_SCRIPT = `-- A tool trial from the studio: one tools.call with the alias and arguments it sent.
local trial = ...
tools.call(trial.alias, trial.arguments)
`;

/** The name a trial's script has in errors and in History: `(trial of echo)`. */
export function trialScriptName(alias: string): string {
  return `(trial of ${alias})`;
}

/**
 * The core's verdict on `args` for tool `alias` of `catalog`: the validator the dispatcher runs.
 * An unknown alias is a ContractError `unknown-tool`.
 */
export function checkArguments(catalog: ToolCatalog, alias: string, args: unknown): ArgumentsVerdict {
  const problems = catalog.argumentProblems(alias, args);
  if (problems === undefined)
    throw new ContractError(
      'unknown-tool',
      `no tool "${alias}" in this workspace's catalog (tools.yaml, the builtins and the MCP servers' tools); pick one from the explorer`,
    );
  return { valid: problems.length === 0, problems };
}

/**
 * Refuses a trial whose arguments fail the tool's schema, before any run starts: a
 * ContractError `invalid-arguments` naming each field (JSON pointer) and its fix.
 */
export function requireValidTrialArguments(catalog: ToolCatalog, alias: string, args: JsonObject): void {
  const { valid, problems } = checkArguments(catalog, alias, args);
  if (valid) return;
  throw new ContractError(
    'invalid-arguments',
    `the arguments for "${alias}" do not match its schema: ${problems.map(describeProblem).join('; ')}`,
  );
}

function describeProblem(problem: ArgumentProblem): string {
  return `${problem.pointer === '' ? '(the arguments)' : problem.pointer}: ${problem.message} (fix: ${problem.fix})`;
}
