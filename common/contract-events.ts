/** The contract's pushed events (common/contract.ts): each event's name and the schema of its payload. */
import { z } from 'zod';
import { mcpContractEvents } from './mcp-contract.js';
import { RulesListingSchema } from './rules-schemas.js';
import { RunEventSchema } from './run-events.js';
import { McpServersSchema, PendingApprovalSchema, WorkspaceStateSchema } from './studio-schemas.js';
import { TestFileInfoSchema, TestsProgressSchema } from './test-schemas.js';
import { WorkspaceTrustSchema } from './trust-schemas.js';

/**
 * Every event main pushes to the renderer: `noun-action` mapped to the zod schema of its
 * payload. Main validates a payload before sending it.
 */
export const contractEvents = {
  /** One event of a run, as it happens (the same events the transcript holds). */
  'run-event': RunEventSchema,
  /** A dispatched tool call is waiting for a person's decision. */
  'approval-pending': PendingApprovalSchema,
  /** A pending call was decided (here or elsewhere) or cancelled. */
  'approval-resolved': z.object({ runId: z.string().min(1), callId: z.string().min(1) }),
  /** The open workspace changed on disk (an external edit, a new run) or another was opened. */
  'workspace-changed': WorkspaceStateSchema,
  /** An MCP server's state, tools or stderr changed. */
  'mcp-changed': McpServersSchema,
  /** The open workspace's trust changed: it was trusted or revoked, or its manifest changed on disk. */
  'trust-changed': WorkspaceTrustSchema,
  /** A suite run started, a case of it finished (with its result), or it ended. */
  'tests-progress': TestsProgressSchema,
  /** The open workspace's test files changed on disk (or what they name did): their cases and mistakes now. */
  'tests-changed': z.object({ files: z.array(TestFileInfoSchema) }),
  /** The rules file (or its usage) changed: saved here, edited by `promptforge rules` or by hand. */
  'rules-changed': RulesListingSchema,
  /** The servers' questions and changed listings (common/mcp-contract.ts). */
  ...mcpContractEvents,
} as const satisfies Record<string, z.ZodType>;
