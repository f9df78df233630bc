/**
 * Schemas of what the studio's IPC methods carry: workspace state, runs, approvals, keys and
 * history. Used by the contract table (common/contract.ts); types come from `z.infer`. Nothing
 * here ever holds a secret: key status is `set` / `not set` only.
 *
 * @module
 */
import { z } from 'zod';
import { ForkEditSchema, ModelRefSchema, RunEventSchema, TaintSpanSchema } from './run-events.js';
import { APPROVAL_POLICIES, TOOL_KINDS, TRUST_LEVELS } from './tool-policy.js';

/**
 * What an MCP server says of its tool (`readOnlyHint`, `destructiveHint`, `idempotentHint`,
 * `openWorldHint`): the server's claims, never checked. The studio shows them as such; a rule may
 * test them only for a server the person listed under `trustedServers` in their rules file.
 */
export const ToolAnnotationsSchema = z.object({
  readOnlyHint: z.boolean().optional(),
  destructiveHint: z.boolean().optional(),
  idempotentHint: z.boolean().optional(),
  openWorldHint: z.boolean().optional(),
});

/** The annotation fields a tool or a card carries: the hints, and whether the person trusts the server for rules. */
const annotationFields = {
  /** The MCP server's hints about the tool, as it gave them (absent: it gave none, or it is no MCP tool). */
  annotations: ToolAnnotationsSchema.optional(),
  /**
   * Whether the person listed the tool's MCP server under `trustedServers` in their rules file: only
   * then may a rule's annotation conditions use the hints. Absent for a tool of no MCP server.
   */
  annotationsTrusted: z.boolean().optional(),
};

const json = z.json();

/** A workspace-relative path (`agents/echo.lua`). Never absolute, never `..`. */
export const RelativePathSchema = z
  .string()
  .min(1)
  .refine((p) => !p.startsWith('/') && !/^[A-Za-z]:/.test(p) && !p.split(/[\\/]/).includes('..'), {
    message: 'must be a path inside the workspace (no leading /, no ..)',
  });

/**
 * An agent's name as a person types it (`my-agent`); the studio stores it as
 * `agents/<name>.lua`. The core checks it (empty, taken, slashes, reserved device names, ...)
 * and says what to change; the schema only bounds its size.
 */
export const AgentNameSchema = z.string().max(4096);

/** The templates a new agent can start from. `host-api` teaches the host API and runs offline. */
export const AgentTemplateSchema = z.enum(['host-api']);

/** An agent file after `file:create`, `file:save-as` or `file:rename`. */
export const AgentFileResultSchema = z.object({
  /** Workspace-relative path of the agent (`agents/my-agent.lua`). */
  path: RelativePathSchema,
  /** Workspace-relative path of its recording (`recordings/my-agent.jsonl`), when it has one. */
  recording: z.string().nullable(),
});

/** One reason arguments fail a tool's JSON Schema, from the core's ajv (`args:check`). */
export const ArgumentProblemSchema = z.object({
  /** JSON pointer of the offending value inside the arguments (`/city`; `` for the whole object). */
  pointer: z.string(),
  /** What is wrong, naming the field. */
  message: z.string(),
  /** What to change. */
  fix: z.string(),
});

/** One argument problem as one line for a person: what is wrong (naming the field) and the fix. */
export function describeArgumentProblem(problem: { message: string; fix: string }): string {
  return `${problem.message} — ${problem.fix}`;
}

/** The core's verdict on a tool's arguments: the same validator the dispatcher runs. */
export const ArgumentsVerdictSchema = z.object({
  valid: z.boolean(),
  problems: z.array(ArgumentProblemSchema),
});

/** One catalog problem, as the loader reports it. */
export const CatalogProblemSchema = z.object({
  severity: z.enum(['error', 'warning']),
  /** Workspace-relative file. */
  file: z.string(),
  /** JSON pointer inside the file. */
  pointer: z.string(),
  line: z.number(),
  column: z.number(),
  message: z.string(),
  fix: z.string(),
});

/** A tool as the explorer, completion and approval cards show it. */
export const ToolSummarySchema = z.object({
  alias: z.string(),
  description: z.string(),
  kind: z.enum(TOOL_KINDS),
  trust: z.enum(TRUST_LEVELS),
  approval: z.enum(APPROVAL_POLICIES),
  taintCheck: z.boolean(),
  parameters: json,
  structured: z.boolean(),
  source: z.string(),
  ...annotationFields,
});

/** A model alias from models.yaml. */
export const ModelSummarySchema = z.object({
  alias: z.string(),
  provider: z.string(),
  model: z.string(),
  price: z.object({ inputPerMillion: z.number(), outputPerMillion: z.number(), currency: z.string() }).optional(),
});

