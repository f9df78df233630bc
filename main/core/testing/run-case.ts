import path from 'node:path';
import type { JsonObject } from '../../../common/json.js';
import type { RunStatus } from '../../../common/run-events.js';
import { errorMessage } from '../../../common/error-message.js';
import type { Approver } from '../approval/approver.js';
import { PolicyApprover } from '../approval/policy-approver.js';
import type { Workspace } from '../catalog/workspace.js';
import type { SecretStore } from '../credentials/secret-store.js';
import type { ModelProvider } from '../providers/model-provider.js';
import type { InProcessTools } from '../run/in-process-tools.js';
import {
  prepareRun,
  RunSetupError,
  TranscriptError,
  type PrepareRunOptions,
  type RunTrust,
} from '../run/prepare-run.js';
import type { WorkerPool } from '../run/worker-pool.js';
import type { ToolSpec } from '../tools/tool-spec.js';
import { evaluate, type AssertionContext, type Failure } from './assertions.js';
import { CaseTrace } from './case-trace.js';
import type { LoadedCase } from './load-tests.js';
import { inProcessModel, ScriptedProvider } from './scripted-model.js';
import type { Approve } from './test-file-schema.js';
import { testEnvironment, type TestEnvironment } from './test-environment.js';

/** A case's wall-clock limit when it sets none: a case that never ends still ends. */
const DEFAULT_CASE_TIMEOUT_SECONDS = 60;

/** What running a case needs besides the case. */
export interface CaseRunContext {
  workspace: Workspace;
  pool: WorkerPool;
  trust: RunTrust;
  /** The keychain, for live models. */
  secrets?: SecretStore;
  env?: Record<string, string | undefined>;
  /** Where the run's transcript goes; false: none. */
  transcriptPath: string | false;
  /** Aborts the case's run (Ctrl-C). */
  signal: AbortSignal;
  /** `--model ALIAS`: this live model answers instead of the case's own. */
  modelOverride?: string;
  /** The person's approval rules. */
  rules?: PrepareRunOptions['rules'];
  /** Where the person reads the case's messages (the studio's Tests view, or the terminal). */
  surface?: PrepareRunOptions['surface'];
  /**
   * The person's spending cap (the studio's, set in Credentials): the case runs under the smaller
   * of it and its own `limits`, so a test file cannot lift it.
   */
  cap?: SpendingLimits;
}

/** A spending cap: tokens, dollars, or both. */
export interface SpendingLimits {
  maxTokens?: number;
  maxCost?: number;
}

/** The smaller of two optional caps (either may be absent). */
function smaller(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.min(a, b);
}

/** How one case went. */
export interface CaseResult {
  id: string;
  name: string;
  file: string;
  line: number;
  /** The model that answered, as the comparison table names it. */
  model: string;
  /** passed: every assertion held; failed: one did not; error: the case could not run. */
  outcome: 'passed' | 'failed' | 'error';
  failures: Failure[];
  /** Set for outcome `error`: why the case could not run. */
  error?: string;
  run?: {
    runId: string;
    status: RunStatus;
    error?: string;
    rounds: number;
    tokens: number;
    cost?: number;
    durationMs: number;
    transcript?: string;
  };
  /** What the run did, for `--update`: the fields it records as new expectations. */
  observed?: {
    status: RunStatus;
    calls: { tool: string; arguments: JsonObject }[];
    final: string | null;
  };
}

/** What a run without a person does with a call that would ask one, for each `approve:` policy. */
function approverFor(approve: Approve | undefined): Approver {
  const mode = approve ?? 'deny';
  if (mode === 'auto' || mode === 'deny') return new PolicyApprover(mode);
  if (mode === 'ask-as-deny')
    return {
      source: 'policy',
      ask: async () => ({ kind: 'deny', reason: 'no terminal to ask on and no --approve flag (approve: ask-as-deny)' }),
    };
  return {
    source: 'policy',
    ask: async (pending) => {
      const answer = mode.tools?.[pending.request.alias] ?? mode.default ?? 'deny';
      return answer === 'approve'
        ? { kind: 'approve', reason: `approve: ${pending.request.alias} is approve in the case` }
        : { kind: 'deny', reason: `denied by the case's approve policy for ${pending.request.alias}` };
    },
  };
}

/** The label of the model that answers a case. */
export function caseModelLabel(testCase: LoadedCase, override?: string): string {
  if (override !== undefined) return override;
  const model = testCase.spec.model;
  if (typeof model === 'string') return model;
  if ('alias' in model) return model.alias;
  if ('recording' in model) return `replay ${model.recording}`;
  if ('environment' in model) return `${testCase.spec.environment}/${model.environment}`;
  return model.name ?? 'scripted';
}

/** An environment's tools as catalog entries, acting on `state` (the run's own copy). */
function environmentTools(environment: TestEnvironment, state: JsonObject): InProcessTools {
  const byAlias = new Map(environment.tools.map((tool) => [tool.alias, tool]));
  return {
    specs: environmentToolSpecs(environment),
    run: async (tool, args) => byAlias.get(tool.alias)!.run(args, state),
  };
}

/** An environment's tools as the catalog entries a run gets (what a rule is confirmed on). */
export function environmentToolSpecs(environment: TestEnvironment): ToolSpec[] {
  return environment.tools.map((tool) => ({
    alias: tool.alias,
    description: tool.description,
    parameters: tool.parameters,
    trust: tool.trust,
    approval: tool.approval,
    taintCheck: true,
    settings: { kind: 'builtin', builtin: `environment ${environment.name}` },
    source: `<environment ${environment.name}>`,
  }));
}

