/** How the studio shows core objects to the renderer: the workspace, a catalog tool, a call waiting for a person. */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { MCP_ANNOTATIONS } from '../../../common/approval-rules.js';
import type { JsonObject } from '../../../common/json.js';
import type { PendingApproval, ToolAnnotations, WorkspaceState } from '../../../common/studio-schemas.js';
import type { PendingCall } from '../approval/approver.js';
import { RECORDINGS_DIR, recordingPathFor } from '../catalog/recording-path.js';
import { RUNS_DIR, type Workspace } from '../catalog/workspace.js';
import { listRuns } from '../transcript/run-history.js';
import type { McpServerManager } from '../mcp/mcp-manager.js';
import type { ToolSpec } from '../tools/tool-spec.js';

/**
 * Whether the person listed an MCP tool's server under `trustedServers` in their rules file
 * (undefined for a tool of no MCP server): see StudioRules.serverTrusted.
 */
export type ServerTrustedForRules = (tool: ToolSpec) => boolean | undefined;

/** The four MCP hints of `annotations` that are booleans (anything else a server sends is left out). */
function annotationHints(annotations: JsonObject | undefined): ToolAnnotations | undefined {
  if (annotations === undefined) return undefined;
  const hints: ToolAnnotations = {};
  for (const name of MCP_ANNOTATIONS) {
    const value = Object.hasOwn(annotations, name) ? annotations[name] : undefined;
    if (typeof value === 'boolean') hints[name] = value;
  }
  return Object.keys(hints).length > 0 ? hints : undefined;
}

/** A tool's annotation fields on the wire: the server's hints, and whether the person trusts that server for rules. */
function annotationInfo(
  tool: ToolSpec | undefined,
  trusted: ServerTrustedForRules | undefined,
): Pick<PendingApproval, 'annotations' | 'annotationsTrusted'> {
  if (tool === undefined) return {};
  const hints = annotationHints(tool.annotations);
  const trustedForRules = trusted?.(tool);
  return {
    ...(hints && { annotations: hints }),
    ...(trustedForRules !== undefined && { annotationsTrusted: trustedForRules }),
  };
}

/** One tool as the workspace description lists it. */
export function toToolInfo(tool: ToolSpec, trusted?: ServerTrustedForRules): WorkspaceState['tools'][number] {
  return {
    alias: tool.alias,
    description: tool.description,
    kind: tool.settings.kind,
    trust: tool.trust,
    approval: tool.approval,
    taintCheck: tool.taintCheck,
    parameters: tool.parameters,
    structured: tool.outputSchema !== undefined,
    source: tool.source,
    ...annotationInfo(tool, trusted),
  };
}

/**
 * A call waiting for a person as its card shows it: the call, why it asks (the tool's policy, taint,
 * a rule), its sinks, and what the tool's MCP server claims about it.
 */
export function toPendingApproval(
  call: PendingCall,
  workspace: Workspace | undefined,
  mcp?: McpServerManager,
  trusted?: ServerTrustedForRules,
): PendingApproval {
  const { request } = call;
  const tool = workspace?.tools.get(request.alias) ?? mcp?.currentTools().find((spec) => spec.alias === request.alias);
  const hints = annotationHints(call.annotations);
  const trustedForRules = tool && trusted?.(tool);
  return {
    runId: request.runId,
    callId: request.callId,
    alias: request.alias,
    description: request.description,
    arguments: request.arguments,
    parameters: tool?.parameters ?? { type: 'object' },
    reason: call.reason,
    taint: request.taint,
    askedAt: call.askedAt,
    ...(call.rejectedEdit !== undefined && { rejectedEdit: call.rejectedEdit }),
    ...(call.definitionChange && { definitionChange: call.definitionChange }),
    taintCheck: call.taintCheck,
    ...(call.rule && {
      rule: {
        ...(call.rule.ruleId !== undefined && { ruleId: call.rule.ruleId }),
        text: call.rule.text,
        ...(call.rule.unconfirmed && { unconfirmed: true }),
        ...(call.rule.changes && { changes: call.rule.changes }),
      },
    }),
    ...(call.sinks && call.sinks.length > 0 && { sinks: call.sinks }),
    // The hints the card shows are those of the definition the call is asked under (the gate's).
    ...(hints && { annotations: hints }),
    ...(trustedForRules !== undefined && { annotationsTrusted: trustedForRules }),
  };
}

/** The open workspace as the renderer sees it: agents, recordings, tools (the MCP servers' too), models, runs. */
export function describeWorkspace(
  ws: Workspace,
  mcp: McpServerManager | undefined,
  trusted?: ServerTrustedForRules,
): Omit<WorkspaceState, 'agentModels' | 'modelChoicesProblem'> {
  const recordings: Record<string, string> = {};
  const recordingsDir = path.join(ws.root, RECORDINGS_DIR);
  const available = existsSync(recordingsDir) ? new Set(readdirSync(recordingsDir)) : new Set<string>();
  for (const agent of ws.agents) {
    const recording = recordingPathFor(agent);
    if (available.has(path.posix.basename(recording))) recordings[agent] = path.join(...recording.split('/'));
  }
  return {
    root: ws.root,
    name: path.basename(ws.root),
    agents: ws.agents,
    // The catalog's tools, then the MCP servers' tools as last listed (explorer tags, completion).
    tools: [...ws.tools.list(), ...(mcp?.currentTools() ?? [])].map((tool) => toToolInfo(tool, trusted)),
    models: ws.models.list().map((model) => ({
      alias: model.alias,
      provider: model.provider,
      model: model.model,
      ...(model.price && { price: model.price }),
    })),
    defaultModel: ws.settings.defaultModel ?? null,
    // Transcripts the history skipped or could read only in part are reported with the rest.
    ...((problems) => ({ runs: listRuns(ws.root, RUNS_DIR, problems), problems }))([...ws.problems]),
    recordings,
  };
}