/** A model as a run used it: alias, provider and the provider's model id. */
export const RunModelSchema = ModelRefSchema;

/** One past run in the workspace's runs/ folder. */
export const RunSummarySchema = z.object({
  runId: z.string(),
  /** Workspace-relative transcript file. */
  file: z.string(),
  script: z.string(),
  /** The agent's name: the script's file name without `.lua`. */
  agent: z.string(),
  /**
   * The model that answered the run's last round (for rounds answered from a recording, the
   * recorded model); the run's default model when it asked none.
   */
  model: RunModelSchema.optional(),
  /** Set when the rounds were answered from a recording (a replay, or a fork up to its step). */
  replayed: z.boolean().optional(),
  startedAt: z.string(),
  /** `running` when the transcript has no run-end yet (a live or crashed run). */
  status: z.enum(['ok', 'error', 'stopped', 'limit', 'running']),
  durationMs: z.number().optional(),
  error: z.string().optional(),
  toolCalls: z.record(z.string(), z.number()),
  rounds: z.number(),
  inputTokens: z.number(),
  outputTokens: z.number(),
  cost: z.number().optional(),
  replayOf: z.string().optional(),
  /** Set for a fork: its parent run and the step (a seq of the parent) it was forked at. */
  forkOf: z.object({ runId: z.string(), step: z.number().int().positive(), edited: z.boolean() }).optional(),
});

/** The workspaces the person opened lately, newest first (`workspace:recent`). */
export const RecentWorkspacesSchema = z.object({
  workspaces: z.array(
    z.object({
      name: z.string(),
      /** The folder's real path: `workspace:open` takes it spelled exactly so. */
      path: z.string(),
      /** When it was last opened (ISO 8601). */
      lastOpened: z.string(),
      /** Whether it is still the folder that was opened (not gone, moved, or replaced). */
      exists: z.boolean(),
    }),
  ),
  /** Why the list could not be read (it is then empty), or null. */
  problem: z.string().nullable(),
});

/**
 * What an agent's model list shows: the model a run gets with no choice (the agent's `model` in
 * promptforge.yaml, else `defaultModel`), the person's choice for this agent in this workspace
 * (kept in their config folder, not in the workspace), and a remembered choice models.yaml does
 * not define now (kept, not used, with why).
 */
export const AgentModelInfoSchema = z.object({
  default: z.string().nullable(),
  /** Where the default is written: the agent's own setting, or the workspace's `defaultModel`. */
  defaultFrom: z.enum(['agent', 'workspace']).nullable(),
  chosen: z.string().nullable(),
  unavailable: z.object({ alias: z.string(), message: z.string() }).nullable(),
});

/** The studio's spending cap for every run it starts (null: none), and why it could not be read. */
export const SpendingCapSettingSchema = z.object({
  maxTokens: z.number().positive().nullable(),
  maxCost: z.number().positive().nullable(),
  problem: z.string().nullable(),
});

/** The workspace's files for the file tree and quick open (bounded; see main/core/studio/workspace-files.ts). */
export const WorkspaceFilesSchema = z.object({
  files: z.array(
    z.object({
      /** Workspace-relative, with `/`. */
      path: z.string(),
      /** `link-outside`: a symbolic link that leads outside the workspace (never opened). `other`: a FIFO, socket, device. */
      kind: z.enum(['folder', 'file', 'link-outside', 'other']),
    }),
  ),
  /** More files than listed (the listing stops at 5,000 entries and 16 levels). */
  truncated: z.boolean(),
});

/** One file as the viewer shows it: its text (editable for an agent script), or why it is not shown. */
export const FileViewSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('text'), text: z.string(), editable: z.boolean() }),
  z.object({ kind: z.enum(['too-large', 'binary', 'unreadable']), message: z.string() }),
]);

/** Everything the explorer shows for the open workspace. */
export const WorkspaceStateSchema = z.object({
  root: z.string(),
  name: z.string(),
  agents: z.array(z.string()),
  tools: z.array(ToolSummarySchema),
  models: z.array(ModelSummarySchema),
  defaultModel: z.string().nullable(),
  problems: z.array(CatalogProblemSchema),
  runs: z.array(RunSummarySchema),
  /** Agent path → its recording in `recordings/`, so it can run offline. */
  recordings: z.record(z.string(), z.string()),
  /** Agent path → its model list (see {@link AgentModelInfoSchema}). */
  agentModels: z.record(z.string(), AgentModelInfoSchema),
  /** Why the remembered model choices could not be read (the config file), or null. */
  modelChoicesProblem: z.string().nullable(),
});

/** The catalog files the studio edits. */
export const CatalogFileSchema = z.enum(['promptforge.yaml', 'tools.yaml', 'models.yaml']);

