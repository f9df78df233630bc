/**
 * The person's rules as a list for people (the studio's Rules view, `promptforge rules list`): each
 * rule in words, where it applies, what it decided last, whether its tool is gone, and which other
 * rules it conflicts with (deny > ask > allow). Pure: the caller reads the files and the tools.
 */
import type { Rule, RulesFile, ServerIdentity } from '../../../common/approval-rules.js';
import type { RuleRowInfo } from '../../../common/rules-schemas.js';
import { RULE_ORDER } from './rule-engine.js';
import { globRegExp, serverKey } from './rule-match.js';
import type { RuleUsageFile } from './rule-usage.js';
import { describeRule } from './rule-words.js';

/** A tool of the workspace as the overview matches rules against it. */
export interface OverviewTool {
  alias: string;
  /** How its MCP server is reached, for an MCP tool. */
  server?: ServerIdentity;
}

/** What the overview needs besides the file. */
export interface OverviewContext {
  /** The open workspace's real path; undefined when none is open. */
  workspace?: string;
  /** The workspace's tools (the catalog's and the MCP servers' listed so far); undefined when unknown. */
  tools?: readonly OverviewTool[];
  usage?: RuleUsageFile['rules'];
}

/** Every rule of `file`, in file order, as people see it (see {@link RuleRowInfo}). */
export function rulesOverview(file: RulesFile, context: OverviewContext): RuleRowInfo[] {
  const rules = file.rules ?? [];
  const here = (rule: Rule): boolean =>
    rule.workspace === '*' || (context.workspace !== undefined && rule.workspace === context.workspace);
  return rules.map((rule) => {
    const used = context.usage && Object.hasOwn(context.usage, rule.id) ? context.usage[rule.id] : undefined;
    const missingTool =
      rule.tool !== undefined &&
      here(rule) &&
      context.tools !== undefined &&
      !context.tools.some((tool) => tool.alias === rule.tool)
        ? rule.tool
        : undefined;
    return {
      rule,
      words: describeRule(rule),
      enabled: rule.enabled !== false,
      appliesHere: here(rule),
      ...(used && { lastUsed: { at: used.lastAt, alias: used.lastAlias, count: used.count } }),
      ...(missingTool !== undefined && { missingTool }),
      conflicts: rule.enabled === false ? [] : conflictsOf(rule, rules, context),
    };
  });
}

/**
 * The enabled rules of another decision whose workspace overlaps `rule`'s and that cover a tool it
 * covers (one of the workspace's tools, or the same alias named by both), with which one wins when
 * both match: deny > ask > allow, whatever their order in the file.
 */
function conflictsOf(rule: Rule, rules: readonly Rule[], context: OverviewContext): string[] {
  const out: string[] = [];
  for (const other of rules) {
    if (other === rule || other.enabled === false || other.decision === rule.decision) continue;
    if (rule.workspace !== '*' && other.workspace !== '*' && rule.workspace !== other.workspace) continue;
    const shared =
      rule.tool !== undefined && other.tool === rule.tool
        ? [rule.tool]
        : (context.tools ?? []).filter((tool) => covers(rule, tool) && covers(other, tool)).map((tool) => tool.alias);
    if (shared.length === 0) continue;
    const tools =
      shared.length > 3 ? `${shared.slice(0, 3).join(', ')} and ${shared.length - 3} more` : shared.join(', ');
    const wins = RULE_ORDER.indexOf(rule.decision) < RULE_ORDER.indexOf(other.decision);
    out.push(
      wins
        ? `outranks rule "${other.id}" (${other.decision}) for ${tools} when both match (deny > ask > allow)`
        : `rule "${other.id}" (${other.decision}) outranks it for ${tools} when both match (deny > ask > allow)`,
    );
  }
  return out;
}

/** Whether `rule`'s target (an alias, a glob of aliases or a server) covers `tool`. */
function covers(rule: Rule, tool: OverviewTool): boolean {
  if (rule.tool !== undefined) return rule.tool === tool.alias;
  if (rule.tools !== undefined) return globRegExp(rule.tools).matches(tool.alias);
  if (rule.server !== undefined) return tool.server !== undefined && serverKey(tool.server) === serverKey(rule.server);
  return false;
}

/** An MCP server as people read it: its URL, or the command it runs. */
export function serverWords(server: ServerIdentity): string {
  return 'url' in server ? server.url : server.command.join(' ');
}
