/**
 * The words of a tool's policy, shared by the catalog schemas (main/core/catalog), the run
 * events, the contract and the studio: one list each, so a new value is added in one place.
 *
 * @module
 */

/** Whether a tool's output may pass to the script and the next model turn verbatim. */
export const TRUST_LEVELS = ['trusted', 'untrusted'] as const;
export type Trust = (typeof TRUST_LEVELS)[number];

/** What happens when a script dispatches the tool: ask a person, run, or refuse. */
export const APPROVAL_POLICIES = ['ask', 'auto', 'deny'] as const;
export type ApprovalPolicy = (typeof APPROVAL_POLICIES)[number];

/** The kinds of catalog tool: a builtin, a command, an HTTP endpoint, an MCP server. */
export const TOOL_KINDS = ['builtin', 'command', 'http', 'mcp'] as const;
export type ToolKind = (typeof TOOL_KINDS)[number];