/** Runs one case and checks its assertions. Never throws for a case's own problems. */
export async function runCase(testCase: LoadedCase, context: CaseRunContext): Promise<CaseResult> {
  const { spec } = testCase;
  const label = caseModelLabel(testCase, context.modelOverride);
  const base = { id: testCase.id, name: testCase.name, file: testCase.file, line: testCase.line, model: label };
  const trace = new CaseTrace();
  const where = `${testCase.file}:${testCase.line} (${testCase.name})`;
  let scripted: ScriptedProvider | undefined;
  let environment: { definition: TestEnvironment; before: JsonObject; state: JsonObject } | undefined;
  if (spec.environment !== undefined) {
    const definition = testEnvironment(spec.environment)!;
    const state = structuredClone(definition.initialState({ ...definition.injectionSlots, ...spec.injections }));
    environment = { definition, before: structuredClone(state), state };
  }
  const model = spec.model;
  const live =
    context.modelOverride ?? (typeof model === 'string' ? model : 'alias' in model ? model.alias : undefined);
  let provider: ModelProvider | undefined;
  let price: { inputPerMillion: number; outputPerMillion: number } | undefined;
  if (live === undefined && typeof model === 'object') {
    if ('replies' in model) {
      provider = scripted = new ScriptedProvider(model.replies, where);
      price = model.price;
    } else if ('environment' in model && environment)
      provider = environment.definition.models[model.environment]!(
        spec.task ?? null,
        structuredClone(environment.before),
      );
  }
  const recording =
    live === undefined && typeof model === 'object' && 'recording' in model ? model.recording : undefined;
  const limits = spec.limits ?? {};
  const notStarted = (): CaseResult => ({
    ...base,
    outcome: 'error',
    failures: [],
    error: 'interrupted before it started',
  });
  if (context.signal.aborted) return notStarted();
  let run;
  try {
    run = await prepareRun({
      scriptFile: path.resolve(context.workspace.root, spec.agent),
      workspace: context.workspace,
      pool: context.pool,
      approver: approverFor(spec.approve),
      ...(context.secrets && { secrets: context.secrets }),
      allowEnvKeys: true,
      ...(context.env && { env: context.env }),
      trust: context.trust,
      ...(context.rules && { rules: context.rules }),
      ...(context.surface && { surface: context.surface }),
      ...(provider && { inProcessModel: inProcessModel(provider, label, price) }),
      ...(environment && { inProcessTools: environmentTools(environment.definition, environment.state) }),
      ...(live !== undefined && { model: live }),
      ...(recording !== undefined && { replayPath: path.resolve(context.workspace.root, recording) }),
      ...(spec.input !== undefined && { input: spec.input }),
      transcriptPath: context.transcriptPath,
      limits: {
        ...(limits.cpu !== undefined && { cpuMs: limits.cpu * 1000 }),
        ...(limits.memory !== undefined && { memoryBytes: limits.memory * 1024 * 1024 }),
        wallMs: (limits.timeout ?? DEFAULT_CASE_TIMEOUT_SECONDS) * 1000,
        ...spendingLimits(limits, context.cap),
      },
      onEvent: trace.onEvent,
    });
  } catch (error) {
    if (error instanceof RunSetupError || error instanceof TranscriptError)
      return { ...base, outcome: 'error', failures: [], error: error.message };
    return { ...base, outcome: 'error', failures: [], error: `internal error: ${errorMessage(error)}` };
  }
  // Ctrl-C while the run was being prepared: it never starts.
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- Ctrl-C may come during the preparation
  if (context.signal.aborted) return notStarted();
  const stop = () => run.stop('interrupted (Ctrl-C)');
  context.signal.addEventListener('abort', stop, { once: true });
  let result;
  try {
    await run.start();
    result = await run.done;
  } finally {
    context.signal.removeEventListener('abort', stop);
  }
  const assertionContext: AssertionContext = {
    ...(scripted?.exhaustedAt !== undefined && { exhaustedAt: scripted.exhaustedAt }),
    ...(environment && {
      environment: {
        definition: environment.definition,
        check: {
          before: environment.before,
          after: environment.state,
          calls: trace.checkCalls(),
          finalText: trace.finalText,
        },
      },
    }),
  };
  const failures = evaluate(spec.expect ?? {}, trace, assertionContext);
  // Ctrl-C may come while the run runs (TypeScript cannot see it, so the type is kept wide).
  const interrupted = (context.signal.aborted as boolean) && result.status === 'stopped';
  return {
    ...base,
    outcome: interrupted ? 'error' : failures.length > 0 ? 'failed' : 'passed',
    failures: interrupted ? [] : failures,
    ...(interrupted ? { error: 'interrupted (Ctrl-C) while it ran' } : {}),
    run: {
      runId: result.runId,
      status: result.status,
      ...(result.error && { error: result.error.message }),
      rounds: trace.rounds.length,
      tokens: trace.tokens,
      ...(trace.end?.cost !== undefined && { cost: trace.end.cost }),
      durationMs: result.durationMs,
      ...(result.transcriptPath && { transcript: result.transcriptPath }),
    },
    observed: {
      status: result.status,
      calls: trace.calls.map((call) => ({ tool: call.alias, arguments: call.arguments })),
      final: trace.finalText,
    },
  };
}

/** A case's own token and dollar limits, lowered to the person's cap where that is smaller. */
function spendingLimits(
  limits: { tokens?: number | undefined; cost?: number | undefined },
  cap: SpendingLimits | undefined,
): SpendingLimits {
  const maxTokens = smaller(limits.tokens, cap?.maxTokens);
  const maxCost = smaller(limits.cost, cap?.maxCost);
  return { ...(maxTokens !== undefined && { maxTokens }), ...(maxCost !== undefined && { maxCost }) };
}
