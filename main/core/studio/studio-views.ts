/** How the studio shows core objects to the renderer: the workspace, a catalog tool, a call waiting for a person. */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { PendingApproval, WorkspaceState } from '../../../common/studio-schemas.js';
import type { PendingCall } from '../approval/approver.js';
import { RECORDINGS_DIR, recordingPathFor } from '../catalog/recording-path.js';
import { RUNS_DIR, type Workspace } from '../catalog/workspace.js';
import { listRuns } from '../transcript/run-history.js';
import type { McpServerManager } from '../mcp/mcp-manager.js';
import type { ToolSpec } from '../tools/tool-spec.js';

/** One tool as the workspace description lists it. */
export function toToolInfo(tool: ToolSpec): WorkspaceState['tools'][number] {
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
  };
}

export function toPendingApproval(
  call: PendingCall,
  workspace: Workspace | undefined,
  mcp?: McpServerManager,
): PendingApproval {
  const { request } = call;
  return {
    runId: request.runId,
    callId: request.callId,
    alias: request.alias,
    description: request.description,
    arguments: request.arguments,
    parameters: workspace?.tools.get(request.alias)?.parameters ??
      mcp?.currentTools().find((tool) => tool.alias === request.alias)?.parameters ?? { type: 'object' },
    reason: call.reason,
    taint: request.taint,
    askedAt: call.askedAt,
    ...(call.rejectedEdit !== undefined && { rejectedEdit: call.rejectedEdit }),
    ...(call.definitionChange && { definitionChange: call.definitionChange }),
    taintCheck: call.taintCheck,
  };
}

/** The open workspace as the renderer sees it: agents, recordings, tools (the MCP servers' too), models, runs. */
export function describeWorkspace(ws: Workspace, mcp: McpServerManager | undefined): WorkspaceState {
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
    tools: [...ws.tools.list(), ...(mcp?.currentTools() ?? [])].map(toToolInfo),
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
