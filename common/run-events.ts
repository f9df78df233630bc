import { z } from 'zod';
import { TRUST_LEVELS } from './tool-policy.js';
import { DECIDED_BY } from './approval-rules.js';

/**
 * The events of one run, in order. They stream to the studio (`run-event`), to the CLI's `--json`
 * output, and one JSON object per line into the run's transcript (flushed per event). Secrets never
 * appear in any of them. The JSON Schema published in docs/transcript.schema.json is generated
 * from these definitions.
 */

const json = z.json();

const base = {
  /** 1-based position of the event in its run. */
  seq: z.number().int().positive(),
  /** ISO-8601 time the event happened. */
  t: z.string(),
  runId: z.string(),
};

/** Run limits in force. */
const RunLimitsSchema = z.object({
  /** Lua compute time budget in milliseconds (time waiting on the host does not count). */
  cpuMs: z.number().positive(),
  /** Lua heap cap in bytes. */
  memoryBytes: z.number().positive(),
  /** Optional wall-clock limit in milliseconds. */
  wallMs: z.number().positive().optional(),
  /** Spending cap in tokens (input and output, every round): the round that reaches it ends the run (`limit`). */
  maxTokens: z.number().positive().optional(),
  /** Spending cap in US dollars, at each round's price: the round that reaches it ends the run (`limit`). */
  maxCost: z.number().positive().optional(),
});

/** The price a round was charged at and where it came from (models.yaml, the price table, local, replay). */
const RoundPriceSchema = z.object({
  inputPerMillion: z.number(),
  outputPerMillion: z.number(),
  currency: z.string(),
  from: z.enum(['models.yaml', 'price-table', 'local', 'replay', 'test-file']),
  /** For `price-table`: when the table's prices were read (YYYY-MM-DD). */
  asOf: z.string().optional(),
  /** For `price-table`: the provider's pricing page. */
  url: z.string().optional(),
});

/** A tool call the model requested (unexecuted). */
const RequestedCallSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** Exactly the text the provider sent. */
  rawArguments: z.string(),
  /** Set when rawArguments is not a JSON object; the script sees it as `call.error`. */
  error: z.string().optional(),
});

/** Token counts for one round. */
const UsageSchema = z.object({ inputTokens: z.number(), outputTokens: z.number() });

/**
 * A span of a call's arguments that repeats an earlier untrusted output (or an envelope tag):
 * `[start, end)` of the string at `path`.
 */
export const TaintSpanSchema = z.object({
  /** JSON pointer of the argument string holding the span. */
  path: z.string(),
  /** Character offsets inside that string. */
  start: z.number(),
  end: z.number(),
  /**
   * The id of the earlier tool output the fragment came from, `envelope` for an envelope tag, or
   * `taint-index-full` when the run recorded more untrusted text than the tracker holds.
   */
  sourceOutputId: z.string(),
  /** Set when the span is inside an object key (`path` points at that key's member). */
  key: z.boolean().optional(),
});

/** The decision recorded for a dispatched call. */
const DecisionSchema = z.object({
  kind: z.enum(['approve', 'approve-edited', 'allow-for-run', 'deny', 'cancelled']),
  source: z.enum(['studio', 'cli-prompt', 'policy', 'replay']),
  at: z.string(),
  reason: z.string().optional(),
  /** The edited arguments, for approve-edited. */
  arguments: json.optional(),
  /**
   * What the decision lets run, in words, on every decision that lets a call run. For
   * allow-for-run: this call and the tool's later untainted calls in this run; calls whose
   * arguments carry untrusted text still ask.
   */
  scope: z.string().optional(),
  /**
   * For allow-for-run: the tool's taint check in the run's catalog when the decision was made
   * (false: tainted calls are covered too). What the conversation says the decision covered.
   */
  taintCheck: z.boolean().optional(),
  /**
   * What made the decision: `rule` (an approval rule, named by `rule`), `policy` (the tool's
   * policy or the taint rule's answer without asking), `allowed-for-run`, `approver` (a person, or
   * `--approve` answering for one), `cancelled`. Absent in transcripts written before rules.
   */
  decidedBy: z.enum(DECIDED_BY).optional(),
  /** The approval rule that decided, or that was part of why the call asked. */
  rule: z.string().optional(),
  /** Which rule applied, or why none did, in words. */
  ruleNote: z.string().optional(),
});

