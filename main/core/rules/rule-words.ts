/**
 * Rules for people: the narrowest rule covering one call (what "Always allow…" proposes), the ways
 * to widen it, a rule in plain words, and which rule decides a call and why. Pure functions, for
 * the studio's card and Rules view and for `promptforge rules`.
 */
import path from 'node:path';
import type { Condition, Rule, RulesFile } from '../../../common/approval-rules.js';
import type { JsonValue } from '../../../common/json.js';
import { escapePointerSegment } from '../../../common/json-pointer.js';
import { evaluateRules, explainVerdict, type RuleVerdict } from './rule-engine.js';
import { conditionWords, RuleSet, type RuleCall } from './rule-match.js';

/** A rule id made from an alias and a time: `allow-send_money-20261204t2015`. */
export function ruleIdFor(alias: string, at: Date): string {
  const stamp = at.toISOString().replace(/[-:]/g, '').slice(0, 13).toLowerCase();
  const safe = alias.replace(/[^A-Za-z0-9_.-]+/g, '-').slice(0, 40);
  return `allow-${safe || 'tool'}-${stamp}`;
}

/**
 * The narrowest allow rule covering `call`: this tool, in this workspace, with each argument equal
 * to the value it has now, confirmed on this definition of the tool (when the call has one).
 */
export function narrowestRuleFor(call: RuleCall, options: { id?: string; now?: Date } = {}): Rule {
  const now = options.now ?? new Date();
  const when: Condition[] = Object.entries(call.arguments).map(([key, value]) => ({
    pointer: `/${escapePointerSegment(key)}`,
    equals: value,
  }));
  return {
    id: options.id ?? ruleIdFor(call.alias, now),
    decision: 'allow',
    workspace: call.workspace ?? '*',
    tool: call.alias,
    ...(when.length > 0 && { when }),
    ...(call.digest !== undefined && {
      confirmed: [{ alias: call.alias, digest: call.digest, at: now.toISOString() }],
    }),
    createdAt: now.toISOString(),
  };
}

/** One way to widen a rule, for the card's "Always allow…" choices. */
export interface Widening {
  /** What it lets through beyond the rule, in words. */
  label: string;
  rule: Rule;
}

/**
 * The ways to widen `rule` (as made by {@link narrowestRuleFor}) one step: any value of one
 * argument, a path argument anywhere in its folder, a URL argument anywhere on its host, every
 * workspace. Each keeps the rest of the rule, and the definition binding.
 */
export function widen(rule: Rule, call: RuleCall): Widening[] {
  const out: Widening[] = [];
  const conditions = rule.when ?? [];
  conditions.forEach((condition, index) => {
    const others = conditions.filter((_, i) => i !== index);
    const withWhen = (replacement?: Condition): Rule => {
      const when = replacement ? [...others.slice(0, index), replacement, ...others.slice(index)] : others;
      const { when: _old, ...rest } = rule;
      return when.length > 0 ? { ...rest, when } : rest;
    };
    const where = condition.pointer;
    out.push({ label: `any value of ${where}`, rule: withWhen() });
    const value = condition.equals as JsonValue | undefined;
    if (typeof value !== 'string') return;
    const host = urlHostOf(value);
    if (host !== undefined)
      out.push({ label: `any ${where} on ${host}`, rule: withWhen({ pointer: where, urlHost: [host] }) });
    else if (call.workspace !== undefined && looksLikePath(value)) {
      const folder = path.posix.dirname(value.replaceAll('\\', '/'));
      if (folder !== '.' && folder !== '/' && !folder.startsWith('..'))
        out.push({ label: `any ${where} inside ${folder}/`, rule: withWhen({ pointer: where, inFolder: folder }) });
    }
  });
  if (rule.workspace !== '*') out.push({ label: 'in every workspace', rule: { ...rule, workspace: '*' } });
  return out;
}

function urlHostOf(value: string): string | undefined {
  if (!/^https?:\/\//i.test(value)) return undefined;
  try {
    const url = new URL(value);
    return url.username || url.password ? undefined : url.host;
  } catch {
    return undefined;
  }
}

function looksLikePath(value: string): boolean {
  return value.length < 1024 && /[/\\]/.test(value) && !/^[a-z][a-z0-9+.-]*:/i.test(value);
}

/** `rule` in plain words: what it lets through (or stops), where, and what still asks. */
export function describeRule(rule: Rule): string {
  const verb = rule.decision === 'allow' ? 'Allows' : rule.decision === 'ask' ? 'Always asks about' : 'Denies';
  const target =
    rule.tool !== undefined
      ? `calls of tool "${rule.tool}"`
      : rule.tools !== undefined
        ? `calls of every tool whose alias matches ${JSON.stringify(rule.tools)}`
        : rule.server && 'url' in rule.server
          ? `calls of every tool of the MCP server at ${rule.server.url}`
          : `calls of every tool of the MCP server run as \`${rule.server?.command.join(' ')}\``;
  const where = rule.workspace === '*' ? 'in every workspace' : `in the workspace ${rule.workspace}`;
  const conditions = [
    ...(rule.when ?? []).map(conditionWords),
    ...Object.entries(rule.annotations ?? {}).map(
      ([name, value]) => `the server (which you trust) says ${name} is ${String(value)}`,
    ),
  ];
  const parts = [`${verb} ${target} ${where}`];
  parts[0] += conditions.length === 0 ? ', whatever the arguments' : ` when ${conditions.join(' and ')}`;
  if (rule.decision === 'allow') {
    const count = rule.confirmed?.length ?? 0;
    parts.push(
      count === 0
        ? 'It covers no tool definition yet: the first call asks once, and your yes confirms it'
        : `It covers only the tool definition${count === 1 ? '' : 's'} you confirmed (${count}); a new or changed tool asks once first`,
    );
    parts.push(
      rule.allowTainted?.length
        ? `Calls whose arguments carry untrusted text still ask, except in ${rule.allowTainted.join(', ')}, which you let through`
        : 'Calls whose arguments carry untrusted text still ask' +
            (rule.tolerant?.length ? ` (except in ${rule.tolerant.join(', ')}, where it is expected)` : ''),
    );
  }
  if (rule.sinks?.length) parts.push(`${rule.sinks.join(', ')} ask on any untrusted text (sinks)`);
  if (rule.enabled === false) parts.push('It is turned off');
  return `${parts.join('. ')}.`;
}

/** Which rule decides `call`, every rule that matched or nearly did, and why, in lines. */
export function explainDecision(
  file: RulesFile,
  call: RuleCall,
  toolMarks?: { sinks?: string[]; tolerant?: string[] },
): { verdict: RuleVerdict; lines: string[] } {
  const verdict = evaluateRules(new RuleSet(file), call, toolMarks);
  const lines = explainVerdict(verdict, call);
  const decided =
    verdict.outcome === 'none'
      ? verdict.unconfirmed
        ? `no rule decides yet: ${verdict.note.text}`
        : "no rule decides: the tool's own policy and the taint rule do (then the approver answers what still asks)"
      : `rule "${verdict.rule!.id}" decides: ${verdict.outcome}${verdict.outcome === 'allow' ? ' (unless a sink, or a non-tolerant argument, carries untrusted text: then it asks)' : ''}`;
  return { verdict, lines: [...lines, decided] };
}