/** A person's decision on a pending call. */
export const StudioDecisionSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('approve') }),
  z.object({ kind: z.literal('approve-edited'), arguments: z.record(z.string(), json) }),
  z.object({ kind: z.literal('deny'), reason: z.string().trim().min(1, 'a denial needs a reason') }),
  z.object({ kind: z.literal('allow-for-run') }),
]);

/** A call waiting for a person, with what the approval card shows. */
export const PendingApprovalSchema = z.object({
  runId: z.string(),
  callId: z.string(),
  alias: z.string(),
  description: z.string(),
  arguments: z.record(z.string(), json),
  /** JSON Schema of the arguments, for the edit-then-approve editor. */
  parameters: json,
  /** Why a person is asked. */
  reason: z.enum(['policy', 'tainted']),
  /** Tainted spans of the string arguments; with `key`, the span is inside an object key. */
  taint: z.array(TaintSpanSchema),
  askedAt: z.string(),
  /** What was wrong with the person's previous edit, if it was rejected. */
  rejectedEdit: z.string().optional(),
  /**
   * The tool's taint check in the run's own catalog, as the run's approval gate applies it (not
   * the workspace's current tools.yaml): what "allow for this run" covers.
   */
  taintCheck: z.boolean(),
  /**
   * Set when the tool's definition differs from one the person decided on: the one they allowed
   * for this run (`allowed`), the one its last card in this run showed (`seen`), or the one this
   * card showed while it was open (`open`). What changed in words, and the old and new description
   * and parameter schema when those changed.
   */
  definitionChange: z
    .object({
      since: z.enum(['allowed', 'seen', 'open']),
      summary: z.string(),
      details: z.array(z.string()),
      description: z.object({ before: z.string(), after: z.string() }).optional(),
      parameters: z.object({ before: json, after: json }).optional(),
    })
    .optional(),
  /**
   * Which approval rule is part of why the call asks, or why none applied, in words (`text`): the
   * allow rule that would have applied but was never confirmed on this definition (`unconfirmed`:
   * a yes here confirms it), a tainted sink under an allow rule, an ask rule, or a rules file that
   * cannot be read. `changes` says what changed in the tool since the rule was confirmed on it.
   */
  rule: z
    .object({
      ruleId: z.string().optional(),
      text: z.string(),
      unconfirmed: z.boolean().optional(),
      changes: z.array(z.string()).optional(),
    })
    .optional(),
  /** The argument pointers marked as sinks for this call: they ask on any untrusted text. */
  sinks: z.array(z.string()).optional(),
  ...annotationFields,
});

/** Keychain status of one provider. Never the key. */
export const KeyStatusSchema = z.object({
  provider: z.string(),
  label: z.string(),
  set: z.boolean(),
  needsKey: z.boolean(),
  envVar: z.string().nullable(),
});

/**
 * A keychain secret the open workspace's tools.yaml names (`{ secret: NAME }`): where it is used,
 * and whether it is `set`. Never the value.
 */
export const WorkspaceSecretStatusSchema = z.object({
  name: z.string(),
  usedBy: z.array(z.string()),
  set: z.boolean(),
});

/** One row of a side-by-side comparison of two runs. */
export const CompareRowSchema = z.object({
  kind: z.enum(['round', 'call', 'log', 'end']),
  index: z.number(),
  left: z.string().nullable(),
  right: z.string().nullable(),
  same: z.boolean(),
});

/** One page of a run's transcript (`history:page`). Positions are 0-based line indexes. */
export const TranscriptPageSchema = z.object({
  events: z.array(RunEventSchema),
  /** The first line this page covers. */
  from: z.number().int().nonnegative(),
  /** The line to ask for next. */
  next: z.number().int().nonnegative(),
  /** Complete lines in the transcript when it was read; a live run's keeps growing. */
  total: z.number().int().nonnegative(),
  /** Nothing more to read right now: `next` reached `total`, or a broken line stopped reading. */
  complete: z.boolean(),
  /** The file ends in a line with no newline (cut off, or still being written); it is not served. */
  truncatedTail: z.boolean(),
  /** A broken line (1-based) stopped reading; nothing after it is served. */
  stoppedAt: z.object({ line: z.number().int().positive(), reason: z.string() }).optional(),
});

/** A window of a comparison of two runs (`history:compare`). */
export const ComparePageSchema = z.object({
  rows: z.array(CompareRowSchema),
  /** The 1-based index of the first differing row; `null` when the runs match. */
  firstDifference: z.number().int().positive().nullable(),
  /** How many rows were compared to produce this window. */
  compared: z.number().int().nonnegative(),
  /** Whether both runs ended within the rows compared. */
  complete: z.boolean(),
});