/**
 * What a fork changes at its step (docs/host-api.md#forks): a tool step's output, or a model
 * step's reply text and requested calls. Fields that do not fit the step are refused.
 */
export const ForkEditSchema = z.object({
  /** Replaces the tool's output at a tool step (a failed call then succeeds with this text). */
  output: z.string().optional(),
  /** Replaces the model's reply text at a model step. */
  reply: z.string().optional(),
  /**
   * Replaces the calls the model requested at a model step (`[]`: none). `arguments` is an object,
   * or a string sent as the raw argument text. `id` defaults to the recorded call's at that place.
   */
  calls: z.array(z.object({ id: z.string().min(1).optional(), name: z.string().min(1), arguments: json })).optional(),
});

/** Where a fork came from, recorded in its run-start. */
const ForkOriginSchema = z.object({
  /** The parent run. */
  runId: z.string(),
  /** The parent's transcript, as given. */
  transcript: z.string(),
  /** The step: the `seq` of the parent's `round-response`, `tool-output` or `tool-error` event. */
  step: z.number().int().positive(),
  /** `model`: a model round; `tool`: a tool call's outcome. */
  kind: z.enum(['model', 'tool']),
  edit: ForkEditSchema.optional(),
  /** After the step: `live` (a model was chosen) or `replay` (on the recording while it matches). */
  then: z.enum(['live', 'replay']),
  /** Set when the script differed from the parent's and the fork was forced. */
  scriptChanged: z.boolean().optional(),
});

/** Who answered a server's question: the studio, the terminal, or the host itself (`policy`: declined, nobody asked). */
const McpAnswerSource = z.enum(['studio', 'cli-prompt', 'policy']);

/** The model a sampling round used. */
/** A model as a run names it: the catalog alias, its provider, and the provider's model id. */
export const ModelRefSchema = z.object({ alias: z.string(), provider: z.string(), modelId: z.string() });

