/**
 * The approval rules file (docs/catalogs.md, "Approval rules"): rules a person makes once, kept in
 * the user's config folder, never in a workspace. One definition for the core (main/core/rules),
 * the CLI (`promptforge rules`), the studio and the published JSON Schema
 * (schemas/approval-rules.schema.json, written by `npm run schemas`).
 *
 * @module
 */
import { z } from 'zod';
import { lazy } from './lazy.js';

/** The version this build reads and writes. A file with a higher one is refused (everything asks). */
export const RULES_FILE_VERSION = 1;

/** The file's name in the config folder. */
export const RULES_FILE_NAME = 'approval-rules.yaml';

/** What a rule does with a call it matches. */
const RULE_DECISIONS = ['allow', 'ask', 'deny'] as const;

/** The MCP tool annotations a rule may test (for servers the person trusts only). */
export const MCP_ANNOTATIONS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

/**
 * The file's definitions, built on first use: a run reads them only when the person has a rules
 * file (or a command works with rules).
 */
const rulesSchemas = lazy(() => {
  const json: z.ZodType<unknown> = z.unknown();

  /** A JSON pointer into the call's arguments: `` (the whole object) or `/a/b`. */
  const pointer = z
    .string()
    .regex(/^(\/.*)?$/)
    .meta({ description: 'A JSON pointer into the arguments: "/to", "/message/body", or "" for all of them.' });
  /** An optional list of argument pointers, with what the list means. */
  const pointers = (description: string) => z.array(pointer).optional().meta({ description });

  /**
   * An MCP server, by how it is reached: the command and its arguments (a stdio server; a command
   * with a slash is resolved against the workspace root), or the URL (a Streamable HTTP server).
   */
  const ServerIdentitySchema = z.union([
    z.strictObject({
      command: z.array(z.string()).min(1).meta({ description: 'argv: the command, then its arguments.' }),
    }),
    z.strictObject({ url: z.string().min(1).meta({ description: "The server's URL." }) }),
  ]);

  /** One condition on an argument. Exactly one test besides `pointer`. */
  const ConditionSchema = z
    .strictObject({
      pointer,
      equals: json.optional().meta({ description: 'The value equals this JSON value.' }),
      oneOf: z.array(json).optional().meta({ description: 'The value equals one of these.' }),
      glob: z
        .string()
        .optional()
        .meta({ description: 'A string matching this glob: `*` any run of characters, `?` one character.' }),
      pattern: z.string().optional().meta({
        description:
          'A string wholly matching this regular expression, run on RE2 (linear time: no backreferences or lookaround).',
      }),
      inFolder: z.string().optional().meta({
        description:
          'A path (relative to the workspace, or absolute) whose real path, symbolic links followed, is inside this folder of the workspace.',
      }),
      urlHost: z.array(z.string().min(1)).min(1).optional().meta({
        description:
          'A URL (http or https) whose host is one of these (`*.example.com` covers subdomains only), compared after IDN and trailing-dot normalisation; a URL with user info never matches.',
      }),
    })
    .meta({ description: 'A condition on one argument, by JSON pointer.' });

  /** A definition of a tool a person confirmed a rule on. */
  const ConfirmationSchema = z.strictObject({
    alias: z.string(),
    digest: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .meta({ description: "The tool definition's sha256 (toolDefinitionDigest)." }),
    at: z.string(),
  });

  const targetFields = {
    workspace: z.string().min(1).meta({
      description: 'The real path of the workspace the entry applies to, or "*" for every workspace.',
    }),
    tool: z.string().min(1).optional().meta({ description: 'One tool alias.' }),
    tools: z.string().min(1).optional().meta({ description: 'A glob of tool aliases, e.g. "mail.*".' }),
    server: ServerIdentitySchema.optional().meta({ description: 'Every tool of this MCP server.' }),
  };

  const argumentMarks = {
    sinks: pointers(
      'Arguments (by JSON pointer) that send, address or run something: recipient, URL, path, command. A sink that carries any untrusted text (8 characters, or a short output whole) asks.',
    ),
    tolerant: pointers(
      'Arguments where untrusted text is expected (a summary that may quote a page): taint there does not force approval. Sinks stay sinks.',
    ),
  };

  /** One rule. */
  const RuleSchema = z
    .strictObject({
      id: z
        .string()
        .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/)
        .meta({ description: 'A name for the rule, unique in the file.' }),
      decision: z.enum(RULE_DECISIONS),
      enabled: z.boolean().optional().meta({ description: 'Default true.' }),
      note: z.string().optional(),
      ...targetFields,
      when: z.array(ConditionSchema).optional().meta({ description: 'Every condition must hold.' }),
      annotations: z
        .strictObject(Object.fromEntries(MCP_ANNOTATIONS.map((name) => [name, z.boolean().optional()])))
        .optional()
        .meta({
          description:
            "Conditions on the MCP tool's annotations; they hold only for a server listed under trustedServers.",
        }),
      ...argumentMarks,
      allowTainted: pointers(
        'Sinks this allow rule lets through even when they carry untrusted text. Nothing else does: without it a tainted sink asks.',
      ),
      confirmed: z.array(ConfirmationSchema).optional().meta({
        description:
          'The tool definitions a person confirmed the rule on. An allow rule matches only these; a call under any other definition asks once, and a person saying yes adds it.',
      }),
      createdAt: z.string().optional(),
    })
    .meta({ description: 'A rule: allow, ask or deny the calls it matches.' });

  /** Argument markings without a decision. */
  const MarkingSchema = z
    .strictObject({ id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/), ...targetFields, ...argumentMarks })
    .meta({ description: "Sink and tolerant markings for a tool's arguments; they decide nothing by themselves." });

  /** A server the person trusts to describe its tools truthfully (its annotations then count). */
  const TrustedServerSchema = z.strictObject({
    server: ServerIdentitySchema,
    note: z.string().optional(),
  });

  /** The whole file. */
  const RulesFileSchema = z
    .strictObject({
      version: z
        .number()
        .int()
        .min(1)
        .meta({ description: `The file format's version: ${RULES_FILE_VERSION}.` }),
      trustedServers: z.array(TrustedServerSchema).optional(),
      markings: z.array(MarkingSchema).optional(),
      rules: z.array(RuleSchema).optional(),
    })
    .meta({ description: "PromptForge approval rules: kept in the user's config folder, never in a workspace." });

  return { ServerIdentitySchema, ConditionSchema, ConfirmationSchema, RuleSchema, MarkingSchema, RulesFileSchema };
});

