/**
 * Schemas of what the studio's IPC methods carry: workspace state, runs, approvals, keys and
 * history. Used by the contract table (common/contract.ts); types come from `z.infer`. Nothing
 * here ever holds a secret: key status is `set` / `not set` only.
 *
 * @module
 */
import { z } from 'zod';
import { RunEventSchema } from './run-events.js';

const json = z.json();

/** A workspace-relative path (`agents/echo.lua`). Never absolute, never `..`. */
export const RelativePathSchema = z
  .string()
  .min(1)
  .refine((p) => !p.startsWith('/') && !/^[A-Za-z]:/.test(p) && !p.split(/[\\/]/).includes('..'), {
    message: 'must be a path inside the workspace (no leading /, no ..)',
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
  kind: z.enum(['builtin', 'command', 'http', 'mcp']),
  trust: z.enum(['trusted', 'untrusted']),
  approval: z.enum(['ask', 'auto', 'deny']),
  taintCheck: z.boolean(),
  parameters: json,
  structured: z.boolean(),
  source: z.string(),
});

/** A model alias from models.yaml. */
export const ModelSummarySchema = z.object({
  alias: z.string(),
  provider: z.string(),
  model: z.string(),
  price: z.object({ inputPerMillion: z.number(), outputPerMillion: z.number(), currency: z.string() }).optional(),
});

/** One past run in the workspace's runs/ folder. */
export const RunSummarySchema = z.object({
  runId: z.string(),
  /** Workspace-relative transcript file. */
  file: z.string(),
  script: z.string(),
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
});

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
  taint: z.array(z.object({ path: z.string(), start: z.number(), end: z.number(), sourceOutputId: z.string() })),
  askedAt: z.string(),
  /** What was wrong with the person's previous edit, if it was rejected. */
  rejectedEdit: z.string().optional(),
});

/** Keychain status of one provider. Never the key. */
export const KeyStatusSchema = z.object({
  provider: z.string(),
  label: z.string(),
  set: z.boolean(),
  needsKey: z.boolean(),
  envVar: z.string().nullable(),
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
export type ToolSummary = z.infer<typeof ToolSummarySchema>;
export type ModelSummary = z.infer<typeof ModelSummarySchema>;
export type RunSummary = z.infer<typeof RunSummarySchema>;
export type CatalogProblemInfo = z.infer<typeof CatalogProblemSchema>;
export type CatalogFile = z.infer<typeof CatalogFileSchema>;
export type StudioDecision = z.infer<typeof StudioDecisionSchema>;
export type PendingApproval = z.infer<typeof PendingApprovalSchema>;
export type KeyStatus = z.infer<typeof KeyStatusSchema>;
export type CompareRow = z.infer<typeof CompareRowSchema>;
export type TranscriptPage = z.infer<typeof TranscriptPageSchema>;
export type ComparePage = z.infer<typeof ComparePageSchema>;
export type McpServerStatusInfo = z.infer<typeof McpServerStatusSchema>;
export type McpServersInfo = z.infer<typeof McpServersSchema>;
