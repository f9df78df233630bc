import { z } from 'zod';
import type { JsonSchema } from '../../../common/json.js';
import { TRUST_LEVELS } from '../../../common/tool-policy.js';

/**
 * The format of a test file (`tests/*.yaml` in a workspace), defined once: the loader validates
 * against it, its types are inferred from it and schemas/tests.schema.json is generated from it
 * (`npm run schemas`). docs/testing.md describes every field.
 */

const json = z.json();
const text = z.string();

/** A text assertion: a bare string is `equals`; each given field must hold. */
const TextMatchSchema = z.union([
  text.meta({ description: 'The whole text, exactly.' }),
  z
    .object({
      equals: text.optional().meta({ description: 'The whole text, exactly.' }),
      contains: z
        .union([text, z.array(text)])
        .optional()
        .meta({ description: 'Text (or each text of a list) found somewhere in it.' }),
      matches: text
        .optional()
        .meta({ description: 'A regular expression (RE2: linear time, no backreferences or lookaround) found in it.' }),
      schema: z
        .record(z.string(), json)
        .optional()
        .meta({ description: 'A JSON Schema the text, read as JSON, must match.' }),
    })
    .strict(),
]);

const ScriptedCallSchema = z
  .object({
    name: z.string().min(1).meta({ description: 'The tool alias the model asks for.' }),
    arguments: z
      .union([z.record(z.string(), json), z.string()])
      .optional()
      .meta({ description: 'The arguments: an object, or a string sent as the raw argument text (to test bad JSON).' }),
    id: z.string().min(1).optional().meta({ description: 'The call id (default: call-R-N for round R, call N).' }),
  })
  .strict();

/** One scripted model round. */
const ScriptedReplySchema = z
  .object({
    content: text.optional().meta({ description: "The reply's text." }),
    calls: z.array(ScriptedCallSchema).optional().meta({ description: 'Tool calls the model asks for, in order.' }),
    usage: z
      .object({ input: z.number().int().nonnegative(), output: z.number().int().nonnegative() })
      .strict()
      .optional()
      .meta({
        description:
          'Tokens the round reports (default: an estimate, one token per 4 characters of request and reply).',
      }),
    finish: z.string().min(1).optional().meta({ description: 'The finish reason (default: tool_calls or stop).' }),
  })
  .strict();

const PriceSchema = z
  .object({ inputPerMillion: z.number().nonnegative(), outputPerMillion: z.number().nonnegative() })
  .strict();

/** The model that answers a case. */
const CaseModelSchema = z.union([
  z.string().min(1).meta({ description: 'A model alias from models.yaml (a live model).' }),
  z
    .object({
      replies: z.array(ScriptedReplySchema).meta({ description: 'A scripted model: one reply per round, in order.' }),
      name: z.string().min(1).optional().meta({ description: 'The model id the run records (default: scripted).' }),
      price: PriceSchema.optional().meta({ description: 'Prices per million tokens, for cost assertions.' }),
    })
    .strict(),
  z
    .object({
      recording: z.string().min(1).meta({ description: 'A transcript to replay, relative to the workspace.' }),
    })
    .strict(),
  z
    .object({ alias: z.string().min(1).meta({ description: 'A model alias from models.yaml (a live model).' }) })
    .strict(),
  z
    .object({ environment: z.string().min(1).meta({ description: "A model of the case's test environment." }) })
    .strict(),
]);

const DECISIONS = ['approve', 'deny'] as const;

/** The approval policy: who answers the calls the gate would ask a person about. */
const ApproveSchema = z.union([
  z.enum(['deny', 'auto', 'ask-as-deny']).meta({
    description:
      'deny and auto: as `promptforge run --approve deny|auto`; ask-as-deny: as a run with no terminal and no --approve flag.',
  }),
  z
    .object({
      default: z.enum(DECISIONS).optional().meta({ description: 'The answer for a tool not listed (default: deny).' }),
      tools: z.record(z.string(), z.enum(DECISIONS)).optional().meta({ description: 'The answer per tool alias.' }),
    })
    .strict(),
]);

const CountSchema = z.union([
  z.number().int().nonnegative(),
  z.object({ min: z.number().int().nonnegative().optional(), max: z.number().int().nonnegative().optional() }).strict(),
]);

/** One expected tool call. */
const CallMatchSchema = z
  .object({
    tool: z.string().min(1).meta({ description: 'The tool alias.' }),
    arguments: z.record(z.string(), json).optional().meta({ description: 'The arguments, exactly.' }),
    arguments_include: z.record(z.string(), json).optional().meta({
      description: 'A subset of the arguments: every field given, with that value (objects compared the same way).',
    }),
    arguments_schema: z.record(z.string(), json).optional().meta({ description: 'A JSON Schema the arguments match.' }),
    arguments_match: z.record(z.string(), text).optional().meta({
      description: 'Per argument (a name, or a JSON pointer starting with /): a regular expression its text matches.',
    }),
    asked: z.boolean().optional().meta({ description: 'Whether the call asked for approval.' }),
    decision: z
      .enum(['approve', 'approve-edited', 'allow-for-run', 'deny', 'cancelled'])
      .optional()
      .meta({ description: 'The decision recorded for the call.' }),
    tainted: z.boolean().optional().meta({ description: "Whether the call's arguments carried untrusted text." }),
    trust: z.enum(TRUST_LEVELS).optional().meta({ description: "The trust of the call's output." }),
    outcome: z
      .enum(['output', 'error'])
      .optional()
      .meta({ description: 'Whether the call returned output or failed.' }),
    output: TextMatchSchema.optional().meta({ description: "The call's output text (or error message)." }),
  })
  .strict();