/** An MCP server, by how it is reached. */
export const serverIdentitySchema = () => rulesSchemas().ServerIdentitySchema;
/** One condition on an argument. */
export const conditionSchema = () => rulesSchemas().ConditionSchema;
/** One rule. */
export const ruleSchema = () => rulesSchemas().RuleSchema;
/** The whole file. */
export const rulesFileSchema = () => rulesSchemas().RulesFileSchema;

export type ServerIdentity = z.infer<ReturnType<typeof rulesSchemas>['ServerIdentitySchema']>;
export type Condition = z.infer<ReturnType<typeof rulesSchemas>['ConditionSchema']>;
export type Confirmation = z.infer<ReturnType<typeof rulesSchemas>['ConfirmationSchema']>;
export type Rule = z.infer<ReturnType<typeof rulesSchemas>['RuleSchema']>;
export type Marking = z.infer<ReturnType<typeof rulesSchemas>['MarkingSchema']>;
export type RulesFile = z.infer<ReturnType<typeof rulesSchemas>['RulesFileSchema']>;

/** The tests a condition may hold (one each). */
export const CONDITION_TESTS = ['equals', 'oneOf', 'glob', 'pattern', 'inFolder', 'urlHost'] as const;

/**
 * What made a decision, for the card, the terminal, `--json` and the transcript: a rule (by id),
 * the tool's policy, the taint rule, "allow for this run", the approver (a person or
 * `--approve`), or the run ending.
 */
export const DECIDED_BY = ['rule', 'policy', 'allowed-for-run', 'approver', 'cancelled'] as const;
export type DecidedBy = (typeof DECIDED_BY)[number];

/**
 * Why a rule did not decide a call on its own although it matched, or why none applied: for the
 * card ("the rule would have applied, but ...") and the transcript.
 */
export interface RuleNote {
  /** The rule that matched (or would have), if any. */
  ruleId?: string;
  /** One sentence. */
  text: string;
  /** Set when an allow rule matched but was never confirmed on this tool definition. */
  unconfirmed?: { alias: string; digest: string; confirmedOn: Confirmation[] };
  /** What changed in the tool since the definition the rule was confirmed on, one sentence each. */
  changes?: string[];
}

/** How a condition came out: `unknown` when it could not be decided (a value too long for its pattern). */
export type ConditionOutcome = 'met' | 'not-met' | 'unknown';

/** One condition's outcome, in words. */
export interface ConditionResult {
  condition: string;
  outcome: ConditionOutcome;
  why?: string;
}

/** A rule (or marking) whose workspace and target cover a call, with how its conditions came out. */
export interface RuleMatch<T extends Rule | Marking = Rule> {
  entry: T;
  /** Index in the file's list. */
  index: number;
  conditions: ConditionResult[];
  /**
   * Whether the rule matches: every condition met. For a deny or ask rule an `unknown` condition
   * counts as met (fail closed); for an allow rule it counts as not met.
   */
  matched: boolean;
}

/** A call's argument markings, and where they came from. */
export interface ArgumentMarks {
  /** Sink pointers, from the rules file, the rules that cover the call and the tool's own definition. */
  sinks: string[];
  /** Tolerant pointers, from a person only: markings, the deciding allow rule, a trusted workspace's tools.yaml. */
  tolerant: string[];
  /** Sinks the deciding allow rule lets through even when tainted. */
  allowTainted: string[];
}

/** What the rules say about one call (main/core/rules/rule-engine.ts). */
export interface RuleVerdict {
  /** `none`: no rule decides (markings may still apply). */
  outcome: 'deny' | 'ask' | 'allow' | 'none';
  /** The deciding rule. */
  rule?: Rule;
  /**
   * An allow rule that matched but does not decide, because it was never confirmed on this tool
   * definition: the call asks, and a person's yes records the definition in the rule.
   */
  unconfirmed?: Rule;
  /** Every rule whose workspace and target cover the call, in file order, with its conditions. */
  considered: RuleMatch[];
  marks: ArgumentMarks;
  /** Why the rules decided as they did, in words (for the card, the terminal and the transcript). */
  note: RuleNote;
}