export const RunEventSchema = z.discriminatedUnion('type', [
  z.object({
    ...base,
    type: z.literal('run-start'),
    script: z.object({ path: z.string(), sha256: z.string() }),
    workspace: z.string().optional(),
    /** Content hashes of the catalog files in force (file -> sha256). */
    catalogs: z.record(z.string(), z.string()),
    /**
     * The model the script uses by default. Absent when none is set, and always absent in a tool
     * trial (`toolTrial`), which calls no model.
     */
    model: z.object({ alias: z.string(), provider: z.string(), modelId: z.string() }).optional(),
    limits: RunLimitsSchema,
    /**
     * Set when this run is a tool trial from the studio: one `tools.call` of `alias`. A trial uses
     * no model: none is resolved, `model` is absent, and `models.chat` would fail.
     */
    toolTrial: z.object({ alias: z.string() }).optional(),
    /**
     * The value the script received as its chunk argument (`local message = ...`): the message the
     * person typed in the studio, `--input` at the terminal, a test case's `input`, a tool trial's
     * call. Absent when the script received none. A replay or fork of this run gives it again.
     */
    input: json.optional(),
    /** Set when this run replays a transcript. */
    replayOf: z.string().optional(),
    /** Set when this run is a fork of an earlier run: answered from its recording up to the step. */
    forkOf: ForkOriginSchema.optional(),
  }),
  z.object({
    ...base,
    type: z.literal('round-request'),
    round: z.number().int().positive(),
    model: z.object({ alias: z.string(), provider: z.string(), modelId: z.string() }),
    /** The driver-level request: resolved messages and advertised tool names. */
    messages: z.array(json),
    tools: z.array(z.string()),
    options: z.record(z.string(), json),
    /** The exact wire body sent to the provider, when the provider reports it. */
    wire: z.object({ url: z.string(), body: json }).optional(),
  }),
  z.object({ ...base, type: z.literal('message-delta'), round: z.number().int(), text: z.string() }),
  z.object({
    ...base,
    type: z.literal('round-response'),
    round: z.number().int().positive(),
    content: z.string(),
    toolCalls: z.array(RequestedCallSchema),
    finishReason: z.string(),
    /** The provider's own word for it, when it differs (e.g. Gemini `SAFETY`). */
    providerFinishReason: z.string().optional(),
    usage: UsageSchema,
    /** Cost of the round in the model's price currency, when its price is known. */
    cost: z.number().optional(),
    /** The price `cost` was reckoned at, and where it came from. */
    price: RoundPriceSchema.optional(),
    durationMs: z.number(),
  }),
  z.object({ ...base, type: z.literal('provider-raw'), round: z.number().int(), note: z.string(), data: z.string() }),
  z.object({
    ...base,
    type: z.literal('tool-call-requested'),
    round: z.number().int().positive(),
    call: RequestedCallSchema,
  }),
  z.object({
    ...base,
    type: z.literal('tool-dispatch'),
    callId: z.string(),
    alias: z.string(),
    /** The model's requested call this dispatch answers: the earliest one not yet dispatched with the same alias and arguments. */
    requestedCallId: z.string().optional(),
    arguments: json,
    /** tools.calls[alias] after this attempt. */
    count: z.number().int().positive(),
  }),
  z.object({
    ...base,
    type: z.literal('approval-pending'),
    callId: z.string(),
    alias: z.string(),
    description: z.string(),
    arguments: json,
    taint: z.array(TaintSpanSchema),
    /** The approval rule that is part of why the call asks (or why none applied), when rules are in play. */
    rule: z.object({ id: z.string().optional(), note: z.string() }).optional(),
  }),
  z.object({
    ...base,
    type: z.literal('approval-decision'),
    callId: z.string(),
    alias: z.string(),
    proposedArguments: json,
    decision: DecisionSchema,
  }),
  z.object({
    ...base,
    type: z.literal('tool-output'),
    callId: z.string(),
    alias: z.string(),
    trust: z.enum(TRUST_LEVELS),
    /** The tool's raw output text, before any envelope. */
    output: z.string(),
    structured: z.boolean(),
    durationMs: z.number(),
    /**
     * Set when the output is untrusted because the call's (final) arguments carried tainted spans:
     * the ids of the outputs those spans came from (`envelope` for an envelope tag).
     */
    taintedBy: z.array(z.string()).optional(),
  }),
  z.object({
    ...base,
    type: z.literal('tool-error'),
    callId: z.string(),
    alias: z.string(),
    stage: z.enum(['unknown-tool', 'validation', 'denied', 'cancelled', 'run', 'output']),
    message: z.string(),
    /**
     * `untrusted` when the message carries text the tool produced (an HTTP error body, a stderr
     * tail) from an untrusted or tainted call: that part is inside the run's envelope.
     */
    trust: z.enum(TRUST_LEVELS).optional(),
    /** As in tool-output: the outputs whose text the call's arguments carried. */
    taintedBy: z.array(z.string()).optional(),
    /**
     * The MCP server (its tools.yaml name) the call failed for want of a sign-in to. Set by the
     * host from the sign-in's own state, never from a server's or a tool's text; the studio offers
     * that server's sign-in on the failed call. A recording's is only ever a name to look up.
     */
    signIn: z.string().optional(),
  }),
  z.object({ ...base, type: z.literal('log'), text: z.string() }),
  z.object({
    ...base,
    /** An MCP server's elicitation during one of this run's calls, and how it was answered. */
    type: z.literal('mcp-elicitation'),
    server: z.string(),
    /** The call (or read) in flight it came with. */
    callId: z.string().optional(),
    alias: z.string().optional(),
    mode: z.enum(['form', 'url']).optional(),
    /** The server's message (its words, untrusted). */
    message: z.string().optional(),
    url: z.string().optional(),
    /** The form's field names. */
    fields: z.array(z.string()).optional(),
    /** `refused`: the host refused the request before anyone was asked (`reason` says why). */
    action: z.enum(['accept', 'decline', 'cancel', 'refused']),
    /** What was sent back, for an accepted form (the person's words, defaults filled in). */
    content: z.record(z.string(), json).optional(),
    reason: z.string().optional(),
    source: McpAnswerSource,
  }),
  z.object({
    ...base,
    /** An MCP server's sampling request during one of this run's calls: the decision and, when approved, the model round. */
    type: z.literal('mcp-sampling'),
    server: z.string(),
    callId: z.string().optional(),
    alias: z.string().optional(),
    model: ModelRefSchema.optional(),
    /** The messages sent to the model (the server's, or the person's edit). */
    messages: z.array(z.object({ role: z.string(), text: z.string() })).optional(),
    systemPrompt: z.string().optional(),
    maxTokens: z.number().int().optional(),
    /** What the server asked for when it was more than the host allows. */
    requestedMaxTokens: z.number().optional(),
    /** `refused`: refused by the host before anyone was asked; `declined`: nobody to ask; `failed`: the model round failed. */
    decision: z.enum(['approve', 'approve-edited', 'deny', 'declined', 'refused', 'failed']),
    reason: z.string().optional(),
    source: McpAnswerSource,
    /** The model's reply, sent to the server. */
    content: z.string().optional(),
    stopReason: z.string().optional(),
    usage: UsageSchema.optional(),
    cost: z.number().optional(),
    durationMs: z.number().optional(),
  }),
  z.object({
    ...base,
    /** The script read an MCP resource (`mcp.read_resource`) or got a prompt (`mcp.get_prompt`). */
    type: z.literal('mcp-read'),
    readId: z.string(),
    server: z.string(),
    kind: z.enum(['resource', 'prompt']),
    /** The resource URI or the prompt name. */
    target: z.string(),
    /** A prompt's arguments. */
    arguments: z.record(z.string(), z.string()).optional(),
  }),
  z.object({
    ...base,
    type: z.literal('mcp-read-output'),
    readId: z.string(),
    server: z.string(),
    kind: z.enum(['resource', 'prompt']),
    trust: z.enum(TRUST_LEVELS),
    /** A resource's text, or a prompt's `{ description?, messages }`, before any envelope. */
    output: json,
    taintedBy: z.array(z.string()).optional(),
    durationMs: z.number(),
  }),
  z.object({
    ...base,
    type: z.literal('mcp-read-error'),
    readId: z.string(),
    server: z.string(),
    kind: z.enum(['resource', 'prompt']),
    message: z.string(),
    trust: z.enum(TRUST_LEVELS).optional(),
  }),
  z.object({
    ...base,
    type: z.literal('run-end'),
    status: z.enum(['ok', 'error', 'stopped', 'limit']),
    error: z
      .object({
        /**
         * `output`: a per-run cap on log, event or transcript volume was crossed. `budget`: the
         * spending cap (tokens or money) was reached, or a money cap met a model with no price.
         */
        kind: z.enum(['syntax', 'runtime', 'cpu', 'memory', 'timeout', 'stopped', 'crash', 'host', 'output', 'budget']),
        message: z.string(),
      })
      .optional(),
    durationMs: z.number(),
    /** Lua compute time in milliseconds (time outside host calls). */
    cpuMs: z.number(),
    usage: UsageSchema,
    cost: z.number().optional(),
    toolCalls: z.record(z.string(), z.number()),
  }),
]);

/** One event of a run. */
export type RunEvent = z.infer<typeof RunEventSchema>;
/** A run event as emitted, before `seq`, `t` and `runId` are stamped. */
export type RunEventBody = RunEvent extends infer E
  ? E extends RunEvent
    ? Omit<E, 'seq' | 't' | 'runId'>
    : never
  : never;
/** A run's final status. */
export type RunStatus = Extract<RunEvent, { type: 'run-end' }>['status'];
/** A decision as recorded. */
export type RecordedDecision = z.infer<typeof DecisionSchema>;
export type Usage = z.infer<typeof UsageSchema>;
/** A tainted span of a call's arguments. */
export type TaintSpan = z.infer<typeof TaintSpanSchema>;
/** Limits for one run. */
export type RunLimits = z.infer<typeof RunLimitsSchema>;
/** An edit at a fork's step. */
export type ForkEdit = z.infer<typeof ForkEditSchema>;
/** Where a fork came from. */
export type ForkOrigin = z.infer<typeof ForkOriginSchema>;
