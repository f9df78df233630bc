// A waiting call as the person's rules see it in the studio: its tool, server and workspace, whether a rule covers it, and the rule a save writes for it.
import { realpathSync } from 'node:fs';
import type { Confirmation, Rule, ServerIdentity } from '../../../common/approval-rules.js';
import type { RuleDraft } from '../../../common/rules-schemas.js';
import type { PendingCall } from '../approval/approver.js';
import { failedConditions } from '../rules/rule-engine.js';
import { RuleSet, serverIdentity, type RuleCall } from '../rules/rule-match.js';
import type { ToolSpec } from '../tools/tool-spec.js';
import type { StudioRulesHost } from './studio-rules.js';

/** What the rules' view of a call reads of the studio: the open workspace and the MCP servers' tools. */
export type RuleCallHost = Pick<StudioRulesHost, 'workspace' | 'mcpTools'>;

/**
 * The rule to save: `draft`, confirmed on the definitions `existing` (the rule it replaces) was
 * confirmed on and on the one waiting call `pending`'s card showed (main's knowledge, never the
 * page's), and dated.
 */
export function completedRule(draft: RuleDraft, pending: PendingCall | undefined, existing: Rule | undefined): Rule {
  const confirmed: Confirmation[] = [...(existing?.confirmed ?? [])];
  const digest = pending?.request.definitionDigest;
  if (
    draft.decision === 'allow' &&
    pending &&
    digest !== undefined &&
    !confirmed.some((known) => known.digest === digest)
  )
    confirmed.push({ alias: pending.request.alias, digest, at: new Date().toISOString() });
  return {
    ...draft,
    ...(draft.decision === 'allow' && confirmed.length > 0 && { confirmed }),
    createdAt: existing?.createdAt ?? new Date().toISOString(),
  };
}

/** Whether saving `rule` runs waiting call `pending`: the rule matches it, and it carries no untrusted text. */
export function ruleCoverage(rule: Rule, pending: PendingCall, host: RuleCallHost): { covered: boolean; why: string } {
  if (rule.decision !== 'allow')
    return { covered: false, why: `An ${rule.decision} rule never runs a call: the call stays waiting for you.` };
  const call = ruleCallOf(pending, host);
  const match = new RuleSet({ version: 1, rules: [{ ...rule, enabled: true }] }).rulesFor(call)[0];
  if (!match)
    return {
      covered: false,
      why: `The rule does not cover "${call.alias}" in this workspace, so the call stays waiting for you.`,
    };
  if (!match.matched)
    return {
      covered: false,
      why: `The rule does not cover this call (${failedConditions(match).join('; ')}), so it stays waiting for you.`,
    };
  if (pending.request.taint.length > 0)
    return {
      covered: false,
      why: 'This call carries untrusted text, which the rule does not let through: decide it on its card.',
    };
  return { covered: true, why: 'The rule covers this call: saving it runs the call now.' };
}

/** A waiting call as the rules see it: in the open workspace, under the definition its card shows. */
export function ruleCallOf(pending: PendingCall, host: RuleCallHost): RuleCall {
  const { request } = pending;
  const ws = host.workspace();
  const real = ws ? realPathOf(ws.root) : undefined;
  const spec = toolSpecOf(request.alias, host);
  const server = spec && toolServer(spec, host);
  return {
    alias: request.alias,
    arguments: request.arguments,
    ...(real !== undefined && { workspace: real }),
    ...(spec && { definition: spec }),
    ...(request.definitionDigest !== undefined && { digest: request.definitionDigest }),
    ...(server && { server }),
  };
}

/** The open workspace's tool `alias`, or an MCP server's. */
export function toolSpecOf(alias: string, host: RuleCallHost): ToolSpec | undefined {
  return host.workspace()?.tools.get(alias) ?? host.mcpTools().find((tool) => tool.alias === alias);
}

/** How an MCP tool's server is reached, as rules name it (the run's gate does the same). */
export function toolServer(tool: ToolSpec, host: RuleCallHost): ServerIdentity | undefined {
  if (tool.settings.kind !== 'mcp') return undefined;
  const ws = host.workspace();
  const name = tool.settings.server;
  const server = ws?.mcpServers?.find((candidate) => candidate.name === name);
  return server && ws ? serverIdentity(server.transport, realPathOf(ws.root)) : undefined;
}

/** `folder` with its links resolved, or as given when it cannot be. */
export function realPathOf(folder: string): string {
  try {
    return realpathSync.native(folder);
  } catch {
    return folder;
  }
}