/** A check on the test environment's state after the run. */
const StateMatchSchema = z
  .object({
    pointer: z.string().meta({ description: 'A JSON pointer into the state ("" is the whole state).' }),
    equals: json.optional().meta({ description: 'The value there, exactly.' }),
    schema: z.record(z.string(), json).optional().meta({ description: 'A JSON Schema the value there matches.' }),
  })
  .strict();

/** What a case asserts. */
const ExpectSchema = z
  .object({
    status: z.enum(['ok', 'error', 'limit', 'stopped']).optional().meta({ description: "The run's status." }),
    error: TextMatchSchema.optional().meta({ description: "The run's error message." }),
    calls: z
      .array(CallMatchSchema)
      .optional()
      .meta({ description: 'Calls that happen in this order (others may come between unless only_these_calls).' }),
    only_these_calls: z
      .boolean()
      .optional()
      .meta({ description: 'When true, `calls` lists every call of the run, in order.' }),
    counts: z
      .record(z.string(), CountSchema)
      .optional()
      .meta({ description: 'How many times each tool is called: a number, or { min, max }.' }),
    not_called: z.array(z.string().min(1)).optional().meta({ description: 'Tools the run never calls.' }),
    final: TextMatchSchema.optional().meta({ description: "The model's last reply text." }),
    logs: TextMatchSchema.optional().meta({ description: "The script's log lines, joined with newlines." }),
    max_rounds: z.number().int().nonnegative().optional().meta({ description: 'At most this many model rounds.' }),
    max_tokens: z.number().int().nonnegative().optional().meta({ description: 'At most this many tokens in all.' }),
    max_cost: z
      .number()
      .nonnegative()
      .optional()
      .meta({ description: 'At most this cost (the model price currency).' }),
    check: z
      .union([z.string().min(1), z.array(z.string().min(1))])
      .optional()
      .meta({ description: "A named check of the case's test environment (or a list of them)." }),
    state: z
      .array(StateMatchSchema)
      .optional()
      .meta({ description: "Checks on the test environment's state after the run." }),
  })
  .strict();

const LimitsSchema = z
  .object({
    cpu: z.number().positive().optional().meta({ description: 'Seconds of Lua compute (default 30).' }),
    memory: z.number().positive().optional().meta({ description: 'MiB of Lua heap (default 256).' }),
    timeout: z.number().positive().optional().meta({ description: 'Wall-clock seconds (default 60).' }),
    tokens: z
      .number()
      .positive()
      .optional()
      .meta({ description: 'Spending cap in tokens: the round that reaches it ends the run (status limit).' }),
    cost: z
      .number()
      .positive()
      .optional()
      .meta({ description: 'Spending cap in US dollars, at the model price: the round that reaches it ends the run.' }),
  })
  .strict();

/** Fields a case has, and `defaults` may give every case of the file. */
const caseFields = {
  agent: z.string().min(1).meta({ description: 'The Lua script, relative to the workspace (e.g. agents/x.lua).' }),
  input: json.optional().meta({ description: "The script's `...`." }),
  model: CaseModelSchema,
  approve: ApproveSchema.optional().meta({ description: 'Who answers approvals (default deny).' }),
  limits: LimitsSchema.optional(),
  environment: z.string().min(1).optional().meta({ description: 'A registered test environment.' }),
  injections: z
    .record(z.string(), z.string())
    .optional()
    .meta({ description: "Text for the environment's injection slots." }),
  task: json.optional().meta({ description: "Free JSON the environment's models and checks read." }),
  expect: ExpectSchema.optional(),
};

export const TestCaseSchema = z
  .object({
    name: z.string().min(1).meta({ description: 'The case name, unique in its file.' }),
    ...caseFields,
  })
  .strict();

export const TestFileSchema = z
  .object({
    $schema: z.string().optional(),
    description: z.string().optional(),
    defaults: z
      .object(caseFields)
      .partial()
      .strict()
      .optional()
      .meta({ description: 'Fields every case gets unless it sets them.' }),
    cases: z.array(z.looseObject({})).meta({ description: 'The cases.' }),
  })
  .strict();

export type TestCaseSpec = z.infer<typeof TestCaseSchema>;
export type CaseExpect = z.infer<typeof ExpectSchema>;
export type CallMatch = z.infer<typeof CallMatchSchema>;
export type TextMatch = z.infer<typeof TextMatchSchema>;
export type ScriptedReply = z.infer<typeof ScriptedReplySchema>;
export type Approve = z.infer<typeof ApproveSchema>;

/** Where the published schema lives. */
export const TEST_FILE_SCHEMA_PATH = 'schemas/tests.schema.json';

/** The JSON Schema of a test file (draft 2020-12), with `cases` items as the case schema. */
function testFileJsonSchema(): JsonSchema {
  const whole = z
    .object({ ...TestFileSchema.shape, cases: z.array(TestCaseSchema).meta({ description: 'The cases.' }) })
    .strict();
  const body = z.toJSONSchema(whole, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' });
  const { $schema, ...rest } = body;
  return JSON.parse(
    JSON.stringify({
      $schema,
      $id: 'https://promptforge.studio/schemas/tests.schema.json',
      title: 'PromptForge test file',
      ...rest,
    }),
  ) as JsonSchema;
}

export function testFileJsonSchemaText(): string {
  return `${JSON.stringify(testFileJsonSchema(), null, 2)}\n`;
}