/** Which run a side of a comparison is, for its column header. */
export const ComparedRunSchema = z.object({
  runId: z.string(),
  agent: z.string(),
  script: z.string(),
  startedAt: z.string(),
  /** sha256 of the script the run ran. */
  scriptSha256: z.string(),
});

/** A comparison window with what its headers need (`history:compare`). */
export const RunComparisonSchema = ComparePageSchema.extend({
  left: ComparedRunSchema,
  right: ComparedRunSchema,
  /** The two runs ran different scripts (another agent, or the agent's text changed). */
  scriptsDiffer: z.boolean(),
  /**
   * Set when one run is a fork of the other: which side is the fork, its step in the parent, and
   * the 1-based comparison row of that step (rows before it were answered from the parent's
   * recording, so they line up; the rows from it on are where the runs may part).
   */
  fork: z
    .object({
      side: z.enum(['left', 'right']),
      step: z.number().int().positive(),
      row: z.number().int().positive().nullable(),
    })
    .nullable(),
});

/** Forks a run at a step (`run:fork`): see docs/host-api.md#forks. */
export const ForkRequestSchema = z.strictObject({
  /** The parent run, in the workspace's runs/ folder (a live one too). */
  runId: z.string().min(1),
  /** The `seq` of a model round or tool output of the parent (the number on its row). */
  step: z.number().int().positive(),
  edit: ForkEditSchema.optional(),
  /** Go on live with this model past the step; without it, replay goes on while the recording matches. */
  model: z.string().min(1).optional(),
  /** Fork even though the script changed since the parent ran. */
  force: z.boolean().optional(),
});

/** One MCP server of tools.yaml as the explorer shows it (`mcp:list`, `mcp-changed`). */
export const McpServerStatusSchema = z.object({
  name: z.string(),
  transport: z.enum(['stdio', 'http']),
  state: z.enum(['stopped', 'starting', 'ready', 'error']),
  error: z.string().optional(),
  /** The end of the server's stderr (at most 64 KiB). */
  stderrTail: z.string(),
  tools: z.array(
    z.object({
      alias: z.string(),
      name: z.string(),
      description: z.string(),
      inputSchema: json,
      outputSchema: json.optional(),
    }),
  ),
});

/** Every MCP server of the workspace, with the problems their tool lists caused. */
export const McpServersSchema = z.object({
  servers: z.array(McpServerStatusSchema),
  problems: z.array(CatalogProblemSchema),
});

export { RunEventSchema };

export type WorkspaceState = z.infer<typeof WorkspaceStateSchema>;
export type RecentWorkspaces = z.infer<typeof RecentWorkspacesSchema>;
export type ToolSummary = z.infer<typeof ToolSummarySchema>;
export type ToolAnnotations = z.infer<typeof ToolAnnotationsSchema>;
export type AgentModelInfo = z.infer<typeof AgentModelInfoSchema>;
export type WorkspaceFiles = z.infer<typeof WorkspaceFilesSchema>;
export type FileView = z.infer<typeof FileViewSchema>;
export type SpendingCapSetting = z.infer<typeof SpendingCapSettingSchema>;
export type ModelSummary = z.infer<typeof ModelSummarySchema>;
export type RunSummary = z.infer<typeof RunSummarySchema>;
export type CatalogProblemInfo = z.infer<typeof CatalogProblemSchema>;
export type CatalogFile = z.infer<typeof CatalogFileSchema>;
export type StudioDecision = z.infer<typeof StudioDecisionSchema>;
export type PendingApproval = z.infer<typeof PendingApprovalSchema>;
export type KeyStatus = z.infer<typeof KeyStatusSchema>;
export type WorkspaceSecretStatus = z.infer<typeof WorkspaceSecretStatusSchema>;
export type CompareRow = z.infer<typeof CompareRowSchema>;
export type TranscriptPage = z.infer<typeof TranscriptPageSchema>;
export type ComparePage = z.infer<typeof ComparePageSchema>;
export type RunComparison = z.infer<typeof RunComparisonSchema>;
export type ComparedRun = z.infer<typeof ComparedRunSchema>;
export type RunModel = z.infer<typeof RunModelSchema>;
export type ForkRequest = z.infer<typeof ForkRequestSchema>;
export type McpServersInfo = z.infer<typeof McpServersSchema>;
export type AgentTemplate = z.infer<typeof AgentTemplateSchema>;
export type AgentFileResult = z.infer<typeof AgentFileResultSchema>;
export type ArgumentProblem = z.infer<typeof ArgumentProblemSchema>;
export type ArgumentsVerdict = z.infer<typeof ArgumentsVerdictSchema>;
