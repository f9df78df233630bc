/**
 * Which approval rule decides a call, and why (docs/catalogs.md, "Approval rules"): deny rules
 * first, then ask rules, then allow rules, each group in file order; an allow rule counts only on a
 * tool definition a person confirmed it on. Also collects the call's argument markings (sinks,
 * tolerant) from the rules file. Pure: the gate applies the taint checks and asks.
 */
import type { ArgumentMarks, Marking, Rule, RuleMatch, RuleVerdict } from '../../../common/approval-rules.js';
import type { RuleCall, RuleSet } from './rule-match.js';

export type { RuleVerdict } from '../../../common/approval-rules.js';

/** The order in which rule decisions win; docs/catalogs.md and `rules test` say the same. */
export const RULE_ORDER = ['deny', 'ask', 'allow'] as const;

/** What the rules say about `call` (see {@link RuleVerdict}). */
export function evaluateRules(
  set: RuleSet,
  call: RuleCall,
  toolMarks?: { sinks?: string[]; tolerant?: string[] },
): RuleVerdict {
  const considered = set.rulesFor(call);
  const matched = considered.filter((match) => match.matched);
  const markings: Marking[] = set.markingsFor(call);
  const sinks = new Set<string>([...(toolMarks?.sinks ?? []), ...markings.flatMap((m) => m.sinks ?? [])]);
  // A rule's sinks count whenever it covers the call (stricter is always allowed).
  for (const match of considered) for (const sink of match.entry.sinks ?? []) sinks.add(sink);
  const tolerant = new Set<string>([...(toolMarks?.tolerant ?? []), ...markings.flatMap((m) => m.tolerant ?? [])]);
  const marks = (rule?: Rule): ArgumentMarks => ({
    sinks: [...sinks],
    tolerant: [...new Set([...tolerant, ...(rule?.tolerant ?? [])])],
    allowTainted: rule?.decision === 'allow' ? [...(rule.allowTainted ?? [])] : [],
  });

  for (const decision of ['deny', 'ask'] as const) {
    const rule = matched.find((match) => match.entry.decision === decision)?.entry;
    if (rule)
      return {
        outcome: decision,
        rule,
        considered,
        marks: marks(),
        note: { ruleId: rule.id, text: `rule "${rule.id}" (${decision}) matched${others(matched, rule)}` },
      };
  }
  const allows = matched.filter((match) => match.entry.decision === 'allow').map((match) => match.entry);
  const confirmedRule = allows.find((rule) => isConfirmed(rule, call));
  if (confirmedRule)
    return {
      outcome: 'allow',
      rule: confirmedRule,
      considered,
      marks: marks(confirmedRule),
      note: {
        ruleId: confirmedRule.id,
        text: `rule "${confirmedRule.id}" (allow) matched${others(matched, confirmedRule)}`,
      },
    };
  const unconfirmed = allows[0];
  if (unconfirmed) {
    const confirmedOn = unconfirmed.confirmed ?? [];
    const sameAlias = confirmedOn.filter((known) => known.alias === call.alias);
    const what =
      call.digest === undefined
        ? "the tool is not in this run's catalog, so its definition cannot be checked"
        : sameAlias.length > 0
          ? `tool "${call.alias}" changed since you confirmed the rule on it (definition ${short(sameAlias.at(-1)!.digest)}, now ${short(call.digest)})`
          : confirmedOn.length > 0
            ? `tool "${call.alias}" is new to this rule (you confirmed it on ${confirmedOn.map((known) => `"${known.alias}"`).join(', ')} only)`
            : `you have not yet confirmed the rule on tool "${call.alias}" as it is defined now`;
    return {
      outcome: 'none',
      unconfirmed,
      considered,
      marks: marks(),
      note: {
        ruleId: unconfirmed.id,
        text: `rule "${unconfirmed.id}" (allow) would have applied, but ${what}; saying yes here confirms it on this definition`,
        ...(call.digest !== undefined && { unconfirmed: { alias: call.alias, digest: call.digest, confirmedOn } }),
      },
    };
  }
  const near = considered.filter((match) => !match.matched);
  return {
    outcome: 'none',
    considered,
    marks: marks(),
    note: {
      text:
        near.length === 0
          ? 'no rule covers this tool here'
          : `no rule matched: ${near.map((match) => `rule "${match.entry.id}" (${failedConditions(match).join('; ')})`).join(', ')}`,
    },
  };
}

/** Whether an allow rule was confirmed on the call's tool definition. */
function isConfirmed(rule: Rule, call: RuleCall): boolean {
  return call.digest !== undefined && (rule.confirmed ?? []).some((known) => known.digest === call.digest);
}

/** The conditions of a match that did not hold, in words. */
export function failedConditions(match: RuleMatch): string[] {
  const failClosed = match.entry.decision !== 'allow';
  return match.conditions
    .filter((result) => result.outcome === 'not-met' || (!failClosed && result.outcome === 'unknown'))
    .map((result) => `${result.condition}: no, ${result.why ?? 'it does not hold'}`);
}

function others(matched: RuleMatch[], winner: Rule): string {
  const rest = matched.filter((match) => match.entry !== winner);
  if (rest.length === 0) return '';
  return `; it outranks ${rest.map((match) => `"${match.entry.id}" (${match.entry.decision})`).join(', ')} (deny > ask > allow, then file order)`;
}

function short(digest: string): string {
  return `sha256:${digest.slice(0, 12)}`;
}

/** One line per rule for `rules test` and the studio's "why": every rule considered and how it came out. */
export function explainVerdict(verdict: RuleVerdict, call: RuleCall): string[] {
  const lines: string[] = [];
  for (const match of verdict.considered) {
    const rule = match.entry;
    const deciding = verdict.rule === rule;
    const state = deciding
      ? 'DECIDES'
      : verdict.unconfirmed === rule
        ? 'matched, not confirmed on this definition'
        : match.matched
          ? rule.decision === 'allow' && !isConfirmed(rule, call)
            ? 'matched, not confirmed on this definition'
            : 'matched, outranked'
          : 'did not match';
    lines.push(`rule "${rule.id}" (${rule.decision}): ${state}`);
    for (const result of match.conditions)
      lines.push(
        `  ${result.outcome === 'met' ? 'yes' : result.outcome === 'unknown' ? 'unknown' : 'no '}  ${result.condition}${result.why ? ` (${result.why})` : ''}`,
      );
  }
  if (verdict.considered.length === 0) lines.push('no rule covers this tool in this workspace');
  return lines;
}
