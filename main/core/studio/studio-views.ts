/** How the studio shows core objects to the renderer: a catalog tool, a call waiting for a person. */
import type { PendingApproval, WorkspaceState } from '../../../common/studio-schemas.js';
import type { PendingCall } from '../approval/approver.js';
import type { Workspace } from '../catalog/workspace.js';
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
