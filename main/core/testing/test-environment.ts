import type { JsonObject, JsonSchema, JsonValue } from '../../../common/json.js';
import type { ApprovalPolicy, Trust } from '../tools/tool-spec.js';
import type { ModelProvider } from '../providers/model-provider.js';

/**
 * The seam between `promptforge test` (the runner) and test environments: an environment is a set of
 * in-process tools acting on a state object, named checks on that state, and programmable scripted
 * models. A case that names `environment:` runs with the environment's tools in its catalog, on a deep
 * copy of `initialState(...)` of its own.
 */

/** One tool of an environment: runs in-process on the run's own copy of the environment state. */
export interface EnvironmentTool {
  alias: string;
  description: string;
  parameters: JsonSchema;
  trust: Trust; // 'trusted' | 'untrusted' as a careful person labels it
  approval: ApprovalPolicy; // default policy ('ask' | 'auto' | ...), as tools.yaml would say
  /** Runs with validated args; may change `state`; returns the tool output text (or throws ToolFailure). */
  run(args: JsonObject, state: JsonObject): string | Promise<string>;
}

/** What a check sees after a run. */
export interface EnvironmentCheckContext {
  before: JsonObject; // the state the run started from (with injections applied)
  after: JsonObject; // the state when the run ended
  calls: Array<{ alias: string; arguments: JsonObject; approved: boolean; output: string | null }>;
  finalText: string | null; // the agent's final answer/result text
}

export interface EnvironmentCheckResult {
  ok: boolean;
  expected: string;
  actual: string;
}

export interface TestEnvironment {
  name: string; // e.g. 'agentdojo-banking'
  description: string;
  /** A fresh state for one run; `injections` fills the named injection slots (vector id -> text). */
  initialState(injections: Record<string, string>): JsonObject;
  /** The injection slots this environment has, with their default (benign) text. */
  injectionSlots: Record<string, string>;
  tools: EnvironmentTool[];
  /** Named checks a case can assert (`check: NAME`), e.g. a ported utility or security check. */
  checks: Record<string, (context: EnvironmentCheckContext) => EnvironmentCheckResult>;
  /** Named programmable scripted models a case can use (`model: { environment: NAME }`), e.g. an oracle. Each call makes a fresh provider for one case; `task` is the case's `task` field. */
  models: Record<string, (task: JsonValue, before: JsonObject) => ModelProvider>;
}

const registry = new Map<string, TestEnvironment>();

/** The registry: environments register themselves here; cases name them by `name`. */
export function registerTestEnvironment(environment: TestEnvironment): void {
  if (!/^[a-z0-9][a-z0-9._-]*$/.test(environment.name)) {
    throw new Error(
      `Test environment name "${environment.name}" is not valid: use lower-case letters, digits, ".", "_" or "-".`,
    );
  }
  const existing = registry.get(environment.name);
  if (existing && existing !== environment) {
    throw new Error(
      `A test environment named "${environment.name}" is already registered: give the new one another name.`,
    );
  }
  registry.set(environment.name, environment);
}

export function testEnvironment(name: string): TestEnvironment | undefined {
  return registry.get(name);
}

export function testEnvironmentNames(): string[] {
  return [...registry.keys()].sort();
}
