/**
 * What the studio's contract carries about the person's approval rules: the Rules view's listing,
 * the narrowest rule "Always allow…" proposes for a waiting call, a rule in words while it is
 * edited, and the answers of saving, turning on or off and deleting a rule. The rules themselves
 * are common/approval-rules.ts's.
 *
 * @module
 */
import { z } from 'zod';
import { conditionSchema, ruleSchema, serverIdentitySchema } from './approval-rules.js';

/** One thing wrong with the rules file (or a rule being edited): where, and the fix. */
const RulesProblemSchema = z.object({
  line: z.number().int().optional(),
  /** The field, as a path: `rules[2].when[0].pattern` (in a rule being edited: `when[0].pattern`). */
  field: z.string().optional(),
  message: z.string(),
  /** The whole problem as one line: `approval-rules.yaml:12: rules[2].when[0].pattern: ...`. */
  text: z.string(),
});

/** A waiting call (by run and call id). */
export const CallRefSchema = z.strictObject({ runId: z.string().min(1), callId: z.string().min(1) });

/** One rule of the listing. */
const RuleRowSchema = z.object({
  rule: ruleSchema(),
  /** The rule in plain words: what it lets through or stops, where, and what still asks. */
  words: z.string(),
  enabled: z.boolean(),
  /** Whether its workspace is the open one (or every workspace). */
  appliesHere: z.boolean(),
  lastUsed: z.object({ at: z.string(), alias: z.string(), count: z.number().int() }).optional(),
  /** The one tool it names, when the open workspace no longer has it (then it matches nothing here). */
  missingTool: z.string().optional(),
  /** Other rules covering the same tools with another decision, naming which wins (deny > ask > allow). */
  conflicts: z.array(z.string()),
});

/**
 * The person's rules as the Rules view shows them (`rules:list`, `rules-changed`). `state`: `ok`
 * (they apply), `missing` (no file yet: no rule), `broken` (malformed or from a newer version: no
 * rule applies and every call asks; `problems` say where and how to fix it), `ignored` (not the
 * person's file, or inside the workspace: no rule applies; `warnings` say why).
 */
export const RulesListingSchema = z.object({
  file: z.string(),
  state: z.enum(['ok', 'missing', 'broken', 'ignored']),
  /** The file's sha256 ('' without one): an edit sends it back, and is refused if the file changed since. */
  revision: z.string(),
  problems: z.array(RulesProblemSchema),
  /** Rules files that are ignored and why (the workspace's own, a foreign or linked file). */
  warnings: z.array(z.string()),
  rules: z.array(RuleRowSchema),
  /** The MCP servers the person trusts to describe their tools truthfully (their annotations count), in words. */
  trustedServers: z.array(z.string()),
  /** The open workspace's real path, as a rule for "this workspace" names it; null when none is open. */
  workspace: z.string().nullable(),
});

/** What "Always allow…" proposes for a waiting call (`rules:propose`). */
export const RuleProposalSchema = z.object({
  /** The narrowest rule: this tool, these argument values, this workspace, this definition. */
  rule: ruleSchema(),
  /** Ways to widen one argument's condition the core found (a URL's host, a path's folder). */
  suggestions: z.array(z.object({ pointer: z.string(), label: z.string(), condition: conditionSchema() })),
  /** The tool's MCP server, for a rule covering every tool of it; absent for another tool. */
  server: z.object({ identity: serverIdentitySchema(), words: z.string() }).optional(),
  /** The open workspace's real path (what "this workspace" means). */
  workspace: z.string().nullable(),
});

/**
 * A rule in words while it is edited (`rules:describe`): what it will let through, what still asks,
 * its problems (then it cannot be saved), and, with a waiting call, whether it covers that call.
 */
export const RuleWordsSchema = z.object({
  /** Sentences: the rule, then what still asks. */
  words: z.array(z.string()),
  problems: z.array(RulesProblemSchema),
  /** With a call: whether saving the rule runs it now (it matches, and carries no untrusted text), and why not. */
  call: z.object({ covered: z.boolean(), why: z.string() }).optional(),
});

/** A rule as the studio sends it to be saved: main adds the definitions it is confirmed on and when it was made. */
export const RuleDraftSchema = ruleSchema().omit({ confirmed: true, createdAt: true });

export type RulesProblemInfo = z.infer<typeof RulesProblemSchema>;
export type RuleRowInfo = z.infer<typeof RuleRowSchema>;
export type RulesListing = z.infer<typeof RulesListingSchema>;
export type RuleProposal = z.infer<typeof RuleProposalSchema>;
export type RuleWords = z.infer<typeof RuleWordsSchema>;
export type RuleDraft = z.infer<typeof RuleDraftSchema>;
export type CallRef = z.infer<typeof CallRefSchema>;
