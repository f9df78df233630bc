import type { JsonObject, JsonSchema } from '../../../common/json.js';
import type { ArgumentProblem } from '../../../common/studio-schemas.js';
import type { ApprovalPolicy, Trust } from '../../../common/tool-policy.js';

export type { ApprovalPolicy, Trust };

/** Settings per tool kind. `mcp` tools come from a server listed by main/core/mcp. */
export type ToolKindSettings =
  | { kind: 'builtin'; builtin: string }
  | {
      kind: 'command';
      /** argv, run with no shell. */
      command: string[];
      /** Working directory, relative to the workspace. */
      cwd?: string;
      /** Environment variable names passed through from the host. */
      env?: string[];
      /** Milliseconds before the whole process tree is killed. */
      timeoutMs?: number;
      /** Largest stdout accepted, in bytes. */
      maxOutputBytes?: number;
    }
  | {
      kind: 'http';
      url: string;
      /** Header name -> literal value or `{ secret: NAME }` resolved from the keychain in main. */
      headers?: Record<string, string | { secret: string }>;
      timeoutMs?: number;
    }
  | {
      kind: 'mcp';
      /** The tools.yaml entry (server name) that exposes the tool. */
      server: string;
      /** The tool's name on the server. */
      tool: string;
      /** Milliseconds the call may run; progress notifications restart the clock. */
      timeoutMs: number;
    };

/** A validated tool catalog entry. */
export interface ToolSpec {
  /** The alias: the name scripts dispatch and the model sees. */
  alias: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: JsonSchema;
  /** When present, the tool declares structured output: its stdout must be JSON matching this. */
  outputSchema?: JsonSchema;
  trust: Trust;
  approval: ApprovalPolicy;
  /** When false, tainted arguments do not force a person's approval (the file carries a warning). */
  taintCheck: boolean;
  /** Arguments (JSON pointers) that ask whenever they carry untrusted text (the sink rule). */
  sinks?: string[];
  /** Arguments (JSON pointers) where taint does not force approval; a trusted workspace's only. */
  tolerant?: string[];
  settings: ToolKindSettings;
  /** Where the entry was defined, for error messages (`<builtin>` for builtins). */
  source: string;
  /**
   * An MCP tool's annotations as its server listed them (`readOnlyHint`, `destructiveHint`...):
   * hints, never a policy, but covered by the definition's digest, so a change asks again.
   */
  annotations?: JsonObject;
}

/** Something that runs a tool and returns its raw text output. Never decides approval. */
export interface ToolRunner {
  /**
   * Runs `tool` with already-validated, already-approved `args`. Resolves with the raw output text.
   * Rejects with a {@link ToolFailure} saying what happened (exit code, HTTP status, timeout...).
   */
  run(tool: ToolSpec, args: JsonObject, signal: AbortSignal): Promise<string>;
}

/**
 * A tool ran and failed. `message` says what happened, without the alias (the caller adds it).
 * Text the tool itself produced (an HTTP error body, a stderr tail) must be passed as `toolText`
 * and end the message: for an untrusted tool the dispatcher wraps exactly that part in the run's
 * envelope and records it as taint. A message without `toolText` is host text. `signIn` names the
 * MCP server the person must sign in to before the call can work; only the host sets it, from the
 * sign-in's own state, never from anything a server said.
 */
export class ToolFailure extends Error {
  constructor(
    message: string,
    readonly toolText?: string,
    readonly signIn?: string,
  ) {
    super(message);
    this.name = 'ToolFailure';
  }
}

/** The tools a run can dispatch. */
export interface ToolCatalog {
  get(alias: string): ToolSpec | undefined;
  list(): ToolSpec[];
  /**
   * Validates `args` against the tool's parameter schema. Returns undefined when valid, else a
   * message naming the bad field (JSON pointer) and what is wrong.
   */
  validateArguments(alias: string, args: JsonObject): string | undefined;
  /**
   * The same validation as a list of problems (JSON pointer, what is wrong, the fix), for the
   * studio's live checks; empty when valid, undefined for an unknown alias.
   */
  argumentProblems(alias: string, args: unknown): ArgumentProblem[] | undefined;
  /** Validates structured output against the output schema; undefined when valid or no schema. */
  validateOutput(alias: string, output: unknown): string | undefined;
  /**
   * Makes `aliases` available before they are looked up, for a catalog whose tools arrive lazily
   * (MCP servers start only when a run first advertises or calls an alias one of them may own).
   * Resolves once they are settled; an alias nobody provides is simply still unknown.
   */
  prepare?(aliases: readonly string[]): Promise<unknown>;
  /**
   * Why an alias the catalog does not hold may be missing: a server that may own it failed to start
   * (for want of a sign-in, say). Undefined when nothing the catalog knows explains it.
   */
  unavailable?(alias: string): ToolUnavailable | undefined;
}

/** Why a tool a script called is not in the catalog: host words, and the server to sign in to, if that is why. */
export interface ToolUnavailable {
  reason: string;
  /** What the server itself said, as a ToolFailure's `toolText`: it ends `reason` and is never host text. */
  toolText?: string;
  signIn?: string;
}
